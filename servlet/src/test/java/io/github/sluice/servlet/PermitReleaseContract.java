package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.http.Enforcer;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import java.net.Socket;
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
 * A concurrency permit is released exactly once however a request ends: normally, by an
 * exception, after async completion, error or timeout, after a second async cycle, or when the
 * client goes away. Asserted through the store (a peek of the key), never through logs.
 */
abstract class PermitReleaseContract extends ContainerContract {

    private static final String POLICY = "inflight";
    private static final String KEY = KeyResolvers.GLOBAL;
    private static final Duration SETTLE = Duration.ofSeconds(10);

    PermitReleaseContract(Container container) {
        super(container);
    }

    /** A global limit of {@code limit} requests in flight, denied with 503. */
    Enforcer inflight(long limit) {
        return enforcer(Enforcer.builder().policy(Policy.builder(POLICY)
                .algorithm(Concurrency.builder().maxInFlight(limit).build())
                .key(KeyResolvers.global())
                .status(503)
                .build()));
    }

    @Test
    void blockedRequest_holdsItsPermit_untilTheApplicationReturns() throws Exception {
        // Given a request parked in the application
        Enforcer enforcer = inflight(4);
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app));
        Future<?> pending = Http.CLIENT.sendAsync(Http.request(server.uri("/api/block")),
                HttpResponse.BodyHandlers.discarding());
        assertTrue(app.entered.tryAcquire(10, TimeUnit.SECONDS));

        // Then its permit is held while it runs, and given back once when it returns
        assertEquals(1, Permits.held(enforcer, POLICY, KEY));
        app.gate.countDown();
        pending.get(10, TimeUnit.SECONDS);
        Permits.awaitHeld(enforcer, POLICY, KEY, 0, SETTLE);
    }

    @Test
    void exceptionFromTheChain_releases() throws Exception {
        Enforcer enforcer = inflight(4);
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app));

        assertEquals(500, Http.get(server.uri("/api/throw")).statusCode());

        Permits.awaitHeld(enforcer, POLICY, KEY, 0, SETTLE);
    }

    @Test
    void asyncRequest_releasesOnCompletion_orTimeout_orInlineCompletion() throws Exception {
        Enforcer enforcer = inflight(4);
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app));

        assertEquals("async", Http.get(server.uri("/api/async")).body());
        assertEquals("inline", Http.get(server.uri("/api/async-inline")).body());
        assertEquals(500, Http.get(server.uri("/api/async-timeout")).statusCode());

        Permits.awaitHeld(enforcer, POLICY, KEY, 0, SETTLE);
    }

    @Test
    void secondAsyncCycle_keepsThePermit_untilItCompletes() throws Exception {
        // Given a request that went async, was dispatched, and went async again
        Enforcer enforcer = inflight(4);
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app));
        Future<HttpResponse<String>> pending = Http.CLIENT.sendAsync(
                Http.request(server.uri("/api/restart")), HttpResponse.BodyHandlers.ofString());
        assertTrue(app.parkedReady.await(10, TimeUnit.SECONDS), "the second async cycle never started");

        // Then the first cycle's end did not release the permit: the second cycle still holds it
        assertEquals(1, Permits.held(enforcer, POLICY, KEY));

        // When the second cycle completes, then the permit is back
        app.parked.get().complete();
        assertEquals(200, pending.get(10, TimeUnit.SECONDS).statusCode());
        Permits.awaitHeld(enforcer, POLICY, KEY, 0, SETTLE);
    }

    @Test
    void clientAbort_duringASynchronousRequest_releases() throws Exception {
        // Given a client that sends a request and resets the connection while the application works
        Enforcer enforcer = inflight(4);
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app));
        Socket socket = Http.send(server.uri("/api/block"));
        assertTrue(app.entered.tryAcquire(10, TimeUnit.SECONDS));
        assertEquals(1, Permits.held(enforcer, POLICY, KEY));
        socket.close();

        // When the application goes on writing to the vanished client
        app.gate.countDown();

        // Then the permit comes back
        Permits.awaitHeld(enforcer, POLICY, KEY, 0, SETTLE);
    }

    @Test
    void clientAbort_duringAnAsyncRequest_releases() throws Exception {
        Enforcer enforcer = inflight(4);
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app));
        Socket socket = Http.send(server.uri("/api/async-block"));
        assertTrue(app.entered.tryAcquire(10, TimeUnit.SECONDS));
        assertEquals(1, Permits.held(enforcer, POLICY, KEY)); // held by the async request, not by the dispatch
        socket.close();

        Permits.awaitHeld(enforcer, POLICY, KEY, 0, SETTLE);
    }

    @Test
    void shapedRequests_holdTheirPermitWhileWaiting_andReleaseAfterTheResumedDispatch() throws Exception {
        // Given a concurrency limit and a shaper (20 per second, no slack) on the same requests
        Enforcer enforcer = enforcer(Enforcer.builder()
                .policy(Policy.builder(POLICY).algorithm(Concurrency.builder().maxInFlight(8).build())
                        .key(KeyResolvers.global()).status(503).build())
                .policy(Policy.builder("paced").algorithm(ShapingLeakyBucket.builder()
                        .rate(Rate.perSecond(20)).slack(0).maxDelay(Duration.ofSeconds(1)).build())
                        .key(KeyResolvers.global()).build()));
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app));

        // When four arrive together: three are suspended, then resumed by the scheduler
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sent.add(Http.CLIENT.sendAsync(Http.request(server.uri("/api/dispatch-type")),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<String> dispatches = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : sent) {
            dispatches.add(f.get(20, TimeUnit.SECONDS).body());
        }

        // Then they all ran (three resumed in an ASYNC dispatch) and every permit came back
        assertEquals(3, dispatches.stream().filter("ASYNC"::equals).count(), dispatches.toString());
        Permits.awaitHeld(enforcer, POLICY, KEY, 0, SETTLE);
    }

    @Test
    void twoThousandMixedRequests_leaveNoPermitHeld() throws Exception {
        // Given 16 permits, and 24 clients sending 2,000 requests of every kind, some aborted
        Enforcer enforcer = inflight(16);
        app.gate.countDown(); // "block" requests run straight on to their large write
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), app));

        // When they all run
        Map<String, AtomicInteger> outcomes = MixedLoad.send(server, app, 2000, "ok", "ok", "ok", "throw", "async",
                "async", "async-inline", "async-timeout", "abort", "abort-async");

        // Then every permit came back, every client got an answer, and admissions and denials happened
        Permits.awaitHeld(enforcer, POLICY, KEY, 0, SETTLE);
        assertTrue(outcomes.keySet().stream().allMatch(k -> k.matches("[a-z-]+ (\\d{3}|aborted)")), outcomes.toString());
        assertTrue(outcomes.containsKey("ok 200"), outcomes.toString());
        assertTrue(outcomes.containsKey("async 200"), outcomes.toString());
        assertTrue(outcomes.containsKey("throw 500"), outcomes.toString());
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.endsWith(" 503")), outcomes.toString());
    }
}
