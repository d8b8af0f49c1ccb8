package io.github.sluice.servlet;

import io.github.sluice.http.ReleaseHandle;
import io.github.sluice.http.Verdict;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Gives a request's concurrency permits back when the request is over: at once if it stayed
 * synchronous, else when its async cycle completes, fails or times out. The handle's release is
 * idempotent, so the several events of one request (error, then complete) release once.
 *
 * <p>This is the one mapping of the Servlet request lifecycle onto a {@link ReleaseHandle}, shared
 * by every adapter that runs inside a Servlet container: {@link SluiceFilter} calls it when its
 * chain returns or throws, and Sluice's Spring MVC interceptor ({@code @RateLimited} in
 * {@code sluice-spring-boot-starter}) when a handler's dispatch ends. An adapter that ends a
 * dispatch holding a handle calls {@link #whenComplete}; one that starts an async cycle of its own
 * registers on it with {@link #register} before anything can complete it. Nothing else is needed:
 * whoever started the async mode (the adapter, the application, a filter in front), the handle
 * is released exactly once, by the end of the request's last async cycle.
 *
 * <p>It tells adaptive policies how the request ended (see {@link ReleaseHandle}): the response's
 * status when it completes (a drop if the policy lists it, e.g. 503), a drop when the async
 * request times out (the container calls {@code onTimeout} before anything completes it), and
 * nothing learned when an exception escaped the chain before the response was committed or the
 * async request failed (an error, a client that went away), whose latency says nothing about load.
 * An exception after the response was committed, or an async error after it, releases with the
 * committed status: the client has it. A policy that counts by outcome ({@code count=}, {@code skip=}) keeps or refunds the
 * request's reservation by the same status; an exception or an async error counts as 500, an
 * async timeout as 504 (docs/servlet.md, "Counting by outcome").
 *
 * <p>A listener does not follow a request into a new async cycle by itself: the Servlet
 * specification delivers {@code onStartAsync} and expects the listener to register again on the
 * new context, which {@link #onStartAsync} does.
 *
 * <p>Thread-safe: the static methods may be called from any thread; a listener instance is
 * registered by them only, on one request. A request that holds nothing (its handle
 * {@linkplain ReleaseHandle#released() released}, or no concurrency policy applied) costs no
 * listener and no allocation.
 */
public final class PermitRelease implements AsyncListener {

    private final ReleaseHandle permits;

    private PermitRelease(ReleaseHandle permits) {
        this.permits = permits;
    }

    /**
     * Ends a dispatch that holds {@code permits}: call it when the dispatch's work (the filter
     * chain, the handler) has returned or thrown. If the request is not in async mode, the permits
     * go back now, with the response's status (or as a failure if {@code threw}); if it is, a
     * listener gives them back when the async request completes, fails or times out. If the
     * container no longer accepts a listener (the cycle is over), they go back now rather than
     * leak. Does nothing if the handle holds nothing.
     *
     * @param request the request of the dispatch that ends
     * @param response its response, for the status
     * @param permits the request's permits; released once, whatever is called later
     * @param threw whether an exception escaped the dispatch's work
     * @throws NullPointerException if {@code permits} is null, or a request or response is null
     *     while permits are held
     */
    public static void whenComplete(ServletRequest request, ServletResponse response, ReleaseHandle permits, boolean threw) {
        if (permits.released()) {
            return; // nothing held: no listener, no allocation
        }
        whenComplete(request, response, permits, threw, request.isAsyncStarted());
    }

    /**
     * {@link #whenComplete(ServletRequest, ServletResponse, ReleaseHandle, boolean)} with the
     * request's async state read once by the caller, who needs it too (the filter marks an async
     * request as decided): one read, so the release and the mark agree.
     *
     * @param asyncStarted {@code request.isAsyncStarted()}, read after the dispatch's work
     */
    static void whenComplete(ServletRequest request, ServletResponse response, ReleaseHandle permits, boolean threw,
            boolean asyncStarted) {
        if (permits.released()) {
            return;
        }
        if (!asyncStarted) {
            if (threw && !response.isCommitted()) {
                permits.releaseFailed();
            } else {
                // An exception after the response was committed: the client has its status,
                // which is what a policy that counts by outcome charges, not the 500 of a failure.
                permits.release(status(response));
            }
            return;
        }
        try {
            request.getAsyncContext().addListener(new PermitRelease(permits));
        } catch (IllegalStateException over) {
            // The async cycle is already over (or the container refuses listeners now): nothing
            // will call us later, so the permits must go back now rather than leak.
            permits.release();
        }
    }

    /**
     * Registers on an async cycle the adapter started itself (the servlet filter's shaping),
     * before anything can complete it: the permits go back when it (or a later cycle of the same
     * request) completes, fails or times out. Does nothing if the handle holds nothing.
     *
     * @param context the async context just started
     * @param permits the request's permits
     * @throws IllegalStateException if the container refuses the listener (the context is over)
     * @throws NullPointerException if an argument is null while permits are held
     */
    public static void register(AsyncContext context, ReleaseHandle permits) {
        if (!permits.released()) {
            context.addListener(new PermitRelease(permits));
        }
    }

    /**
     * {@link #whenComplete(ServletRequest, ServletResponse, ReleaseHandle, boolean, boolean)} for
     * the servlet filter's own verdict at the end of the dispatch that decided it, when nothing
     * else has it (the filter did not suspend the request): if the request did not go async, no
     * other thread can end it, and it is released without an atomic instruction
     * ({@link Verdict#releaseConfined(int)}); otherwise as any handle.
     */
    static void whenDecidingDispatchEnds(ServletRequest request, ServletResponse response, Verdict verdict,
            boolean threw, boolean asyncStarted) {
        if (!asyncStarted && !threw && !verdict.released()) {
            verdict.releaseConfined(status(response));
            return;
        }
        whenComplete(request, response, verdict, threw, asyncStarted);
    }

    /** @return the response's status, or 0 (unknown) for a response that is not HTTP */
    private static int status(ServletResponse response) {
        return response instanceof HttpServletResponse http ? http.getStatus() : 0;
    }

    @Override
    public void onComplete(AsyncEvent event) {
        permits.release(status(event));
    }

    /**
     * The status of a completed async request: from the event's response, since a container may
     * have recycled the context by now (Tomcat's {@code getResponse()} then throws); 0 if unknown.
     * Never throws: the release must happen whatever the status.
     */
    private static int status(AsyncEvent event) {
        try {
            ServletResponse response = event.getSuppliedResponse();
            if (response == null) {
                response = event.getAsyncContext().getResponse();
            }
            return status(response);
        } catch (RuntimeException recycled) {
            return 0;
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        permits.releaseTimedOut();
    }

    @Override
    public void onError(AsyncEvent event) {
        int committed = committedStatus(event);
        if (committed > 0) {
            permits.release(committed); // as for a synchronous exception after the commit
        } else {
            permits.releaseFailed();
        }
    }

    /** The status of a failed async request's response if it was committed, else 0. Never throws. */
    private static int committedStatus(AsyncEvent event) {
        try {
            ServletResponse response = event.getSuppliedResponse();
            if (response == null) {
                response = event.getAsyncContext().getResponse();
            }
            return response.isCommitted() ? status(response) : 0;
        } catch (RuntimeException recycled) {
            return 0;
        }
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        try {
            event.getAsyncContext().addListener(this);
        } catch (IllegalStateException over) {
            permits.release();
        }
    }
}
