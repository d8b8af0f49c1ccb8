/**
 * The HTTP policy layer shared by the Servlet and JAX-RS adapters: everything that is not
 * specific to a container API.
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
