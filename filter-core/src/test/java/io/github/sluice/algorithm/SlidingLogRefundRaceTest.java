package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.ReadingInvariants;
import io.github.sluice.testing.ReadingInvariants.Admission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The sliding log's refunds against the admissions around them, stepped deterministically: the
 * two ways a refund used to free a permit that was still in some window of readings (the
 * over-admission behind {@code RefundRaceTest}'s 1-in-60 failure), and a random property over
 * every order of stale readings, admissions and refunds on one thread.
 *
 * <p>The guarantee checked is the documented one: no window {@code (x - window, x]} of decision
 * readings holds more than {@code limit} permits that stayed admitted. It holds if and only if,
 * at every decision, the ring's {@code limit} newest entries are each at least the matching
 * entry of the true log (every permit admitted and not refunded, newest first): a refund may
 * leave the ring stricter than the truth, never looser.
 */
class SlidingLogRefundRaceTest {

    private static final long SECOND = 1_000_000_000L;

    private static SlidingLog log(long limit, long window) {
        return SlidingLog.builder().limit(limit).window(Duration.ofNanos(window)).build();
    }

    /**
     * Attack 1, a stale reading after a refund. The ring keeps the {@code limit} newest permits;
     * an admission at 10 s overwrote the permit of 0 s (out of ITS window), and its refund left
     * the freed slot "never stamped", although the 0 s permit is still in the window of a reading
     * of 9 s taken before and decided after: that reading got a 6th permit into (-1 s, 9 s].
     */
    @Test
    void refundOfTheAdmissionThatOverwroteAPermit_staleReading_isStillRefused() {
        // Given 5 per 10 s, permits kept at 0, 1, 2, 3 and 4 s
        long window = 10 * SECOND;
        SlidingLog algorithm = log(5, window);
        SlidingLogCell cell = algorithm.newCell(0);
        MutableDecision out = new MutableDecision();
        for (int k = 0; k < 5; k++) {
            assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, k * SECOND, 1, out));
        }
        // And an admission at 10 s (it overwrites the 0 s permit, which left its window), refunded
        assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, 10 * SECOND, 1, out));
        algorithm.refund(cell, 1, out.receipt(), () -> 10 * SECOND);

        // When a request whose reading is 9 s decides now
        int stale = algorithm.acquire(cell, 9 * SECOND, 1, out);

        // Then it is refused until the 0 s permit leaves its window, as the whole log decides
        assertEquals(Algorithm.DENIED, stale, "a 6th permit in (-1 s, 9 s]");
        assertEquals(SECOND, out.retryAfterNanos());
        // And a fresh reading gets the refunded permit back at once, exactly as the whole log
        assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, 10 * SECOND, 1, out));
        assertEquals(Algorithm.DENIED, algorithm.acquire(cell, 10 * SECOND, 1, out));
    }

    /** A cell that runs {@code hook} once, right after its {@code at}-th slot compare-and-set. */
    private static final class SteppedCell extends SlidingLogCell {
        private int casSlots;
        private int at;
        private Runnable hook;

        SteppedCell(int limit) {
            super(limit, SlidingLog.NEVER << 1 | 1, SlidingLog.NEVER);
        }

        @Override
        boolean casSlot(int index, long expected, long value) {
            boolean done = super.casSlot(index, expected, value);
            if (++casSlots == at && hook != null) {
                Runnable h = hook;
                hook = null;
                h.run();
            }
            return done;
        }
    }

    /**
     * Attack 2, an admission that checked the ring before a refund rewrote it and claimed after.
     * For every limit up to 5, every refunded permit, every admission cost and every step of the
     * refund at which the admission claims (and writes, or stalls and writes after the refund),
     * the ring must stay at least as full as the true log at every reading. The refund used to
     * move the newer permits one slot down and then the position back: an admission that had
     * read the oldest slot before it was raised, and claimed it before the position moved, wrote
     * over a permit still in the window, and a reading 1 ns later got one permit too many.
     */
    @Test
    void admissionClaimingWhileARefundRewritesTheRing_neverLosesAPermitInTheWindow() {
        long window = 10 * SECOND;
        int cases = 0;
        for (int limit = 1; limit <= 5; limit++) {
            for (int refunded = 0; refunded < limit; refunded++) {
                for (int cost = 1; cost <= limit; cost++) {
                    for (int step = 1; step <= limit + 1; step++) {
                        for (boolean stall : new boolean[] {false, true}) {
                            cases += claimDuringRefund(log(limit, window), window, refunded, cost,
                                    step, stall);
                        }
                    }
                }
            }
        }
        assertTrue(cases > 100, "the admission claimed during too few refunds: " + cases);
    }

    /** @return 1 if the admission claimed while the refund ran, else 0 */
    private static int claimDuringRefund(SlidingLog algorithm, long window, int refunded, int cost,
            int step, boolean stall) {
        int limit = (int) algorithm.limit();
        String where = "limit " + limit + ", refunded #" + refunded + ", cost " + cost + ", after "
                + step + " slot writes, " + (stall ? "stalled" : "written");
        // Given a full log, one permit a second from 0 s, and its exact copy
        SteppedCell cell = new SteppedCell(limit);
        List<Long> truth = new ArrayList<>();
        MutableDecision out = new MutableDecision();
        long[] receipts = new long[limit];
        for (int k = 0; k < limit; k++) {
            assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, k * SECOND, 1, out), where);
            receipts[k] = out.receipt();
            truth.add(out.receipt());
        }
        // And an admission of `cost` at a reading where exactly the `cost` oldest permits have
        // left its window: it reads the word and checks them now, before the refund starts
        long reading = (cost - 1) * SECOND + window;
        long word = cell.word();
        boolean[] claimed = {false};
        long[] claimedWord = {0};
        long stamp = Math.max(reading, cell.latest());
        cell.at = step;
        cell.hook = () -> {
            long w = algorithm.claim(cell, word, cost, stamp);
            if (w != Cell.RETIRED) {
                claimed[0] = true;
                claimedWord[0] = w;
                if (!stall) {
                    algorithm.write(cell, w, cost, stamp);
                }
            }
        };

        // When one permit is refunded, the admission claiming in the middle of it
        algorithm.refund(cell, 1, receipts[refunded], () -> reading);
        if (claimed[0] && stall) {
            algorithm.write(cell, claimedWord[0], cost, stamp);
        }

        // Then the true log lost the refunded permit and gained the admission's (which evicted
        // the oldest permits: out of its window, but in earlier ones and still logged)
        truth.remove(refunded);
        if (claimed[0]) {
            for (int k = 0; k < cost; k++) {
                truth.add(stamp);
            }
        }
        // And at every reading from the first permit on, the ring counts at least as many
        // permits in the window as the true log (an admission there is refused if the true log
        // refuses it)
        for (long at = 0; at <= stamp + window; at += SECOND / 2) {
            long boundary = at - window;
            long inTruth = truth.stream().filter(t -> t > boundary).count();
            algorithm.acquire(cell, at, 0, out);
            long inRing = limit - out.remaining();
            assertTrue(inRing >= Math.min(inTruth, limit), where + ": at " + at + " ns the ring"
                    + " holds " + inRing + " permits in the window, the true log " + inTruth);
        }
        return claimed[0] ? 1 : 0;
    }

    /**
     * The property behind both attacks, on one thread so that every order is reproducible:
     * random readings that go back up to two windows (stale readings), admissions of 1 to 3
     * permits and refunds of random earlier admissions (mostly the latest, as a refusing second
     * policy does). The admissions that stay never put more than the limit into any window of
     * readings.
     */
    @Test
    void staleReadingsAndRefundsInAnyOrder_neverExceedTheLimitInAWindowOfReadings() {
        for (long seed = 0; seed < 200; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int limit = 1 + random.nextInt(6);
            long window = 1_000 + random.nextInt(1_000);
            SlidingLog algorithm = log(limit, window);
            SlidingLogCell cell = algorithm.newCell(0);
            MutableDecision out = new MutableDecision();
            List<Admission> kept = new ArrayList<>();
            long clock = 0;
            for (int i = 0; i < 400; i++) {
                clock += random.nextLong(window / 3);
                if (random.nextInt(3) == 0 && !kept.isEmpty()) {
                    int j = random.nextInt(4) != 0 ? kept.size() - 1 : random.nextInt(kept.size());
                    Admission a = kept.remove(j);
                    long now = clock;
                    algorithm.refund(cell, a.cost(), a.receipt(), () -> now);
                    continue;
                }
                long reading = random.nextInt(3) == 0 ? clock - random.nextLong(2 * window) : clock;
                long cost = 1 + random.nextLong(3);
                if (algorithm.acquire(cell, reading, cost, out) == Algorithm.ADMITTED) {
                    assertNotEquals(MutableDecision.NO_RECEIPT, out.receipt());
                    kept.add(new Admission(reading, cost, out.receipt()));
                }
            }
            try {
                ReadingInvariants.slidingLog(kept, limit, window);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * The same property with real concurrency: 8 threads released together on one key (more
     * than the cores) move a shared clock, read it, and decide on a reading that another thread
     * may have overtaken meanwhile (a quarter of them also go back up to half a window, as a
     * descheduled thread would); three admissions in four are refunded at once, as when a second
     * policy refuses. The verdict depends on no timing: the admissions that stay never put more
     * than the limit into any window of readings.
     */
    @RepeatedTest(20)
    void refundsRacingAdmissionsOnStaleReadings_neverExceedTheLimitInAWindowOfReadings()
            throws Exception {
        long window = 4_000;
        SlidingLog algorithm = log(5, window);
        SlidingLogCell cell = algorithm.newCell(0);
        FakeClock clock = new FakeClock(1_000_000);
        AtomicInteger refunds = new AtomicInteger();
        ThreadLocal<MutableDecision> outs = ThreadLocal.withInitial(MutableDecision::new);
        List<Admission> kept = MoreAlgorithmsHarness.hammer(MoreAlgorithmsHarness.THREADS, 4_000,
                (t, i) -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    MutableDecision out = outs.get();
                    clock.advanceNanos(random.nextLong(window / 20));
                    long reading = clock.nanos();
                    if (random.nextInt(4) == 0) {
                        reading -= random.nextLong(window / 2);
                        Thread.yield();
                    }
                    long cost = 1 + random.nextLong(2);
                    if (algorithm.acquire(cell, reading, cost, out) != Algorithm.ADMITTED) {
                        return null;
                    }
                    if (random.nextInt(4) != 0) {
                        refunds.incrementAndGet();
                        algorithm.refund(cell, cost, out.receipt(), clock);
                        return null;
                    }
                    return new Admission(reading, cost, out.receipt());
                });

        assertTrue(refunds.get() > 100 && kept.size() > 100,
                refunds.get() + " refunds, " + kept.size() + " kept");
        ReadingInvariants.slidingLog(kept, 5, window);
    }
}
