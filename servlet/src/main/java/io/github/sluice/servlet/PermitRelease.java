package io.github.sluice.servlet;

import io.github.sluice.http.ReleaseHandle;
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
 * <p>It tells adaptive policies how the request ended (see {@link ReleaseHandle}): the response's
 * status when it completes (a drop if the policy lists it, e.g. 503), a drop when the async
 * request times out (the container calls {@code onTimeout} before anything completes it), and
 * nothing learned when an exception escaped the chain or the async request failed (an error, a
 * client that went away), whose latency says nothing about load.
 *
 * <p>A listener does not follow a request into a new async cycle by itself: the Servlet
 * specification delivers {@code onStartAsync} and expects the listener to register again on the
 * new context, which {@link #onStartAsync} does.
 */
final class PermitRelease implements AsyncListener {

    private final ReleaseHandle permits;

    PermitRelease(ReleaseHandle permits) {
        this.permits = permits;
    }

    /**
     * Called when the chain has returned or thrown: releases now, or when the async request ends.
     *
     * @param threw whether an exception escaped the chain
     */
    static void whenComplete(ServletRequest request, ServletResponse response, ReleaseHandle permits, boolean threw) {
        if (permits.released()) {
            return; // nothing held: no listener, no allocation
        }
        if (!request.isAsyncStarted()) {
            if (threw) {
                permits.releaseFailed();
            } else {
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
     * Registers on a context this filter started itself (shaping), before anything can complete it.
     */
    static void register(AsyncContext context, ReleaseHandle permits) {
        if (!permits.released()) {
            context.addListener(new PermitRelease(permits));
        }
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
        permits.releaseFailed();
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
