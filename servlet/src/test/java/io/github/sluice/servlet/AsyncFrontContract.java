package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.http.Enforcer;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Match;
import io.github.sluice.policy.Policy;
import jakarta.servlet.Filter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Sluice behind a filter that changed the request's async state first: one that put the request
 * in async mode and runs the chain in the same dispatch ({@link FrontFilters.StartsAsync}), and
 * one that moved it to an ASYNC dispatch ({@link FrontFilters.Dispatches}). Every path after a
 * permit is taken (admitted, shaped either way, denied, thrown, aborted) gives it back, read from
 * the store; and a request Sluice first sees in an ASYNC dispatch is decided there, once.
 */
abstract class AsyncFrontContract extends ContainerContract {

    private static final String INFLIGHT = "inflight";
    private static final String KEY = KeyResolvers.GLOBAL;
    private static final Duration SETTLE = Duration.ofSeconds(10);

    AsyncFrontContract(Container container) {
        super(container);
    }

    private static Policy inflight(long limit) {
        return Policy.builder(INFLIGHT).algorithm(Concurrency.builder().maxInFlight(limit).build())
                .key(KeyResolvers.global()).status(503).build();
    }

    /** 20 per second, no slack: the k-th of requests sent together waits k x 50 ms (frozen clock). */
    private static Policy paced(String match) {
        return Policy.builder("paced").algorithm(ShapingLeakyBucket.builder().rate(Rate.perSecond(20))
                        .slack(0).maxDelay(Duration.ofSeconds(1)).build())
                .key(KeyResolvers.global()).match(Match.parse(match)).build();
    }

    private Enforcer inflightAndPaced() {
        return enforcer(Enforcer.builder().policy(inflight(8)).policy(paced("/*")));
    }

