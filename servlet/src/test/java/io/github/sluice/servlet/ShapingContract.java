package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.RawHttp;
import io.github.sluice.testing.ReleaseLedger;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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

    @Test
    void shaped_async_clientGoneDuringItsDelay_givesBackItsPlaceOnlyIfItNeverRan_andReleasesOnce() throws Exception {
        assertAbandonedDuringDelay(Shaping.ASYNC);
    }

    @Test
    void shaped_blocking_clientGoneDuringItsDelay_isServedAtItsSlot_andReleasesOnce() throws Exception {
        assertAbandonedDuringDelay(Shaping.BLOCKING);
    }

    /**
     * A client that goes away while its request waits out its delay. Two a second (a slot every
     * 500 ms, long enough to be seen waiting on a loaded machine) on the frozen clock, so every delay is exact, with a concurrency permit that shows
     * when a request is waiting and when it ended: the first request goes at once; the second is
     * given the slot at 500 ms, and its client resets the connection during the wait; once that
     * request has ended, a third is decided, and its delay tells whether the second's place came
     * back (500 ms) or was used (1,000 ms): back exactly when the second never reached the
     * application. Either way its permit comes back once (the ledger, here and after the test).
     */
    private void assertAbandonedDuringDelay(Shaping mode) throws Exception {
        Queue<Long> delays = new ConcurrentLinkedQueue<>();
        ReleaseLedger ledger = ReleaseLedger.over(ShardedRegistry.builder().clock(clock).build());
        Enforcer enforcer = enforcer(Enforcer.builder().policy(Policy.builder("paced")
                .algorithm(ShapingLeakyBucket.builder().rate(Rate.perSecond(2)).slack(0)
                        .maxDelay(Duration.ofSeconds(10)).build())
                .key(KeyResolvers.global()).build())
                .policy(Policy.builder("held").algorithm(Concurrency.of(10)).key(KeyResolvers.global()).build()),
                ledger, new EnforcementListener() {
                    @Override
                    public void shaped(Policy policy, String key, MutableDecision decision) {
                        delays.add(TimeUnit.NANOSECONDS.toMillis(decision.delayNanos()));
                    }
                });
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer, mode), app));
        assertEquals(200, Http.get(server.uri("/api/dispatch-type")).statusCode());

        try (Socket gone = RawHttp.open(server.base(), "GET", "/api/dispatch-type")) {
            ledger.awaitHeld("held", "global", 1, Duration.ofSeconds(10));
            awaitSize(delays, 1);
            assertEquals(List.of(500L), List.copyOf(delays));
            gone.setSoLinger(true, 0);
        }
        ledger.awaitHeld("held", "global", 0, Duration.ofSeconds(10));
        int served = app.entries.size();

        try (Socket next = RawHttp.open(server.base(), "GET", "/api/dispatch-type")) {
            ledger.awaitHeld("held", "global", 1, Duration.ofSeconds(10));
            awaitSize(delays, 2);
            // Given back if and only if it never ran: the container noticed the client gone and
            // ended the suspended request (async), so that the timer found it ended; else it ran at
            // its slot (Jetty 12 and Tomcat 10.1 do not notice a client gone from a suspended
            // request, a blocked thread cannot), and its slot is spent like any served request's.
            boolean ran = served == 2;
            assertTrue(ran || mode == Shaping.ASYNC, "a thread waiting out the delay cannot notice the client gone, "
                    + "yet the request never reached the application");
            assertEquals(List.of(500L, ran ? 1000L : 500L), List.copyOf(delays), (ran ? "served" : "ended unserved")
                    + ", so its place is " + (ran ? "spent" : "given back") + ": " + delays);
            next.setSoLinger(true, 0);
        }
        ledger.awaitHeld("held", "global", 0, Duration.ofSeconds(10));
        ledger.awaitBalanced(Duration.ofSeconds(10));
    }

    /** Waits until the listener has seen {@code n} decisions: it is told after the store counted them. */
    private static void awaitSize(Queue<Long> seen, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (seen.size() < n && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertEquals(n, seen.size(), seen.toString());
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
