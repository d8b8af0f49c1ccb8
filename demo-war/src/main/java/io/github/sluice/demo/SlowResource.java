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

/**
 * {@code GET /api/slow?ms=N}: answers after {@code N} milliseconds without holding a container
 * thread (the request is suspended and resumed from a timer), so the {@code inflight}
 * concurrency permit is held across an asynchronous request and must be released when it
 * resumes.
 */
@Path("slow")
@RateLimited("inflight")
public class SlowResource {

    /** The longest wait the demo accepts, in milliseconds. */
    static final long MAX_MS = 60_000;

    /**
     * @param ms the delay, 0 to {@value #MAX_MS}
     * @param response resumed after the delay
     */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public void slow(@QueryParam("ms") @DefaultValue("1000") String ms, @Suspended AsyncResponse response) {
        long delay;
        try {
            delay = Long.parseLong(ms);
        } catch (NumberFormatException e) {
            delay = -1;
        }
        if (delay < 0 || delay > MAX_MS) {
            response.resume(Response.status(Response.Status.BAD_REQUEST).type(MediaType.TEXT_PLAIN)
                    .entity("ms must be a whole number between 0 and " + MAX_MS + " but was '" + ms + "'\n").build());
            return;
        }
        String body = "Answered after " + delay + " ms.\n";
        // The JDK's shared delay scheduler: no thread of ours to stop when the webapp is undeployed.
        CompletableFuture.runAsync(() -> response.resume(body),
                CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
    }
}
