package io.github.sluice.spring.boot.app;

import io.github.sluice.key.KeyResolver;
import io.github.sluice.spring.boot.web.RateLimited;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.WebAsyncTask;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * The application the starter's tests run: endpoints limited by the filter (by path), by
 * {@code @RateLimited}, by a bean key resolver, and every way a Spring MVC handler can end:
 * returning, throwing, each async return type ({@code DeferredResult}, {@code Callable},
 * {@code WebAsyncTask}, {@code CompletableFuture}, {@code StreamingResponseBody},
 * {@code ResponseBodyEmitter}, {@code SseEmitter}) completing, failing and timing out, a handler
 * that calls {@code startAsync()} itself, and a filter in front that starts async mode
 * ({@code /front-async/*}) or moves the request to an ASYNC dispatch ({@code /front-dispatch/*}).
 * The {@code /inflight/*} and {@code /front-*} endpoints hold a permit of {@code inflight} (global)
 * and of {@code per-request} (keyed by the {@code X-Request-Id} header, when sent).
 */
@SpringBootApplication
public class TestApplication {

    /** The results of {@code /inflight/hold}, completed by the test when it chooses. */
    public static final java.util.Queue<DeferredResult<String>> HELD = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Completes the async handlers off the container's threads. */
    static final ExecutorService WORKERS = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "test-async-worker");
        t.setDaemon(true);
        return t;
    });

    /** Completes {@code /inflight/slow} a little later, for clients that go away before. */
    static final ScheduledExecutorService LATER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "test-async-later");
        t.setDaemon(true);
        return t;
    });

    /**
     * Filters in front of the DispatcherServlet that change the request's async state, on their
     * own paths only: {@code /front-async/*} is put in async mode, runs the chain in the same
     * dispatch and is completed from another thread afterwards; {@code /front-dispatch/*} is moved
     * to an ASYNC dispatch before the DispatcherServlet sees it.
     *
     * @return the filter (Boot registers it for REQUEST dispatches, async-supported)
     */
    @Bean
    Filter asyncFrontFilters() {
        return (req, res, chain) -> {
            String path = ((HttpServletRequest) req).getRequestURI();
            if (req.getDispatcherType() == DispatcherType.REQUEST && path.startsWith("/front-dispatch/")) {
                req.startAsync().dispatch();
                return;
            }
            if (req.getDispatcherType() != DispatcherType.REQUEST || !path.startsWith("/front-async/")) {
                chain.doFilter(req, res);
                return;
            }
            AsyncContext context = req.startAsync(req, res);
            context.setTimeout(20_000);
            try {
                chain.doFilter(req, res);
            } catch (IOException | jakarta.servlet.ServletException | RuntimeException e) {
                if (!res.isCommitted()) {
                    ((HttpServletResponse) res).sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
                }
            } finally {
                WORKERS.execute(() -> {
                    try {
                        context.complete();
                    } catch (IllegalStateException over) {
                        // completed or timed out already
                    }
                });
            }
        };
    }

    /**
     * The resolver {@code key=bean:tenantResolver} names: the {@code X-Tenant} header.
     *
     * @return the resolver
     */
    @Bean
    KeyResolver tenantResolver() {
        return request -> request.header("X-Tenant");
    }

    /** Endpoints limited by the filter, by path. */
    @RestController
    static class Hello {
        @GetMapping("/hello")
        String hello() {
            return "hello";
        }

        @GetMapping("/tenant")
        String tenant() {
            return "tenant";
        }
    }

    /** An endpoint limited by the filter (by path) and by {@code @RateLimited}: two layers on one request. */
    @RestController
    static class Layered {
        @GetMapping("/layered")
        @RateLimited("layered-mvc")
        String layered() {
            return "layered";
        }
    }

    /** Endpoints limited by {@code @RateLimited} only (their policies are match=none). */
    @RestController
    static class Annotated {
        @GetMapping("/annotated")
        @RateLimited("per-key")
        String annotated() {
            return "annotated";
        }

        @GetMapping("/inflight/sync")
        @RateLimited("inflight")
        String sync() {
            return "sync";
        }

        @GetMapping("/inflight/throw")
        @RateLimited("inflight")
        String fail() {
            throw new IllegalStateException("the handler failed");
        }

        @GetMapping("/inflight/deferred")
        @RateLimited("inflight")
        DeferredResult<String> deferred() {
            DeferredResult<String> result = new DeferredResult<>();
            WORKERS.execute(() -> result.setResult("deferred"));
            return result;
        }

        @GetMapping("/inflight/deferred-error")
        @RateLimited("inflight")
        DeferredResult<String> deferredError() {
            DeferredResult<String> result = new DeferredResult<>();
            WORKERS.execute(() -> result.setErrorResult(new IllegalStateException("async failure")));
            return result;
        }

        @GetMapping("/inflight/timeout")
        @RateLimited("inflight")
        DeferredResult<String> timeout() {
            return new DeferredResult<>(200L); // never completed: times out
        }

        @GetMapping("/inflight/hold")
        @RateLimited({"inflight", "per-request"})
        DeferredResult<String> hold() {
            DeferredResult<String> result = new DeferredResult<>();
            HELD.add(result);
            return result;
        }

        @GetMapping("/inflight/callable")
        @RateLimited("inflight")
        Callable<String> callable() {
            return () -> "callable";
        }

        @GetMapping("/inflight/future")
        @RateLimited("inflight")
        CompletableFuture<String> future() {
            return CompletableFuture.supplyAsync(() -> "future", WORKERS);
        }
    }

    /**
     * Every other way an async Spring MVC handler can end, each holding a permit of {@code inflight}
     * and one of {@code per-request}, counted per request by the contract's ledger.
     */
    @RestController
    @RateLimited({"inflight", "per-request"})
    static class Endings {
        @GetMapping("/inflight/m/sync")
        String sync() {
            return "sync";
        }

        @GetMapping("/inflight/m/throw")
        String fail() {
            throw new IllegalStateException("the handler failed");
        }

        @GetMapping("/inflight/m/deferred")
        DeferredResult<String> deferred() {
            DeferredResult<String> result = new DeferredResult<>();
            WORKERS.execute(() -> result.setResult("deferred"));
            return result;
        }

        @GetMapping("/inflight/m/deferred-error")
        DeferredResult<String> deferredError() {
            DeferredResult<String> result = new DeferredResult<>();
            WORKERS.execute(() -> result.setErrorResult(new IllegalStateException("async failure")));
            return result;
        }

        @GetMapping("/inflight/m/deferred-timeout")
        DeferredResult<String> deferredTimeout() {
            return new DeferredResult<>(100L);
        }

        @GetMapping("/inflight/m/slow")
        DeferredResult<String> slow() {
            DeferredResult<String> result = new DeferredResult<>();
            LATER.schedule(() -> result.setResult("slow"), 150, TimeUnit.MILLISECONDS);
            return result;
        }

        @GetMapping("/inflight/m/callable")
        Callable<String> callable() {
            return () -> "callable";
        }

        @GetMapping("/inflight/m/callable-error")
        Callable<String> callableError() {
            return () -> {
                throw new IllegalStateException("the callable failed");
            };
        }

        @GetMapping("/inflight/m/task")
        WebAsyncTask<String> task() {
            return new WebAsyncTask<>(5_000L, () -> "task");
        }

        @GetMapping("/inflight/m/task-timeout")
        WebAsyncTask<String> taskTimeout() {
            // The callable outlives its 50 ms: Spring answers the timeout, the callable ends later.
            return new WebAsyncTask<>(50L, () -> {
                Thread.sleep(150);
                return "too late";
            });
        }

        @GetMapping("/inflight/m/future")
        CompletableFuture<String> future() {
            return CompletableFuture.supplyAsync(() -> "future", WORKERS);
        }

        @GetMapping("/inflight/m/future-error")
        CompletableFuture<String> futureError() {
            return CompletableFuture.supplyAsync(() -> {
                throw new IllegalStateException("the future failed");
            }, WORKERS);
        }

        @GetMapping("/inflight/m/streaming")
        StreamingResponseBody streaming() {
            return out -> out.write("streamed".getBytes(StandardCharsets.US_ASCII));
        }

        @GetMapping("/inflight/m/streaming-error")
        StreamingResponseBody streamingError() {
            return out -> {
                throw new IOException("the stream failed");
            };
        }

        @GetMapping("/inflight/m/emitter")
        ResponseBodyEmitter emitter() {
            ResponseBodyEmitter emitter = new ResponseBodyEmitter();
            WORKERS.execute(() -> {
                try {
                    emitter.send("emitted", MediaType.TEXT_PLAIN);
                    emitter.complete();
                } catch (IOException | RuntimeException e) {
                    emitter.completeWithError(e);
                }
            });
            return emitter;
        }

        @GetMapping("/inflight/m/emitter-error")
        ResponseBodyEmitter emitterError() {
            ResponseBodyEmitter emitter = new ResponseBodyEmitter();
            WORKERS.execute(() -> emitter.completeWithError(new IllegalStateException("the emitter failed")));
            return emitter;
        }

        @GetMapping("/inflight/m/sse")
        SseEmitter sse() {
            SseEmitter emitter = new SseEmitter();
            WORKERS.execute(() -> {
                try {
                    emitter.send(SseEmitter.event().data("event"));
                    emitter.complete();
                } catch (IOException | RuntimeException e) {
                    emitter.completeWithError(e);
                }
            });
            return emitter;
        }

        @GetMapping("/inflight/m/sse-timeout")
        SseEmitter sseTimeout() {
            return new SseEmitter(100L); // never completed: times out
        }

        @GetMapping("/inflight/m/start-async")
        void startAsync(HttpServletRequest request, HttpServletResponse response) {
            // The handler owns an async cycle Spring knows nothing of, and completes it later.
            AsyncContext context = request.startAsync();
            WORKERS.execute(() -> {
                try {
                    response.setContentType("text/plain");
                    response.getWriter().write("started");
                } catch (IOException | RuntimeException e) {
                    // the client went away: complete all the same
                }
                context.complete();
            });
        }

        @GetMapping("/front-async/sync")
        String frontAsyncSync() {
            return "front-async";
        }

        @GetMapping("/front-async/throw")
        String frontAsyncThrow() {
            throw new IllegalStateException("the handler failed behind an async filter");
        }

        @GetMapping("/front-dispatch/sync")
        String frontDispatchSync(HttpServletRequest request) {
            return "front-dispatch " + request.getDispatcherType();
        }

        @GetMapping("/front-dispatch/deferred")
        DeferredResult<String> frontDispatchDeferred() {
            DeferredResult<String> result = new DeferredResult<>();
            WORKERS.execute(() -> result.setResult("front-dispatch deferred"));
            return result;
        }
    }

    /** Every handler method of this class is limited by the class's annotation. */
    @RestController
    @RateLimited("per-class")
    static class ClassLevel {
        @GetMapping("/class-level")
        String classLevel() {
            return "class-level";
        }
    }
}
