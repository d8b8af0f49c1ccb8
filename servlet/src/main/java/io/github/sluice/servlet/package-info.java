/**
 * The Jakarta Servlet adapter: {@link io.github.sluice.servlet.SluiceFilter} applies Sluice
 * policies to the requests of a Servlet 6.0 web application (Tomcat 10.1 and 11, Jetty 12 ee10,
 * any Jakarta EE 10 container). It translates the request into a
 * {@link io.github.sluice.request.RequestView}, writes what the
 * {@link io.github.sluice.http.Verdict} says, delays shaped requests and releases concurrency
 * permits when the response completes; every decision is made in {@code io.github.sluice.http}.
 * See {@code docs/servlet.md}. It uses only what filter-core exports.
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.servlet.SluiceFilter}: declared in {@code web.xml} with
 *       init-params, or registered in code with an enforcer;
 *   <li>{@link io.github.sluice.servlet.Shaping}: how a shaped request waits for its slot;
 *   <li>{@link io.github.sluice.servlet.PermitRelease}: for adapters that run inside a Servlet
 *       container (the Spring MVC interceptor of the starter), the release of a request's permits
 *       when its dispatch and async cycles end, the same as the filter's.
 * </ul>
 * Every other class is package-private: the adapter's side of
 * {@code io.github.sluice.request} and the denial response.
 *
 * <h2>SPI</h2>
 * None: the filter is configured, not extended.
 *
 * <h2>Thread safety</h2>
 * The filter is thread-safe once initialised; it holds nothing per request beyond the request's
 * own verdict.
 */
package io.github.sluice.servlet;
