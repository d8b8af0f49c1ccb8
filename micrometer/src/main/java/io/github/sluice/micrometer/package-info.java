/**
 * Micrometer meters for an {@link io.github.sluice.http.Enforcer}'s counts.
 *
 * <h2>API (for users)</h2>
 * {@link io.github.sluice.micrometer.SluiceMetrics}: a {@code MeterBinder} that registers, per
 * policy, the enforcer's decisions, releases, permits in flight, shaping delays, keys and
 * evictions, and per shared store its degraded state; tagged by policy, outcome and status, never
 * by client key. See {@code docs/operations.md}.
 *
 * <h2>SPI</h2>
 * None.
 *
 * <h2>Thread safety</h2>
 * Meters read the enforcer's counters at scrape time; nothing here runs on the request path.
 */
package io.github.sluice.micrometer;
