package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.SlidingWindow.SlotCell;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The sliding window caches the total of its past slots beside the head; a refund to a past slot
 * lowers a ring entry, and a decision that summed the ring just before it could publish a total
 * that still counts the refunded permits. The attack: on a frozen clock, threads released
 * together refund past slots' admissions while others decide in the head's slot (and so re-sum
 * and re-publish the total each time a refund invalidated it). Once every refund has returned,
 * the window must give back exactly what was refunded: the remaining permits are admitted at
 * once, and not one more.
 */
class SlidingWindowPastTotalRaceTest {

    private static final long S = 1_000_000_000L;
    private static final long T0 = 1_767_225_600_000_000_000L;
    private static final int ROUNDS = 300;
    private static final int REFUNDERS = 2;
    private static final int DECIDERS = 2;
    private static final int PAST_SLOTS = 9;
    private static final int PER_SLOT = 40;
    private static final int REFUNDS_PER_SLOT = 10;
    private static final long LIMIT = 1_000;

    @Test
    void refundsRacingThePastTotal_areNeverLost_andNeverGiveMore() throws Exception {
        SlidingWindow sw = SlidingWindow.builder().limit(LIMIT).window(Duration.ofSeconds(10))
                .slots(10).build();
        ExecutorService pool = Executors.newFixedThreadPool(REFUNDERS + DECIDERS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                race(sw, pool, round);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void race(SlidingWindow sw, ExecutorService pool, int round) throws Exception {
        SlotCell cell = sw.newCell(T0);
        // Given 40 admissions in each of the slots 0..8, then the head in slot 9 (which caches
        // the total of slots 0..8)
        MutableDecision out = new MutableDecision();
        long[] receipts = new long[PAST_SLOTS];
        for (int slot = 0; slot < PAST_SLOTS; slot++) {
            for (int i = 0; i < PER_SLOT; i++) {
                assertEquals(Algorithm.ADMITTED, sw.acquire(cell, T0 + slot * S, 1, out));
            }
            receipts[slot] = out.receipt();
        }
        long now = T0 + PAST_SLOTS * S + S / 2;
        assertEquals(Algorithm.ADMITTED, sw.acquire(cell, now, 1, out));
        AtomicLong admitted = new AtomicLong(PAST_SLOTS * PER_SLOT + 1);
        AtomicLong refunded = new AtomicLong();
        AtomicBoolean refunding = new AtomicBoolean(true);
        AtomicLong refundersLeft = new AtomicLong(REFUNDERS);
        CyclicBarrier start = new CyclicBarrier(REFUNDERS + DECIDERS);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < REFUNDERS; t++) {
            int me = t;
            done.add(pool.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                // When each refunder gives back 10 permits to each past slot, one at a time
                for (int k = 0; k < REFUNDS_PER_SLOT; k++) {
                    for (int slot = (me + round) % PAST_SLOTS, n = 0; n < PAST_SLOTS;
                            n++, slot = (slot + 1) % PAST_SLOTS) {
                        sw.refund(cell, 1, receipts[slot], () -> now);
                        refunded.incrementAndGet();
                    }
                }
                if (refundersLeft.decrementAndGet() == 0) {
                    refunding.set(false);
                }
                return null;
            }));
        }
        for (int t = 0; t < DECIDERS; t++) {
            int me = t;
            done.add(pool.submit(() -> {
                MutableDecision mine = new MutableDecision();
                start.await(10, TimeUnit.SECONDS);
                // while the others decide in the head's slot: peeks, and a few admissions
                int i = 0;
                while (refunding.get() || i < 8) {
                    long cost = i < 48 && (i + me) % 4 == 0 ? 1 : 0;
                    i++;
                    if (sw.acquire(cell, now, cost, mine) == Algorithm.ADMITTED && cost > 0) {
                        admitted.incrementAndGet();
                    }
                    Thread.onSpinWait();
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(30, TimeUnit.SECONDS);
        }
        // Then exactly limit - (admitted - refunded) remain: all of them at once, and no more
        long remaining = LIMIT - admitted.get() + refunded.get();
        assertTrue(remaining > 0 && remaining < LIMIT, "round " + round + ": " + remaining);
        assertEquals(Algorithm.ADMITTED, sw.acquire(cell, now, remaining, out),
                "round " + round + ": a refund was lost to a stale past total; " + remaining
                        + " should remain, the window reports " + peek(sw, cell, now));
        assertEquals(Algorithm.DENIED, sw.acquire(cell, now, 1, null),
                "round " + round + ": the window gave back more than was refunded");
    }

    private static long peek(SlidingWindow sw, SlotCell cell, long now) {
        MutableDecision d = new MutableDecision();
        sw.acquire(cell, now, 0, d);
        return d.remaining();
    }
}
