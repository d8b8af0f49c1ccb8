package io.github.sluice.spring.boot.app;

import io.github.sluice.key.KeyResolver;
import io.github.sluice.spring.boot.web.RateLimited;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * The application the starter's tests run: endpoints limited by the filter (by path), by
 * {@code @RateLimited}, by a bean key resolver, and every way a Spring MVC handler can end
 * (returning, throwing, {@code DeferredResult}, {@code Callable}, {@code CompletableFuture}, an
 * async timeout).
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
        @RateLimited("inflight")
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
