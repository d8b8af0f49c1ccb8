/**
 * The vocabulary every layer above shares: what one decision is, where time comes from, and the
 * contract of a limiting algorithm over one key's state. The layer above
 * {@code internal}: it may use nothing else of Sluice.
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.core.Decision}: the immutable answer to one request (allowed or
 *       not, limit, remaining, reset, retry-after, delay; nanoseconds, never negative);
 *   <li>{@link io.github.sluice.core.MutableDecision}: the reusable holder the hot paths fill
 *       instead, so that a decision allocates nothing;
 *   <li>{@link io.github.sluice.core.Outcome}: allowed, shaped (allowed after a delay), denied;
 *   <li>{@link io.github.sluice.core.Clock#system()}: the one clock that reads the system's time.
 * </ul>
 *
 * <h2>SPI (for implementers)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.core.Algorithm} and {@link io.github.sluice.core.Cell}: a new
 *       limiting algorithm extends {@code Algorithm} over a {@code Cell} (one CAS word, or a
 *       subclass with more fields) and obeys the rules written on {@code Cell}: lock-free,
 *       nothing allocated per decision, a denial never writes, time only from the {@code now}
 *       argument, saturating integer arithmetic. The nine built-in ones are in
 *       {@code io.github.sluice.algorithm}.
 *   <li>{@link io.github.sluice.core.Clock}: implement it to drive time by hand in tests (a fake
 *       clock) or to take readings from elsewhere; the implementation reading the system's time is
 *       package-private here, and no other class reads {@code System.nanoTime()}.
 * </ul>
 *
 * <h2>Thread safety</h2>
 * {@code Decision}, {@code Outcome}, algorithms and the system clock are immutable or stateless
 * and thread-safe; a {@code Cell} is thread-safe (every change is a compare-and-set). A
 * {@code MutableDecision} is not: it belongs to one request at a time.
 */
package io.github.sluice.core;
