package io.github.sluice.jaxrs;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Function;

/**
 * One stage of enforcement: decides the request, refuses it or lets it through, reports the
 * headers and gives the concurrency permits back when the response is done.
 *
 * <p>Where the permits are released, and why it is exactly once on every path (the verdict's
 * {@link Verdict#release()} is idempotent):
 * <ul>
 *   <li>the response filter sees every response the runtime produces: a resource's return value,
 *       an {@code AsyncResponse} resumed, cancelled or timed out, an exception mapped by the
 *       application's {@code ExceptionMapper} and, since JAX-RS 3.1 mandates a default
 *       {@code ExceptionMapper<Throwable>}, every other exception too, including one thrown by a
 *       later filter. It releases at once when there is no body to write, or for {@code HEAD};
 *   <li>otherwise the writer interceptor, outermost, releases in a {@code finally} after the body
 *       is written, so that a {@code StreamingOutput} holds its permit while it streams and a
 *       client that disconnects mid-body (the write fails) releases it too.
 * </ul>
 * The response filter runs last among response filters (priority {@link Integer#MIN_VALUE}), so
 * no later filter can remove the body after it chose the writer interceptor.
 *
 * <p>Thread-safe: one instance serves every request of its stage.
 */
class LimitStage implements ContainerRequestFilter, ContainerResponseFilter, WriterInterceptor {

    /** Request property holding the verdict of the global (path-matched) stage. */
    static final String GLOBAL = "io.github.sluice.jaxrs.verdict.global";
    /** Request property holding the verdict of the {@code @RateLimited} stage. */
    static final String RESOURCE = "io.github.sluice.jaxrs.verdict.resource";

    private final Enforcer enforcer;
    private final PolicySet selection;
    private final boolean global;
    private final String property;
    private final Function<ContainerRequestContext, String> peer;
    private final Pause pause;

    /**
     * @param selection the policies of a {@code @RateLimited} method, or {@code null} for the
     *     path-matched policies
     */
    LimitStage(Enforcer enforcer, PolicySet selection, Function<ContainerRequestContext, String> peer, Pause pause) {
        this.enforcer = enforcer;
        this.selection = selection;
        this.global = selection == null;
        this.property = global ? GLOBAL : RESOURCE;
        this.peer = peer;
        this.pause = pause;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        JaxRsRequest view = new JaxRsRequest(request, peer);
        Verdict verdict = selection == null ? enforcer.enforce(view) : enforcer.enforce(view, selection);
        if (verdict.size() == 0) {
            return; // no policy applied: nothing held, nothing to report
        }
        request.setProperty(property, verdict);
        if (verdict.denied()) {
            request.abortWith(denial(verdict));
        } else if (verdict.shaped()) {
            // The property is set first: if the wait fails, the response filter still releases.
            pause.await(verdict.delayNanos());
        }
    }

    private static Response denial(Verdict verdict) {
        Response.ResponseBuilder response = Response.status(verdict.status());
        try {
            verdict.writeDenial(response::header, response::entity);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen: the body goes into the builder
        }
        return response.build();
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (!(request.getProperty(property) instanceof Verdict verdict)) {
            return;
        }
        // A denial carries its headers already; with both stages, the resource's verdict is reported.
        if (verdict.admitted() && (!global || request.getProperty(RESOURCE) == null)) {
            verdict.writeHeaders(response.getHeaders()::add);
        }
        if (!response.hasEntity() || HttpMethod.HEAD.equals(request.getMethod())) {
            verdict.release();
        }
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        try {
            context.proceed();
        } finally {
            if (context.getProperty(property) instanceof Verdict verdict) {
                verdict.release();
            }
        }
    }

    /** The path-matched stage, which runs before the runtime matches a resource. */
    @jakarta.ws.rs.container.PreMatching
    static final class PreMatching extends LimitStage {
        PreMatching(Enforcer enforcer, Function<ContainerRequestContext, String> peer, Pause pause) {
            super(enforcer, null, peer, pause);
        }
    }
}
