package io.github.sluice.demo;

import io.github.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code GET /api/adaptive?ms=N}: a small server of {@value #WORKERS} workers, each request taking
 * {@code N} ms of a worker's time, in arrival order: beyond {@value #WORKERS} at once, requests
 * queue and their latency grows, as a real server's does. The {@code adaptive} policy (a global
 * gradient limit) learns that from the latency and holds the requests in flight near what the
 * workers can serve; its current limit is the {@code q} of {@code RateLimit-Policy}.
 *
 * <p>The workers are a model, not threads: each request takes the worker that frees up first and
 * is resumed by the JDK's shared delay scheduler when its work would be done, so the webapp
 * starts and stops no thread of its own.
 */
@Path("adaptive")
@RateLimited("adaptive")
public class AdaptiveResource {

    /** The workers of the modelled server. */
    static final int WORKERS = 4;

    /** When each worker is free again, in {@link System#nanoTime()} terms. */
    private static final AtomicLongArray FREE_AT = new AtomicLongArray(WORKERS);

    /**
     * @param ms the work per request, 0 to {@value SlowResource#MAX_MS}
     * @param response resumed when the work is done
     */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public void work(@QueryParam("ms") @DefaultValue("50") String ms, @Suspended AsyncResponse response) {
        long work;
        try {
            work = Long.parseLong(ms);
        } catch (NumberFormatException e) {
            work = -1;
        }
        if (work < 0 || work > SlowResource.MAX_MS) {
            response.resume(Response.status(Response.Status.BAD_REQUEST).type(MediaType.TEXT_PLAIN)
                    .entity("ms must be a whole number between 0 and " + SlowResource.MAX_MS + " but was '" + ms + "'\n")
                    .build());
            return;
        }
        long now = System.nanoTime();
        long done = schedule(now, TimeUnit.MILLISECONDS.toNanos(work));
        long waited = TimeUnit.NANOSECONDS.toMillis(done - now);
        String body = "Answered after " + waited + " ms (" + work + " ms of work).\n";
        CompletableFuture.runAsync(() -> response.resume(body),
                CompletableFuture.delayedExecutor(done - now, TimeUnit.NANOSECONDS));
    }

    /** Gives the work to the worker that is free first; returns when it will be done. */
    private static long schedule(long now, long work) {
        while (true) {
            int first = 0;
            for (int i = 1; i < WORKERS; i++) {
                if (FREE_AT.get(i) - FREE_AT.get(first) < 0) {
                    first = i;
                }
            }
            long free = FREE_AT.get(first);
            long start = free - now > 0 ? free : now;
            if (FREE_AT.compareAndSet(first, free, start + work)) {
                return start + work;
            }
        }
    }
}
