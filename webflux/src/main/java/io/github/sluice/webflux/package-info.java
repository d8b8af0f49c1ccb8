/**
 * The Spring WebFlux adapter: Sluice policies on a reactive web stack (Reactor Netty, or a
 * servlet container running Spring's reactive bridge), without blocking an event loop. It
 * translates the {@link org.springframework.web.server.ServerWebExchange} into a
 * {@link io.github.sluice.request.RequestView}, writes what the
 * {@link io.github.sluice.http.Verdict} says, delays shaped requests on a timer, and maps the
 * reactive signals (complete, error, cancel) onto the verdict's single ending; every decision is
 * made in {@code io.github.sluice.http}. See {@code docs/webflux.md}.
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.webflux.SluiceWebFilter}: the policies by path, for every request;
 *   <li>{@link io.github.sluice.webflux.RateLimited} with
 *       {@link io.github.sluice.webflux.RateLimitedWebFilter}: named policies on annotated
 *       controllers;
 *   <li>{@link io.github.sluice.webflux.SluiceHandlerFilter}: named policies on functional routes;
 *   <li>{@link io.github.sluice.webflux.ExchangeEnforcement}: the one per-exchange lifecycle the
 *       three above share, for other reactive adapters (the Spring Cloud Gateway filter).
 * </ul>
 *
 * <h2>SPI</h2>
 * None: the filters are configured, not extended.
 *
 * <h2>Thread safety</h2>
 * Every public class is thread-safe; nothing is held per request beyond the request's own
 * verdict and view.
 */
package io.github.sluice.webflux;
