package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Rate;
import io.github.sluice.http.Enforcer;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Shaped requests wait for their slot before the application runs. The policy's clock is frozen,
 * so the delays it hands out are exact (0, 50, 100... ms for 20 per second); the container's
 * waiting is real, so it is measured on the server (when requests reach the filter and the
 * application) with lower bounds (never before the slot) and a generous upper bound.
 */
abstract class ShapingContract extends ContainerContract {

    private static final long INTERVAL_MILLIS = 50;

    ShapingContract(Container container) {
        super(container);
    }

    /** 20 per second (one every 50 ms), no slack, at most {@code maxDelay} of waiting. */
    Enforcer shaping(Duration maxDelay) {
        return enforcer(Enforcer.builder().policy(Policy.builder("paced")
                .algorithm(ShapingLeakyBucket.builder().rate(Rate.perSecond(20)).slack(0)
                        .maxDelay(maxDelay).build())
                .key(KeyResolvers.global())
                .build()));
    }

    @Test
    void shaped_async_requestsAreSpacedByTheInterval_andResumedInAnAsyncDispatch() throws Exception {
        Timed filter = new Timed(new SluiceFilter(shaping(Duration.ofSeconds(1))));
        RunningServer server = start(Deployment.of(filter, app));
        assertSpaced(server, filter, 6, true);
    }

    @Test
    void shaped_blockingMode_waitsOnTheContainerThread() throws Exception {
        Timed filter = new Timed(new SluiceFilter(shaping(Duration.ofSeconds(1)), Shaping.BLOCKING));
        RunningServer server = start(Deployment.of(filter, app));
        assertSpaced(server, filter, 6, false);
    }

    @Test
    void shaped_withoutAsyncSupport_fallsBackToBlocking() throws Exception {
        Timed filter = new Timed(new SluiceFilter(shaping(Duration.ofSeconds(1))));
        RunningServer server = start(Deployment.of(filter, app).withoutAsync());
        assertSpaced(server, filter, 6, false);
    }

    @Test
    void delayBeyondMaxDelay_isDenied() throws Exception {
        // Given 20 per second with at most 200 ms of waiting: 1 + 4 requests fit
        RunningServer server = start(Deployment.of(new SluiceFilter(shaping(Duration.ofMillis(200))), app));

        // When 8 arrive at once
        List<HttpResponse<String>> responses = sendTogether(server, "/api/ok", 8);

        // Then 5 pass (after at most 200 ms) and 3 are refused
        long passed = responses.stream().filter(r -> r.statusCode() == 200).count();
        long denied = responses.stream().filter(r -> r.statusCode() == 429).count();
        assertEquals(5, passed);
        assertEquals(3, denied);
    }

    /**
     * Sends n requests together and checks, on the server's side: all pass with headers; the k-th
     * request to reach the application did so at least k intervals after the first request
     * reached the filter (its slot: the policy's clock is frozen, so the slots are 0, 1, 2...
     * intervals); the delayed ones ran in an ASYNC dispatch if {@code resumedAsync}.
     */
    private void assertSpaced(RunningServer server, Timed filter, int n, boolean resumedAsync) throws Exception {
        List<String> dispatches = new ArrayList<>();
        for (HttpResponse<String> r : sendTogether(server, "/api/dispatch-type", n)) {
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("RateLimit").isPresent(), "headers on a shaped response");
            dispatches.add(r.body());
        }
        long firstArrival = filter.arrivals.stream().min(Long::compare).orElseThrow();
        List<Long> entered = new ArrayList<>();
        for (long t : app.entries) {
            entered.add(TimeUnit.NANOSECONDS.toMillis(t - firstArrival));
        }
        entered.sort(null);
        assertEquals(n, entered.size());
        for (int k = 0; k < n; k++) {
            assertTrue(entered.get(k) >= k * INTERVAL_MILLIS, "request " + k + " reached the application after "
                    + entered.get(k) + " ms, before its slot at " + k * INTERVAL_MILLIS + " ms: " + entered);
        }
        assertTrue(entered.get(n - 1) < 10_000, "shaped requests took " + entered);
        long async = dispatches.stream().filter("ASYNC"::equals).count();
        assertEquals(resumedAsync ? n - 1 : 0, async, dispatches.toString());
        assertEquals(n - async, dispatches.stream().filter("REQUEST"::equals).count(), dispatches.toString());
    }

    /** Records when each request reaches the filter (its REQUEST dispatch), then applies Sluice. */
    static final class Timed implements Filter {
        final Queue<Long> arrivals = new ConcurrentLinkedQueue<>();
        private final SluiceFilter sluice;

        Timed(SluiceFilter sluice) {
            this.sluice = sluice;
        }

        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
                throws IOException, ServletException {
            if (req.getDispatcherType() == DispatcherType.REQUEST) {
                arrivals.add(Clock.system().nanos());
            }
            sluice.doFilter(req, res, chain);
        }

        @Override
        public void destroy() {
            sluice.destroy();
        }
    }

    private static List<HttpResponse<String>> sendTogether(RunningServer server, String path, int n)
            throws Exception {
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sent.add(Http.CLIENT.sendAsync(Http.request(server.uri(path)), HttpResponse.BodyHandlers.ofString()));
        }
        List<HttpResponse<String>> out = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : sent) {
            out.add(f.get(20, TimeUnit.SECONDS));
        }
        return out;
    }
}
