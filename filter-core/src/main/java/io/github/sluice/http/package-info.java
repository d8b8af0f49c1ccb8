/**
 * The HTTP policy layer shared by the Servlet and JAX-RS adapters: everything that is not
 * specific to a container API. Below {@code config} only: it may use every other layer, and
 * nothing here knows a container API.
 *
 * <h2>API (for users and adapters)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.http.Enforcer}: applies policies to requests; the one object an
 *       adapter calls; its policies can be replaced while it serves ({@code reconfigure});
 *   <li>{@link io.github.sluice.http.Verdict}: the answer for one request, and its
 *       {@link io.github.sluice.http.ReleaseHandle};
 *   <li>{@link io.github.sluice.http.PolicySet}: policies chosen by name, with a cost;
 *   <li>{@link io.github.sluice.http.HeaderOptions} and {@link io.github.sluice.http.HeaderStyle}:
 *       which rate-limit fields a response carries;
 *   <li>{@link io.github.sluice.http.ProblemBody}: the default RFC 9457 denial body;
 *   <li>{@link io.github.sluice.http.LoggingListener}: the default listener, logging through
 *       {@code System.Logger}, and the start-up line ({@link io.github.sluice.http.Enforcer#description()});
 *   <li>{@link io.github.sluice.http.LogText}: the escaping of client-written text (keys, paths,
 *       methods, exception messages) that every Sluice log line uses, for adapters and listeners;
 *   <li>{@link io.github.sluice.http.KeyState} and {@link io.github.sluice.http.AdminJson}: a
 *       client key's state ({@link io.github.sluice.http.Enforcer#inspect(String)},
 *       {@link io.github.sluice.http.Enforcer#reset(String)}) and the JSON of operators'
 *       endpoints (the servlet module's admin servlet, an actuator).
 * </ul>
 *
 * <h2>SPI (for implementers)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.http.EnforcementListener}: told of every decision, release,
 *       eviction and store transition (it extends the store's
 *       {@link io.github.sluice.store.EvictionListener} and
 *       {@link io.github.sluice.store.StoreListener}), for metrics and audit;
 *   <li>{@link io.github.sluice.http.DenialBody}: renders a denial's body.
 * </ul>
 * The request side of the contract (what an adapter implements) is in
 * {@code io.github.sluice.request}.
 *
 * <h2>Thread safety</h2>
 * The enforcer is thread-safe and takes no lock per request; options, policy sets and bodies are
 * immutable. A verdict belongs to its request's thread, except that it may be released from any
 * thread, any number of times. Listeners and denial bodies must be thread-safe and must not throw.
 *
 * <h2>The adapter contract</h2>
 * An adapter translates its container's request into a {@link io.github.sluice.request.RequestView},
 * asks the {@link io.github.sluice.http.Enforcer} for a {@link io.github.sluice.http.Verdict}, and
 * writes what the verdict says through a {@link io.github.sluice.request.HeaderSink} and a
 * {@link io.github.sluice.request.BodySink}. It formats nothing itself.
 *
 * <pre>{@code
 * // once, at startup (errors are ConfigExceptions thrown here, not at the first request)
 * Enforcer enforcer = SluiceConfig.fromInitParams(filterConfig::getInitParameter).build();
 *
 * // per request
 * Verdict verdict = enforcer.enforce(view);          // or enforce(view, enforcer.select(...))
 * if (verdict.denied()) {
 *     response.setStatus(verdict.status());
 *     verdict.writeDenial(response::addHeader, response.getOutputStream()::write);
 *     return;                                        // nothing is held after a denial
 * }
 * if (verdict.shaped()) {
 *     delay(verdict.delayNanos());                   // before the application runs
 * }
 * verdict.writeHeaders(response::addHeader);         // before the response is committed
 * try {
 *     chain.doFilter(request, response);
 * } finally {
 *     verdict.release();                             // or from the async listener: idempotent
 * }
 *
 * // at shutdown
 * enforcer.close();
 * }</pre>
 *
 * <p>For JAX-RS {@code @RateLimited(value = {"a", "b"}, cost = 2)}: call
 * {@code enforcer.select(List.of("a", "b"), 2)} once per resource method at deployment, and
 * {@code enforcer.enforce(view, selection)} per request.
 */
package io.github.sluice.http;
