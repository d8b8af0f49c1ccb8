package io.github.sluice.jaxrs;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import io.github.sluice.request.HeaderSink;
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

/**
 * One stage of enforcement: decides the request, refuses it or lets it through, reports the
 * headers, and gives the concurrency permits back when the response is done.
 *
 * <p>Where the permits are released, and why exactly once on every path (besides
 * {@link Verdict#release()} being idempotent):
 * <ul>
 *   <li>the response filter sees every response the runtime produces: a resource's return value,
 *       an {@code AsyncResponse} resumed, cancelled or timed out, an abort by a later filter, an
 *       exception mapped by the application and, since JAX-RS 3.1 mandates a default
 *       {@code ExceptionMapper<Throwable>} (which the feature supplies on older runtimes, see
 *       {@link UnmappedExceptions}), every other exception. It finds the verdict in
 *       {@link InFlight}, not in request properties, and releases at once when no body follows
 *       (no entity, or {@code HEAD});
 *   <li>otherwise it hands the verdict to the writer interceptor of the same thread, which runs
 *       outermost and releases in a {@code finally} once the body is written, so that a
 *       {@code StreamingOutput} holds its permit while it streams and a client that hangs up
 *       mid-body (the write fails) releases it as well.
 * </ul>
 * Adaptive policies are told the response's status (a drop if the policy lists it: an
 * {@code AsyncResponse} that times out without a handler answers 503, a drop by default); a body
 * whose write fails (the client went away) teaches them nothing ({@link Verdict#releaseAborted()}).
 * A policy that counts by outcome ({@code count=}, {@code skip=}) is settled by the response
 * filter with the response's status, before it writes the headers, which therefore show the
 * outcome (docs/jaxrs.md, "Counting by outcome").
 * An exception reaches the response filter as the response its mapper made, so its status is
 * what counts (500 for one nobody maps: not a drop by default).
 *
 * <p>The response filter runs last among response filters (priority {@link Integer#MIN_VALUE}), so
 * no later filter can remove the body after it chose the writer interceptor.
 *
 * <p>Thread-safe: one instance serves every request of its stage.
 */
class LimitStage implements ContainerRequestFilter, ContainerResponseFilter, WriterInterceptor {

    /** Verdicts on their way from a response filter to the writer interceptor of the same thread. */
    private static final ThreadLocal<Pending> GLOBAL_BODY = new ThreadLocal<>();
    private static final ThreadLocal<Pending> RESOURCE_BODY = new ThreadLocal<>();

    /**
     * A verdict and its response's status. Removed from the thread once used, so that no
     * container thread keeps a reference into the application after it is undeployed.
     */
    private record Pending(Verdict verdict, int status) {
    }

    private final Enforcer enforcer;
    private final PolicySet selection;
    private final boolean global;
    private final InFlight inFlight;
    private final StageSettings settings;
    private final ThreadLocal<Pending> body;

    /**
     * @param selection the policies of a {@code @RateLimited} method, or {@code null} for the
     *     path-matched policies
     */
    LimitStage(Enforcer enforcer, PolicySet selection, InFlight inFlight, StageSettings settings) {
        this.enforcer = enforcer;
        this.selection = selection;
        this.global = selection == null;
        this.inFlight = inFlight;
        this.settings = settings;
        this.body = global ? GLOBAL_BODY : RESOURCE_BODY;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        JaxRsRequest view = new JaxRsRequest(request, settings.peerAddress());
        Verdict verdict = global ? enforcer.enforce(view) : enforcer.enforce(view, selection);
        if (verdict.size() == 0) {
            return; // no policy applied: nothing held, nothing to report
        }
        // Recorded first: whatever happens next, the response filter finds it and releases.
        inFlight.put(request, global, verdict);
        if (verdict.denied()) {
            request.abortWith(denial(verdict, settings.servlet()));
        } else if (verdict.shaped()) {
            settings.pause().await(verdict.delayNanos());
        }
    }

    private static Response denial(Verdict verdict, ServletPeer servlet) {
        Response.ResponseBuilder response = Response.status(verdict.status());
        HeaderSink fields = new HeaderSink() {
            @Override
            public void header(String name, String value) {
                response.header(name, value); // a new response: nothing of that name yet
            }

            @Override
            public String existing(String name) {
                return servlet == null ? null : servlet.field(name); // a servlet filter's in front
            }
        };
        try {
            verdict.writeDenial(fields, response::entity);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen: the body goes into the builder
        }
        return response.build();
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        InFlight.Entry entry = inFlight.get(request);
        if (entry == null) {
            return;
        }
        Verdict verdict = inFlight.take(request, entry, global);
        if (verdict == null) {
            return; // a second response pass for this request (e.g. after a failed write)
        }
        // The status is final here: a policy that counts by outcome is charged or refunded now, so
        // that the headers below show it.
        verdict.settle(response.getStatus());
        // A denial carries its headers already. With both stages (and a servlet filter in front),
        // each one's fields are merged into those written before: one line of each, every policy.
        if (verdict.admitted()) {
            verdict.writeHeaders(new JaxRsFields(response.getHeaders(), settings.servlet()));
        }
        if (verdict.released()) {
            return; // holds nothing
        }
        if (!response.hasEntity() || HttpMethod.HEAD.equals(request.getMethod())) {
            verdict.release(response.getStatus());
            return;
        }
        Pending stale = body.get();
        if (stale != null) {
            stale.verdict.releaseFailed(); // a body whose writer never ran: released late rather than never
        }
        body.set(new Pending(verdict, response.getStatus()));
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        Pending pending = body.get();
        if (pending == null) {
            context.proceed();
            return;
        }
        body.remove();
        Verdict verdict = pending.verdict;
        int status = pending.status;
        boolean written = false;
        try {
            context.proceed();
            written = true;
        } finally {
            if (written) {
                verdict.release(status);
            } else {
                // The client went away mid-body (or the writer failed): nothing is learned. (A
                // policy that counts by outcome was settled by the response filter already.)
                verdict.releaseAborted();
            }
        }
    }

    /** The path-matched stage, which runs before the runtime matches a resource. */
    @jakarta.ws.rs.container.PreMatching
    static final class PreMatching extends LimitStage {
        PreMatching(Enforcer enforcer, InFlight inFlight, StageSettings settings) {
            super(enforcer, null, inFlight, settings);
        }
    }
}
