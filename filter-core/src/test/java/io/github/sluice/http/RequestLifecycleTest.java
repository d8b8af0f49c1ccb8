package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The one lifecycle every adapter maps its events onto ({@link Verdict}): each request ends
 * exactly once whichever of its endings race (a completion with a status, a failure, a timeout, an
 * abort), counted at the store by the {@link io.github.sluice.testing.ReleaseLedger}; and a shaped
 * request that ends while it waits out its delay never ran, so it gives its place back by receipt.
 */
class RequestLifecycleTest {

    private static final int THREADS = 8;
    private static final int ROUNDS = 300;

    private final EnforcerFixture f = new EnforcerFixture();

    /** A pace of 10 a second without slack, and 2 concurrent requests, on one key. */
    private Enforcer shapedAndHeld() {
        Enforcer e = f.ledgered("pace = shaping 10/1s slack=0 key=global", "slots = concurrency 2 key=global").build();
        e.enforce(FakeRequest.get("/")).release(); // the pace's first request, not shaped
        return e;
    }

    @Test
    void endingDuringTheDelay_givesThePlaceBackByReceipt() {
        Enforcer e = shapedAndHeld();
        Verdict waiting = e.enforce(FakeRequest.get("/"));
        assertTrue(waiting.shaped());
        long delay = waiting.delayNanos();

        // When the client goes away while the request waits out its delay
        waiting.beginDelay();
        assertFalse(waiting.released(), "a waiting request holds its place");
        waiting.releaseAborted();

        // Then it may not proceed, its concurrency permit is back, and the next request takes its place
        assertFalse(waiting.endDelay());
        assertTrue(waiting.released());
        f.ledger.assertBalanced();
        assertEquals(1, e.metrics().policy("pace").refunds(), "the place given back is counted as a refund");
        assertEquals(0, e.metrics().policy("slots").refunds(), "a concurrency permit is released, not refunded");
        Verdict next = e.enforce(FakeRequest.get("/"));
        assertEquals(delay, next.delayNanos(), "the slot in the schedule was given back");
        next.release();
    }

    @Test
    void endingAfterTheDelay_isAnOrdinaryEnding_thePlaceIsKept() {
        Enforcer e = shapedAndHeld();
        Verdict ran = e.enforce(FakeRequest.get("/"));
        long delay = ran.delayNanos();

        ran.beginDelay();
        assertTrue(ran.endDelay(), "the delay is over: the request proceeds");
        ran.release(200);

        f.ledger.assertBalanced();
        Verdict next = e.enforce(FakeRequest.get("/"));
        assertTrue(next.delayNanos() > delay, "the request ran: its slot stays taken");
        next.release();
    }

    @Test
    void beginDelay_unshapedVerdict_doesNothing() {
        Enforcer e = f.ledgered("slots = concurrency 2 key=global").build();
        Verdict v = e.enforce(FakeRequest.get("/"));

        v.beginDelay();
        v.releaseAborted();

        assertTrue(v.released());
        assertEquals(1, f.ledger.released("slots", "global"), "released as an ordinary ending");
        f.ledger.assertBalanced();
    }

    @Test
    void mixedEndingsRacing_endEachRequestExactlyOnce() throws Exception {
        // Given requests that hold a permit each, ended at the same moment by every kind of ending
        Enforcer e = f.ledgered("slots = concurrency 1000 key=global").build();
        for (int round = 0; round < ROUNDS; round++) {
            Verdict v = e.enforce(FakeRequest.get("/"));
            long before = f.ledger.released("slots", "global");

            race(i -> {
                switch (i % 4) {
                    case 0 -> v.release(200 + i);
                    case 1 -> v.releaseFailed();
                    case 2 -> v.releaseTimedOut();
                    default -> v.releaseAborted();
                }
            });

            // Then the permit came back once
            assertTrue(v.released());
            assertEquals(1, f.ledger.released("slots", "global") - before, "round " + round);
        }
        f.ledger.assertBalanced();
    }

    @Test
    void endingsRacingTheEndOfTheDelay_oneWins_thePlaceIsGivenBackOnlyIfTheRequestNeverRan() throws Exception {
        Enforcer e = f.ledgered("pace = shaping 1000/1s slack=0 key=global", "slots = concurrency 1000 key=global")
                .build();
        int proceeded = 0;
        for (int round = 0; round < ROUNDS; round++) {
            f.clock.advanceNanos(1_000_000_000L);
            e.enforce(FakeRequest.get("/")).release(); // not shaped: the pace's first after a pause
            Verdict v = e.enforce(FakeRequest.get("/"));
            assertTrue(v.shaped(), () -> "setup: " + v);
            long delay = v.delayNanos();
            v.beginDelay();
            AtomicInteger mayProceed = new AtomicInteger();

            // When the timer's end of the delay races every kind of ending
            race(i -> {
                switch (i % 5) {
                    case 0 -> {
                        if (v.endDelay()) {
                            mayProceed.incrementAndGet();
                        }
                    }
                    case 1 -> v.release(200);
                    case 2 -> v.releaseFailed();
                    case 3 -> v.releaseTimedOut();
                    default -> v.releaseAborted();
                }
            });

            // Then the permit came back once, and the schedule kept the slot exactly when the request ran
            assertTrue(v.released());
            f.ledger.assertBalanced();
            Verdict next = e.enforce(FakeRequest.get("/"));
            if (mayProceed.get() > 0) {
                proceeded++;
                assertTrue(next.delayNanos() > delay, "round " + round + ": ran, yet its slot went back");
            } else {
                assertEquals(delay, next.delayNanos(), "round " + round + ": never ran, yet its slot stayed taken");
            }
            next.release();
        }
        System.out.println(proceeded + " of " + ROUNDS + " delayed requests proceeded before an ending");
    }

    /** Runs {@code ending} on {@value #THREADS} threads released together, each with its index. */
    private static void race(java.util.function.IntConsumer ending) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                ending.accept(index);
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
    }
}
