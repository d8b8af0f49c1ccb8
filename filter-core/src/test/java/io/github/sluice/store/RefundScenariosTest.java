package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import io.github.sluice.limiter.TokenBucketLimiter;
import io.github.sluice.testing.ForwardingKeySpace;
import io.github.sluice.testing.StaleClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The attacks of issue 12 played out deterministically through {@link Store#acquireAll}, one
 * per algorithm family: a first policy (the one under test) admits, a second one (a gate, a
 * concurrency limit of one) refuses, so the first one's permits are refunded. Another request can
 * slip in between the admission and its refund (it runs inside the gate's clock reading), and a
 * thread can decide on a stale clock reading (the clock is set back). After each, the key must
 * admit no more than its algorithm's guarantee allows over the readings its admissions were
 * decided at.
 */
class RefundScenariosTest {

    private static final long S = 1_000_000_000L;
    /** 2026-01-01T00:00:00Z: a whole minute, so a multiple of every window below. */
    private static final long T0 = 1_767_225_600_000_000_000L;

    private final StaleClock clock = new StaleClock(T0);
    private final StaleClock gateClock = new StaleClock(T0);
    private final MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
    private final MutableDecision other = new MutableDecision();
    private ShardedRegistry registry;
    private KeySpace tested;
    private KeySpace gate;

    private void use(Algorithm<?> algorithm) {
        registry = ShardedRegistry.builder().clock(clock).build();
        tested = registry.keySpace("tested", algorithm);
        KeySpace inner = ShardedRegistry.builder().clock(gateClock).build().keySpace("gate", Concurrency.of(1));
        // The request that slips in runs when the gate is asked: after the tested policy's
        // admission, before its refund. (A hook on the gate's acquisition, not on its clock: a
        // concurrency limit decides a kept key without reading the clock.)
        gate = new ForwardingKeySpace(inner) {
            @Override
            public boolean acquire(String key, int partition, long cost, MutableDecision out) {
                Runnable run = meanwhile;
                meanwhile = null;
                if (run != null) {
                    run.run();
                }
                return super.acquire(key, partition, cost, out);
            }
        };
    }

    /** Runs once, at the gate's next acquisition through the chain. */
    private Runnable meanwhile;

    /** @return -1 if both admitted, else the index of the first denial */
    private int acquireAll() {
        boolean admitted = registry.acquireAll(
                Claim.of(tested, "k", 1, out[0], Claim.of(gate, "gate", 1, out[1], null)));
        return admitted ? -1 : out[0].allowed() ? 1 : 0;
    }

    /** A request whose tested policy decides at {@code at}, the gate open: admitted or not. */
    private boolean admitted(long at) {
        clock.set(at);
        int denied = acquireAll();
        if (denied < 0) {
            gate.release("gate", 1);
        }
        return denied < 0;
    }

    /**
     * A request at {@code at} that the tested policy admits and the gate refuses, so that its
     * permit is refunded; {@code meanwhile} runs between the admission and the refund.
     */
    private void refundedAfter(long at, Runnable meanwhile) {
        assertTrue(gate.acquire("gate", 1, other), "the gate closes");
        this.meanwhile = meanwhile;
        clock.set(at);
        assertEquals(1, acquireAll(), "admitted by the tested policy, refused by the gate");
        assertTrue(out[0].allowed());
        gate.release("gate", 1);
    }

    /** Another request on the tested policy alone, at {@code at}. */
    private Runnable another(long at, long cost) {
        return () -> {
            clock.set(at);
            assertTrue(tested.acquire("k", cost, other), "the request that slips in is admitted");
        };
    }

    @Test
    void fixedWindowEpoch_staleReadingAfterRefundsEmptiedTheNextWindow_isRefused() {
        // Given 2 per 10 s: window [0 s, 10 s) is full; then a request in [10 s, 20 s) is refunded,
        // bringing that window's count back to zero
        use(FixedWindow.of(2, Duration.ofSeconds(10)));
        assertTrue(admitted(T0 + S));
        assertTrue(admitted(T0 + S));
        refundedAfter(T0 + 11 * S, () -> { });

        // When a thread that read the clock at 9 s decides only now
        boolean stale = admitted(T0 + 9 * S);

        // Then it is refused: its window is full, and the next window's quota stays whole
        assertFalse(stale, "a stale reading reopened a full window");
        assertTrue(admitted(T0 + 11 * S));
        assertTrue(admitted(T0 + 11 * S));
        assertFalse(admitted(T0 + 12 * S));
    }

    @Test
    void fixedWindowFirstRequest_staleReadingAfterRefundsEmptiedTheNextWindow_isRefused() {
        // Given 2 per 10 s from a key's first request: the window opened at 0 s is full; a window
        // opened at 20 s by a request that was refunded counts nothing
        use(FixedWindow.builder().limit(2).window(Duration.ofSeconds(10))
                .alignment(FixedWindow.Alignment.FIRST_REQUEST).build());
        assertTrue(admitted(T0));
        assertTrue(admitted(T0));
        refundedAfter(T0 + 20 * S, () -> { });

        // When a thread that read the clock at 9 s decides only now
        boolean stale = admitted(T0 + 9 * S);

        // Then it is refused: its reading belongs to the full window
        assertFalse(stale, "a stale reading reopened a window that starts earlier");
    }

    @Test
    void slidingWindow_staleReadingBehindTheHead_isRefused() {
        // Given 2 per 10 s in two slots of 5 s: slot 0 took 2, slot 2 took 1
        use(SlidingWindow.builder().limit(2).window(Duration.ofSeconds(10)).slots(2).build());
        assertTrue(admitted(T0));
        assertTrue(admitted(T0));
        assertTrue(admitted(T0 + 10 * S));

        // When a thread that read the clock in slot 1 decides only now
        boolean stale = admitted(T0 + 7 * S);

        // Then it is refused: the window of slots 0 and 1 already holds 2
        assertFalse(stale, "a stale reading was counted in the head's slot");
    }

    @Test
    void slidingWindow_refundAfterTheHeadMoved_lowersTheSlotItWasCountedIn() {
        // Given 3 per 10 s in two slots of 5 s; a request in slot 0 is refunded after another
        // request moved the head to slot 1
        use(SlidingWindow.builder().limit(3).window(Duration.ofSeconds(10)).slots(2).build());
        refundedAfter(T0, another(T0 + 5 * S, 1));

        // When slot 2 begins (its window: slots 1 and 2, slot 1 holding the request that slipped in)
        // Then only 2 more are admitted: the refund left slot 1's count alone
        assertTrue(admitted(T0 + 10 * S));
        assertTrue(admitted(T0 + 10 * S));
        assertFalse(admitted(T0 + 10 * S), "the refund lowered the wrong slot");
    }

    @Test
    void slidingLog_refundUnlogsItsOwnPermitNotTheNewest() {
        // Given 2 per 10 s; a request at 0 s is refunded after another was logged at 5 s
        use(SlidingLog.builder().limit(2).window(Duration.ofSeconds(10)).build());
        refundedAfter(T0, another(T0 + 5 * S, 1));

        // When the window (0 s, 10 s] is full at 10 s with the permit of 5 s and one more
        // Then a third is refused: the 5 s permit is still logged
        assertTrue(admitted(T0 + 10 * S));
        assertFalse(admitted(T0 + 10 * S), "the refund un-logged the newer permit");
    }

    @Test
    void tokenBucket_refundAfterTheBucketRefilled_givesNothingBack() {
        // Given a burst of 2 refilled every 5 s; a request at 0 s is refunded after the bucket
        // had refilled and another request took the whole burst at 20 s
        use(TokenBucket.of(Rate.of(2, Duration.ofSeconds(10))));
        refundedAfter(T0, another(T0 + 20 * S, 2));

        // When a request comes at 20 s, Then it is refused: 2 already went at that instant
        assertFalse(admitted(T0 + 20 * S), "the late refund refilled a bucket that had refilled");
    }

    @Test
    void gcra_refundAfterTheTatBecameDue_givesNothingBack() {
        // Given 2 at once, one every 5 s; a request at 0 s is refunded after its TAT became due
        // and another request took the whole burst at 20 s
        use(Gcra.of(Rate.of(2, Duration.ofSeconds(10))));
        refundedAfter(T0, another(T0 + 20 * S, 2));

        assertFalse(admitted(T0 + 20 * S), "the late refund moved back a TAT that was not its own");
    }

    @Test
    void leakyBucket_refundAfterItsWaterLeaked_givesNothingBack() {
        // Given a bucket of 2 leaking one every 5 s; a request at 0 s is refunded after its water
        // had leaked and another request filled the bucket at 20 s
        use(LeakyBucket.builder().capacity(2).rate(Rate.of(2, Duration.ofSeconds(10))).build());
        refundedAfter(T0, another(T0 + 20 * S, 2));

        assertFalse(admitted(T0 + 20 * S), "the late refund took out water that was not its own");
    }

    @Test
    void shaping_refundAfterALaterSlotWasIssued_neverSchedulesTwoRequestsInOneSlot() {
        // Given one request per second, no slack, delays up to 10 s; a request at 0 s (slot 0 s)
        // is refunded after another took the next slot (1 s)
        use(ShapingLeakyBucket.builder().rate(Rate.perSecond(1)).slack(0)
                .maxDelay(Duration.ofSeconds(10)).build());
        refundedAfter(T0, another(T0, 1));
        assertEquals(S, other.delayNanos());

        // When a request comes at 0 s, Then it gets the slot after the issued one, not the same
        assertTrue(admitted(T0));
        assertEquals(Outcome.SHAPED, out[0].outcome());
        assertEquals(2 * S, out[0].delayNanos(), "two requests were scheduled in one slot");
    }

    @Test
    void warmUp_refundAfterALaterTicketWasTaken_neverAdmitsFasterThanTheStableRate() {
        // Given one per second once warm, cold at first; a request at 0 s is refunded after the
        // next request took the ticket it left
        WarmUp warmUp = WarmUp.builder().rate(Rate.perSecond(1))
                .warmUp(Duration.ofSeconds(10)).build();
        use(warmUp);
        long[] next = new long[1];
        refundedAfter(T0, () -> {
            long ticket = T0 + out[0].resetNanos();
            next[0] = ticket;
            clock.set(ticket);
            assertTrue(tested.acquire("k", 1, other));
        });

        // When a request comes half a stable interval after the one that slipped in
        // Then it is refused: requests are never closer than the stable interval
        assertFalse(admitted(next[0] + S / 2), "the refund moved back a ticket that was not its own");
    }

    @Test
    void tokenBucketLimiterCancel_afterAStaleAllowMovedTheLastEventBack_restoresNoMoreThanReserved() {
        // Given a burst of 3 refilled every 10 ns; one token reserved at t (acting at once)
        long t = T0;
        StaleClock c = new StaleClock(t);
        TokenBucketLimiter limiter = TokenBucketLimiter.of(
                TokenBucket.builder().rate(Rate.of(1, Duration.ofNanos(10))).burst(3).build(), c);
        var reservation = limiter.reserve(1);
        // and an allow decided on a reading 9 ns older (a descheduled thread), which took a token
        c.set(t - 9);
        assertTrue(limiter.allow(1));
        c.set(t);

        // When the reservation is cancelled
        reservation.cancel();

        // Then one token came back, not more: 1 ns later the bucket holds 2 (3 less the stale
        // allow's, plus 0.1 of refill), never a full 3
        c.set(t + 1);
        assertTrue(limiter.allow(2));
        assertFalse(limiter.allow(1), "the cancellation restored more than it reserved");
    }
}
