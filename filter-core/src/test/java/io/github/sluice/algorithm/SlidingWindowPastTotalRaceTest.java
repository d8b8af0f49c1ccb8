package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The sliding window caches the total of its past slots beside the head; a refund to a past slot
 * lowers a ring entry, and a decision that summed the ring just before it could publish a total
 * that still counts the refunded permits. The attack: on a frozen clock, threads released
 * together refund past slots' admissions while others decide in the head's slot (and so re-sum
 * and re-publish the total each time a refund invalidated it). No decision may count a refund
 * that had returned before the decision started, and once every refund has returned, the window
 * must give back exactly what was refunded: the remaining permits are admitted at once, and not
 * one more.
 */
class SlidingWindowPastTotalRaceTest {

    private static final long S = 1_000_000_000L;
    private static final long T0 = 1_767_225_600_000_000_000L;
    private static final int ROUNDS = 300;
    private static final int REFUNDERS = 2;
    private static final int DECIDERS = 2;
    /** The past slots refunded to: the first nine, whose ring entries a sum reads first. */
    private static final int PAST_SLOTS = 9;
    private static final int PER_SLOT = 40;
    private static final int REFUNDS_PER_SLOT = 10;

    @Test
    void refundsRacingThePastTotal_tenSlots_areNeverLost_andNeverGiveMore() throws Exception {
        races(10, 1_000);
    }

    /**
     * The widest race: with 1024 slots a sum reads 1024 ring entries, so a refund to one of the
     * first entries has the whole rest of the sum to land in before the sum is published.
     */
    @Test
    void refundsRacingThePastTotal_1024Slots_areNeverLost_andNeverGiveMore() throws Exception {
        races(SlidingWindow.MAX_SLOTS, 5_000);
    }

    private static void races(int slots, long limit) throws Exception {
        SlidingWindow sw = SlidingWindow.builder().limit(limit)
                .window(Duration.ofSeconds(slots)).slots(slots).build();
        ExecutorService pool = Executors.newFixedThreadPool(REFUNDERS + DECIDERS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                race(sw, pool, round, slots, limit);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void race(SlidingWindow sw, ExecutorService pool, int round, int slots,
            long limit) throws Exception {
        SlotCell cell = sw.newCell(T0);
        // Given 40 admissions in each of the slots 0..8 and one in each later past slot, then the
        // head in the window's last slot (which caches the total of the slots before it)
        MutableDecision out = new MutableDecision();
        long[] receipts = new long[PAST_SLOTS];
        long taken = 0;
        for (int slot = 0; slot < slots - 1; slot++) {
            for (int i = 0; i < (slot < PAST_SLOTS ? PER_SLOT : 1); i++, taken++) {
                assertEquals(Algorithm.ADMITTED, sw.acquire(cell, T0 + slot * S, 1, out));
            }
            if (slot < PAST_SLOTS) {
                receipts[slot] = out.receipt();
            }
        }
        long now = T0 + (slots - 1) * S + S / 2;
        assertEquals(Algorithm.ADMITTED, sw.acquire(cell, now, 1, out));
        AtomicLong admitted = new AtomicLong(taken + 1);
        AtomicLong refunded = new AtomicLong();
        AtomicReference<String> lost = new AtomicReference<>();
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
                // while the others decide in the head's slot (peeks: each re-sums and republishes
                // the total after an invalidation), every decision counts no refund that had
                // returned before it started
                int i = 0;
                while (refunding.get() || i < 8) {
                    i++;
                    long returned = refunded.get();
                    sw.acquire(cell, now, 0, mine);
                    long used = limit - mine.remaining();
                    if (used > admitted.get() - returned && lost.get() == null) {
                        lost.set("round " + round + ", decider " + me + ": counted " + used
                                + " permits after " + returned + " refunds had returned, at most "
                                + (admitted.get() - returned));
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertNull(lost.get(), "a decision used a past total that still counted a returned refund");
        // Then exactly limit - (admitted - refunded) remain: all of them at once, and no more
        long remaining = limit - admitted.get() + refunded.get();
        assertTrue(remaining > 0 && remaining < limit, "round " + round + ": " + remaining);
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
