package io.github.sluice.servlet;

import io.github.sluice.http.ReleaseHandle;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRequest;

/**
 * Gives a request's concurrency permits back when the request is over: at once if it stayed
 * synchronous, else when its async cycle completes, fails or times out. The handle's release is
 * idempotent, so the several events of one request (error, then complete) release once.
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
     */
    static void whenComplete(ServletRequest request, ReleaseHandle permits) {
        if (permits.released()) {
            return; // nothing held: no listener, no allocation
        }
        if (!request.isAsyncStarted()) {
            permits.release();
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

    @Override
    public void onComplete(AsyncEvent event) {
        permits.release();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        permits.release();
    }

    @Override
    public void onError(AsyncEvent event) {
        permits.release();
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
