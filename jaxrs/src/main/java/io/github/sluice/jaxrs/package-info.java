/**
 * The JAX-RS adapter: {@link io.github.sluice.jaxrs.SluiceFeature} installs Sluice's policies as
 * request and response filters, globally by path and per resource through
 * {@link io.github.sluice.jaxrs.RateLimited}. It translates the JAX-RS request and response and
 * nothing else: the decisions, headers and problem bodies come from {@code io.github.sluice.http}.
 * Depends on the JAX-RS 3.1 API only, not on an implementation, and uses only what filter-core
 * exports. See {@code docs/jaxrs.md}.
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.jaxrs.SluiceFeature}: registered as a provider, with an enforcer
 *       or with configuration properties;
 *   <li>{@link io.github.sluice.jaxrs.RateLimited}: names the policies of a resource method or
 *       class, with a cost.
 * </ul>
 * Every other class is package-private: the filters, the adapter's side of
 * {@code io.github.sluice.request}, and the release of permits.
 *
 * <h2>SPI</h2>
 * None: the feature is configured, not extended.
 *
 * <h2>Thread safety</h2>
 * The feature and the filters it installs are thread-safe; the response phase of a request may
 * run on another thread than its request phase.
 */
package io.github.sluice.jaxrs;