    @Test
    void startedAsyncInFront_asyncShaping_waitsOnTheThread_andReleases() throws Exception {
        // Given a filter in front that put the request in async mode: Sluice cannot start its own cycle
        Enforcer enforcer = inflightAndPaced();
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app).behind(new FrontFilters.StartsAsync()));

        // When four shaped requests arrive together
        List<String> bodies = sendTogether(server, "/api/dispatch-type", 4);

        // Then all ran in their REQUEST dispatch (the wait held the thread) and every permit came back
        assertEquals(List.of("200 REQUEST", "200 REQUEST", "200 REQUEST", "200 REQUEST"), bodies);
        Permits.awaitHeld(enforcer, INFLIGHT, KEY, 0, SETTLE);
    }

    @Test
    void startedAsyncInFront_blockingShaping_releases() throws Exception {
        Enforcer enforcer = inflightAndPaced();
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer, Shaping.BLOCKING), app)
                .behind(new FrontFilters.StartsAsync()));

        assertEquals(List.of("200 REQUEST", "200 REQUEST", "200 REQUEST", "200 REQUEST"),
                sendTogether(server, "/api/dispatch-type", 4));
        Permits.awaitHeld(enforcer, INFLIGHT, KEY, 0, SETTLE);
    }

    @Test
    void startedAsyncInFront_admittedAndDenied_holdUntilTheFrontCompletes() throws Exception {
        // Given one permit, held by a request parked in the application
        Enforcer enforcer = enforcer(Enforcer.builder().policy(inflight(1)));
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app).behind(new FrontFilters.StartsAsync()));
        Future<HttpResponse<String>> parked = Http.CLIENT.sendAsync(Http.request(server.uri("/api/block")),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(app.entered.tryAcquire(10, TimeUnit.SECONDS));

        // When another request comes, then it is refused, and the parked one still holds the permit
        assertEquals(503, Http.get(server.uri("/api/ok")).statusCode());
        assertEquals(1, Permits.held(enforcer, INFLIGHT, KEY));

        // When the parked one finishes (its async cycle is completed by the front filter), the permit is back
        app.gate.countDown();
        assertEquals(200, parked.get(10, TimeUnit.SECONDS).statusCode());
        Permits.awaitHeld(enforcer, INFLIGHT, KEY, 0, SETTLE);
        assertEquals(200, Http.get(server.uri("/api/ok")).statusCode());
    }

    @Test
    void dispatchedInFront_isDecidedInTheAsyncDispatch() throws Exception {
        // Given 3 per minute and a filter in front that moves every request to an ASYNC dispatch
        Enforcer enforcer = enforcer(Enforcer.builder().policy(Policy.builder("per-minute")
                .algorithm(FixedWindow.builder().limit(3).window(Duration.ofMinutes(1)).build())
                .key(KeyResolvers.global()).build()));
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app).behind(new FrontFilters.Dispatches()));

        // Then the limit holds: Sluice decides where it first sees the request
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = Http.get(server.uri("/api/dispatch-type"));
            assertEquals("200 ASYNC", r.statusCode() + " " + r.body());
            assertTrue(r.headers().firstValue("RateLimit").isPresent(), r.headers().map().toString());
        }
        assertEquals(429, Http.get(server.uri("/api/dispatch-type")).statusCode());
    }

    @Test
    void dispatchedInFront_parkedRequestHoldsItsPermit_untilItEnds() throws Exception {
        Enforcer enforcer = enforcer(Enforcer.builder().policy(inflight(4)));
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app).behind(new FrontFilters.Dispatches()));
        Future<?> pending = Http.CLIENT.sendAsync(Http.request(server.uri("/api/block")),
                HttpResponse.BodyHandlers.discarding());
        assertTrue(app.entered.tryAcquire(10, TimeUnit.SECONDS));

        assertEquals(1, Permits.held(enforcer, INFLIGHT, KEY));
        app.gate.countDown();
        pending.get(10, TimeUnit.SECONDS);
        Permits.awaitHeld(enforcer, INFLIGHT, KEY, 0, SETTLE);
    }

    @Test
    void dispatchedInFront_shapedRequests_areCountedOnce_andResumedInAnotherAsyncDispatch() throws Exception {
        // Given 4 per minute and a shaper: a request decided again when Sluice resumes it would be refused
        Enforcer enforcer = enforcer(Enforcer.builder().policy(inflight(8)).policy(paced("/*"))
                .policy(Policy.builder("per-minute").algorithm(FixedWindow.builder().limit(4)
                        .window(Duration.ofMinutes(1)).build()).key(KeyResolvers.global()).build()));
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app).behind(new FrontFilters.Dispatches()));

        // When four arrive together, then all four pass, and every permit comes back
        assertEquals(List.of("200 ASYNC", "200 ASYNC", "200 ASYNC", "200 ASYNC"),
                sendTogether(server, "/api/dispatch-type", 4));
        Permits.awaitHeld(enforcer, INFLIGHT, KEY, 0, SETTLE);
        assertEquals(429, Http.get(server.uri("/api/ok")).statusCode(), "the four were counted, once each");
    }

    @Test
    void twoThousandMixedRequests_behindAFilterThatStartedAsync_leaveNoPermitHeld() throws Exception {
        // The application cannot start async itself here (the front filter's cycle is open): every other kind
        Map<String, AtomicInteger> outcomes = mixed(new FrontFilters.StartsAsync(),
                "ok", "ok", "throw", "empty", "flush", "abort", "paced/ok", "paced/ok", "paced/dispatch-type");

        assertTrue(outcomes.containsKey("ok 200"), outcomes.toString());
        assertTrue(outcomes.containsKey("throw 500"), outcomes.toString());
        assertTrue(outcomes.containsKey("paced/ok 200"), outcomes.toString());
        assertTrue(outcomes.containsKey("paced/ok 429"), outcomes.toString());
    }

    @Test
    void twoThousandMixedRequests_behindAFilterThatDispatched_leaveNoPermitHeld() throws Exception {
        Map<String, AtomicInteger> outcomes = mixed(new FrontFilters.Dispatches(),
                "ok", "ok", "throw", "async", "async", "async-inline", "async-timeout", "abort", "abort-async",
                "paced/ok", "paced/dispatch-type");

        assertTrue(outcomes.containsKey("async 200"), outcomes.toString());
        assertTrue(outcomes.containsKey("paced/dispatch-type 200"), outcomes.toString());
    }

    /**
     * 2,000 requests of the given kinds from 24 clients, with 16 permits and a shaper on
     * {@code /api/paced/*} (1,000 per second, at most 50 ms of waiting, on a frozen clock: the first
     * ~50 wait, the rest are refused): every permit comes back, every client gets an answer, and
     * the concurrency limit refused some.
     */
    private Map<String, AtomicInteger> mixed(Filter front, String... kinds) throws Exception {
        Enforcer enforcer = enforcer(Enforcer.builder().policy(inflight(16))
                .policy(Policy.builder("paced").algorithm(ShapingLeakyBucket.builder()
                                .rate(Rate.perSecond(1000)).slack(0).maxDelay(Duration.ofMillis(50)).build())
                        .key(KeyResolvers.global()).match(Match.parse("/api/paced/*")).build()));
        app.gate.countDown(); // "block" requests run straight on to their large write
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app).behind(front));

        Map<String, AtomicInteger> outcomes = MixedLoad.send(server, app, 2000, kinds);

        Permits.awaitHeld(enforcer, INFLIGHT, KEY, 0, SETTLE);
        assertTrue(outcomes.keySet().stream().allMatch(k -> k.matches("[a-z/-]+ (\\d{3}|aborted)")), outcomes.toString());
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.endsWith(" 503")), outcomes.toString());
        return outcomes;
    }

    /** Sends n requests together; returns "status body" of each, sorted. */
    private static List<String> sendTogether(RunningServer server, String path, int n) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sent.add(Http.CLIENT.sendAsync(Http.request(server.uri(path)), HttpResponse.BodyHandlers.ofString()));
        }
        List<String> out = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : sent) {
            HttpResponse<String> r = f.get(20, TimeUnit.SECONDS);
            out.add(r.statusCode() + " " + r.body());
        }
        out.sort(null);
        return out;
    }
}
