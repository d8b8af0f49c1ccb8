package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Outcome;
import io.github.sluice.testing.FakeRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A verdict's release state shares its word with the outcome: many threads releasing one verdict
 * at once (an async listener, a timeout thread and the container thread, say) give its permits
 * back exactly once, and leave the outcome as it was. Releases are counted at the store
 * ({@link io.github.sluice.testing.ReleaseLedger}), not by listener events: a verdict that told
 * the listener once but released twice must fail here.
 */
class ReleaseRaceTest {

    private static final int THREADS = 8;
    private static final int ROUNDS = 200;

    private final EnforcerFixture f = new EnforcerFixture();

    @Test
    void manyThreadsReleasingAShapedVerdict_giveBackOnce_andKeepTheOutcome() throws Exception {
        // Given a shaped request that holds a concurrency permit: a pace of 10 a second (so every
        // request after the first waits) and 2 concurrent requests
        Enforcer e = f.ledgered("pace = shaping 10/1s slack=0 key=global", "slots = concurrency 2 key=global").build();
        e.enforce(FakeRequest.get("/")).release();

        for (int round = 0; round < ROUNDS; round++) {
            f.clock.advanceNanos(1_000_000_000L);
            e.enforce(FakeRequest.get("/")).release(); // the pace's first request, not shaped
            Verdict v = e.enforce(FakeRequest.get("/"));
            assertTrue(v.shaped(), () -> "setup: " + v);
            long delay = v.delayNanos();
            long releasedBefore = f.ledger.released("slots", "global");

            // When every thread releases it at the same moment
            CountDownLatch ready = new CountDownLatch(THREADS);
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Thread thread = new Thread(() -> {
                    ready.countDown();
                    try {
                        go.await();
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    v.release();
                });
                thread.start();
                threads.add(thread);
            }
            assertTrue(ready.await(30, TimeUnit.SECONDS));
            go.countDown();
            for (Thread thread : threads) {
                thread.join(30_000);
                assertFalse(thread.isAlive());
            }

            // Then the permit came back once, and the verdict still says what it said
            assertTrue(v.released());
            assertEquals(1, f.ledger.released("slots", "global") - releasedBefore, "round " + round);
            f.ledger.assertBalanced();
            assertEquals(Outcome.SHAPED, v.outcome());
            assertEquals(delay, v.delayNanos());
        }
        // And no permit was made up: two requests fit, the third is refused
        f.clock.advanceNanos(1_000_000_000L);
        Verdict a = e.enforce(FakeRequest.get("/"));
        f.clock.advanceNanos(1_000_000_000L);
        Verdict b = e.enforce(FakeRequest.get("/"));
        f.clock.advanceNanos(1_000_000_000L);
        assertTrue(a.admitted() && b.admitted());
        assertTrue(e.enforce(FakeRequest.get("/")).denied());
        a.release();
        b.release();
        f.ledger.assertBalanced();
    }
}
