package io.github.sluice.jaxrs;

import jakarta.annotation.Priority;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An application with one resource method per way a request can end, for {@link PermitReleaseTest}.
 * Every method is under {@code /paths/*} (the global stage) and in a class annotated
 * {@link RateLimited} (the resource stage), so each request holds a permit of both.
 */
final class ReleasePaths {

    /** Requests parked by {@code /paths/park}, resumed by the test. */
    static final BlockingQueue<AsyncResponse> PARKED = new LinkedBlockingQueue<>();
    /** Opened by the test to let {@code /paths/held-stream} write its body. */
    static volatile CountDownLatch streamGate = new CountDownLatch(0);
    /** Completes suspended requests on another thread, as an application's worker pool would. */
    static final ExecutorService WORKERS = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "release-paths-worker");
        t.setDaemon(true);
        return t;
    });

    /** The enforcer under test, read by {@link #observe()}. */
    static volatile io.github.sluice.http.Enforcer enforcer;
    /** Permits of the global and the resource stage seen by the last request that reached the application. */
    static volatile long seenGlobal;
    static volatile long seenMethod;

    private ReleasePaths() {
    }

    /** Records the permits held while the application runs: proof that the request took them. */
    static void observe() {
        if (enforcer == null) {
            return;
        }
        seenGlobal = Permits.held(enforcer, "global-inflight", "global");
        seenMethod = Permits.held(enforcer, "per-method", "global");
    }

    /** Thrown by {@code /paths/mapped}, mapped to 418 by {@link Mapper}. */
    static final class Teapot extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    /** The application's own exception mapper. */
    public static final class Mapper implements ExceptionMapper<Teapot> {
        @Override
        public Response toResponse(Teapot e) {
            return Response.status(418).entity("mapped").build();
        }
    }

    /**
     * A filter that runs after Sluice's: {@code X-Forbid} aborts the request with 403 (a
     * {@code WebApplicationException}), {@code X-Break} throws an exception nobody maps.
     */
    @Priority(Priorities.AUTHORIZATION)
    public static final class LaterFilter implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            if (request.getUriInfo().getPath().startsWith("paths/")) {
                observe();
            }
            if (request.getHeaderString("X-Forbid") != null) {
                throw new ForbiddenException();
            }
            if (request.getHeaderString("X-Break") != null) {
                throw new IllegalStateException("a filter bug");
            }
        }
    }

    /** The resource: one method per ending. */
    @Path("/paths")
    @RateLimited("per-method")
    public static class Resource {
        @GET
        @Path("ok")
        public String ok() {
            observe();
            return "ok";
        }

        @GET
        @Path("empty")
        public void empty() {
            observe(); // 204: no body, so no writer interceptor runs
        }

        @GET
        @Path("mapped")
        public String mapped() {
            observe();
            throw new Teapot();
        }

        @GET
        @Path("unmapped")
        public String unmapped() {
            observe();
            throw new IllegalArgumentException("nobody maps this");
        }

        @GET
        @Path("error")
        public String error() {
            observe();
            throw new AssertionError("an Error, not an Exception");
        }

        @GET
        @Path("resume")
        public void resume(@Suspended AsyncResponse async) {
            WORKERS.execute(() -> {
                observe();
                async.resume("resumed");
            });
        }

        @GET
        @Path("resume-failure")
        public void resumeFailure(@Suspended AsyncResponse async) {
            observe();
            WORKERS.execute(() -> async.resume(new IllegalStateException("async failure")));
        }

        @GET
        @Path("cancel")
        public void cancel(@Suspended AsyncResponse async) {
            observe();
            WORKERS.execute(async::cancel);
        }

        @GET
        @Path("timeout")
        public void timeout(@Suspended AsyncResponse async) {
            observe();
            async.setTimeout(1, TimeUnit.MILLISECONDS);
        }

        @GET
        @Path("park")
        public void park(@Suspended AsyncResponse async) {
            PARKED.add(async);
        }

        @GET
        @Path("held-stream")
        public StreamingOutput heldStream() {
            return out -> {
                try {
                    streamGate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
                out.write("streamed".getBytes());
            };
        }

        @GET
        @Path("flood")
        public StreamingOutput flood() {
            // Writes until the client goes away (bounded, in case it never does).
            return ReleasePaths::flood;
        }
    }

    /** Two policies at once: all or nothing, and denials once the 50 metered calls are used. */
    @Path("/paths/metered")
    @RateLimited({"per-method", "metered"})
    public static class Metered {
        @GET
        public String get() {
            return "metered";
        }
    }

    private static void flood(OutputStream out) throws IOException {
        byte[] chunk = new byte[16 * 1024];
        for (int i = 0; i < 4096; i++) {
            out.write(chunk);
            out.flush();
        }
    }
}
