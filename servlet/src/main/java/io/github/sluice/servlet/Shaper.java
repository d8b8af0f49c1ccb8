package io.github.sluice.servlet;

import io.github.sluice.http.Verdict;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Delays shaped requests before the chain runs: suspended and resumed by a scheduler thread, or
 * by holding the container thread (see {@link Shaping}). The scheduler's one daemon thread is
 * started on the first suspended request and stopped by {@link #close()}. Thread-safe.
 */
final class Shaper {

    /** Extra async timeout beyond the delay, so that the container never times out a request we still owe a dispatch. */
    private static final long TIMEOUT_MARGIN_MILLIS = 10_000;

    private final Shaping mode;
    private volatile ScheduledThreadPoolExecutor scheduler;
    private boolean closed;

    Shaper(Shaping mode) {
        this.mode = mode;
    }

    Shaping mode() {
        return mode;
    }

    /**
     * Delays the request by the verdict's delay.
     *
     * @return {@code true} if the request was suspended and will be dispatched again (the caller
     *     must return), {@code false} if the delay has passed on this thread (the caller proceeds)
     */
    boolean delay(Verdict verdict, HttpServletRequest request, HttpServletResponse response) {
        long nanos = verdict.delayNanos();
        // A request already in async mode (a filter in front started the cycle) cannot be suspended
        // again in this dispatch: startAsync would throw, and the cycle is not ours to dispatch.
        if (mode == Shaping.ASYNC && request.isAsyncSupported() && !request.isAsyncStarted()
                && suspend(verdict, request, response, nanos)) {
            return true;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos); // bounded: the policy's max delay caps every delay
        } catch (InterruptedException e) {
            // The container is stopping this thread; the request keeps its admitted slot.
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private boolean suspend(Verdict verdict, HttpServletRequest request, HttpServletResponse response, long nanos) {
        ScheduledThreadPoolExecutor s = scheduler;
        if (s == null) {
            s = start();
        }
        if (s == null || s.isShutdown()) {
            return false;
        }
        // The (possibly wrapped) objects this filter received are the ones the dispatch passes on.
        AsyncContext context;
        try {
            context = request.startAsync(request, response);
        } catch (IllegalStateException refused) {
            return false; // the container will not suspend this request: wait on the thread instead
        }
        // The request waits from here: an ending before resume() (a timeout, a client gone) means
        // it never ran, and gives its place back by receipt (Verdict.beginDelay).
        verdict.beginDelay();
        // Registered before anything can end the cycle, so that every end releases; from here on
        // the permits belong to the listener and to the dispatch scheduled below.
        PermitRelease.register(context, verdict);
        long millis = TimeUnit.NANOSECONDS.toMillis(nanos) + TIMEOUT_MARGIN_MILLIS;
        if (context.getTimeout() > 0 && context.getTimeout() < millis) {
            context.setTimeout(millis);
        }
        try {
            s.schedule(() -> resume(context, verdict), nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            resume(context, verdict); // the filter is being destroyed: go now rather than hang
        }
        return true;
    }

    private static void resume(AsyncContext context, Verdict verdict) {
        if (!verdict.endDelay()) {
            return; // ended while it waited (the listener gave its place back); the container ends the cycle
        }
        try {
            context.dispatch();
        } catch (IllegalStateException over) {
            // Completed meanwhile (timeout, client abort, shutdown); the listener has released.
            verdict.release();
        }
    }

    /** Starts the scheduler once; later calls read the volatile field without locking. */
    private synchronized ScheduledThreadPoolExecutor start() {
        if (closed) {
            return null;
        }
        if (scheduler == null) {
            ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "sluice-shaping");
                t.setDaemon(true);
                return t;
            });
            s.setRemoveOnCancelPolicy(true);
            scheduler = s;
        }
        return scheduler;
    }

    /** Stops the scheduler; suspended requests are resumed at once rather than left hanging. */
    void close() {
        List<Runnable> pending;
        synchronized (this) {
            closed = true;
            if (scheduler == null) {
                return;
            }
            pending = scheduler.shutdownNow();
        }
        for (Runnable r : pending) {
            r.run();
        }
    }
}
