package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.GuavaBurstyModel;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SmoothBurstyTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;
    private static final long START = 1_767_225_600_000_000_000L;
    /** Every wait must be within this of Guava's exact double arithmetic, and never below it. */
    private static final double MICROSECOND = 1_000;
    /** Doubles at these magnitudes are exact to far below a nanosecond. */
    private static final double EPSILON = 1e-3;

    @Test
    void acquire_freshKey_admitsTheFirstRequestWhateverItsWeight_andChargesTheNext() {
        // Given 5 per second: a fresh key stores nothing
        SmoothBursty bursty = SmoothBursty.of(Rate.perSecond(5));
        Cell cell = bursty.newCell(START);
        MutableDecision out = new MutableDecision();

        // When a request of 10 permits comes first
        assertEquals(Algorithm.ADMITTED, bursty.acquire(cell, START, 10, out));

        // Then it went through, and the next one is refused for the 2 s the 10 permits cost
        assertEquals(Algorithm.DENIED, bursty.acquire(cell, START + S, 1, out));
        assertEquals(S, out.retryAfterNanos());
        assertEquals(0, out.remaining());
        assertEquals(Algorithm.ADMITTED, bursty.acquire(cell, START + 2 * S, 1, out));
    }

    @Test
    void acquire_denial_writesNothing() {
        SmoothBursty bursty = SmoothBursty.of(Rate.perSecond(5));
        Cell cell = bursty.newCell(START);
        bursty.acquire(cell, START, 1, null);
        long word = cell.word();
        MutableDecision out = new MutableDecision();
        assertEquals(Algorithm.DENIED, bursty.acquire(cell, START + 100 * MS, 1, out));
        assertEquals(100 * MS, out.retryAfterNanos());
        assertEquals(word, cell.word());
    }

    @Test
    void acquire_afterIdleness_spendsAtMostMaxBurstOfStoredPermitsAtOnce() {
        // Given 10 per second storing at most 2 s (20 permits), idle for a minute
        SmoothBursty bursty = SmoothBursty.builder().rate(Rate.perSecond(10)).maxBurst(Duration.ofSeconds(2)).build();
        Cell cell = bursty.newCell(START);
        long now = START + 60 * S;
        assertEquals(20.0, bursty.storedPermits(cell, now), 1e-9);

        // When single permits are requested at one instant
        int admitted = 0;
        while (bursty.acquire(cell, now, 1, null) == Algorithm.ADMITTED) {
            admitted++;
        }

        // Then the 20 stored ones go, plus the one that pays for itself later (Guava's rule)
        assertEquals(21, admitted);
        assertEquals(0.0, bursty.storedPermits(cell, now), 0.0);
    }

    @Test
    void acquire_maxBurstZero_storesNothing() {
        SmoothBursty bursty = SmoothBursty.builder().rate(Rate.perSecond(10)).maxBurst(Duration.ZERO).build();
        Cell cell = bursty.newCell(START);
        long now = START + 60 * S;
        assertEquals(Algorithm.ADMITTED, bursty.acquire(cell, now, 1, null));
        assertEquals(Algorithm.DENIED, bursty.acquire(cell, now, 1, null));
    }

    @Test
    void reserve_futureTicket_isShapedWithGuavasWaitMeasuredBeforeItsOwnCharge() {
        SmoothBursty bursty = SmoothBursty.of(Rate.perSecond(5));
        Cell cell = bursty.newCell(START);
        MutableDecision out = new MutableDecision();
        assertEquals(Algorithm.ADMITTED, bursty.reserve(cell, START, 3, Long.MAX_VALUE, out));
        assertEquals(Outcome.ALLOWED, out.outcome());
        assertEquals(Algorithm.ADMITTED, bursty.reserve(cell, START, 1, Long.MAX_VALUE, out));
        assertEquals(Outcome.SHAPED, out.outcome());
        assertEquals(600 * MS, out.delayNanos());
        // A reservation that does not fit its timeout takes nothing.
        long word = cell.word();
        assertEquals(Algorithm.DENIED, bursty.reserve(cell, START, 1, 799 * MS, out));
        assertEquals(word, cell.word());
        assertEquals(MS, out.retryAfterNanos());
        assertEquals(Algorithm.ADMITTED, bursty.reserve(cell, START, 1, 800 * MS, out));
        assertEquals(800 * MS, out.delayNanos());
    }

    @Test
    void reserve_randomOperations_matchGuavaExactlyWhenTheIntervalIsWholeNanoseconds() {
        // 5/s, 100/s, 1000/1m...: Guava's double interval is a whole number of nanoseconds
        long[][] rates = {{5, S}, {100, S}, {1_000, 60 * S}, {8, 1 * S}, {250, 10 * S}};
        for (int seed = 0; seed < 200; seed++) {
            long[] r = rates[seed % rates.length];
            runAgainstGuava(seed, r[0], r[1], EPSILON, 2_000);
        }
    }

    @Test
    void reserve_randomRates_neverShorterThanGuava_andWithinAMicrosecond() {
        // Any rate: the interval is rounded up to the nanosecond, less than 1 ns per permit over
        // a chain of requests; 300 operations of up to 3 permits stay within a microsecond.
        SplittableRandom random = new SplittableRandom(14);
        for (int seed = 0; seed < 400; seed++) {
            long permits = 1 + random.nextLong(1_000);
            long period = permits * (1 + random.nextLong(1_000)) + random.nextLong(permits);
            runAgainstGuava(1_000 + seed, permits, Math.max(period, permits), MICROSECOND, 300);
        }
    }

    /**
     * Random acquires (any wait), tryAcquires with random timeouts and idle periods, one key,
     * against Guava's SmoothBursty in exact double arithmetic.
     */
    private static void runAgainstGuava(long seed, long permits, long period, double tolerance, int operations) {
        SplittableRandom random = new SplittableRandom(seed);
        long maxBurst = random.nextInt(4) == 0 ? 0 : random.nextLong(3 * S);
        SmoothBursty bursty = SmoothBursty.builder().rate(Rate.of(permits, Duration.ofNanos(period)))
                .maxBurst(Duration.ofNanos(maxBurst)).build();
        GuavaBurstyModel guava = new GuavaBurstyModel(permits, period, maxBurst);
        Cell cell = bursty.newCell(START);
        MutableDecision out = new MutableDecision();
        long interval = bursty.intervalNanos();
        long t = 0;
        String config = "seed " + seed + ", " + bursty;
        for (int i = 0; i < operations; i++) {
            switch (random.nextInt(4)) {
                case 0 -> t += 0;
                case 1 -> t += random.nextLong(2 * interval + 1);
                case 2 -> t += random.nextLong(3 * maxBurst + 2 * interval + 1);
                default -> t += random.nextLong(interval / 4 + 1);
            }
            String at = config + ", operation " + i + " at +" + t + " ns";
            double storedGuava = guava.storedPermits(t);
            double storedOwn = bursty.storedPermits(cell, START + t);
            assertTrue(storedOwn <= storedGuava + 1e-9 && (storedGuava - storedOwn) * guava.stableInterval() <= tolerance,
                    at + ": stored " + storedOwn + " vs Guava " + storedGuava);
            long cost = 1 + random.nextLong(3);
            long timeout = switch (random.nextInt(3)) {
                case 0 -> Long.MAX_VALUE;
                case 1 -> 0;
                default -> random.nextLong(3 * interval * cost + 1);
            };
            boolean guavaAdmits = guava.canAcquire(t, timeout);
            int result = bursty.reserve(cell, START + t, cost, timeout, out);
            if (result == Algorithm.ADMITTED && !guavaAdmits) {
                throw new AssertionError(at + ": admitted what Guava refuses (due in " + guava.due(t) + " ns)");
            }
            if (result != Algorithm.ADMITTED) {
                if (guavaAdmits) {
                    // Sluice may only be stricter by its rounding: then the states part, stop here.
                    assertTrue(guava.due(t) - timeout > -tolerance, at + ": refused what Guava admits by "
                            + (timeout - guava.due(t)) + " ns");
                    return;
                }
                assertTrue(out.retryAfterNanos() >= guava.due(t) - timeout - EPSILON, at + ": retry-after "
                        + out.retryAfterNanos() + " before Guava's " + (guava.due(t) - timeout));
                continue;
            }
            double expected = guava.reserve(t, cost);
            long actual = out.outcome() == Outcome.SHAPED ? out.delayNanos() : 0;
            assertTrue(actual >= expected - EPSILON && actual <= expected + tolerance,
                    at + ": waited " + actual + " ns, Guava " + expected);
        }
    }

    @Test
    void refund_onAFrozenClock_restoresTheStateTheAdmissionFound() {
        SmoothBursty bursty = SmoothBursty.of(Rate.perSecond(5));
        FakeClock clock = new FakeClock(START);
        Cell cell = bursty.newCell(START);
        clock.advance(Duration.ofMillis(500));
        MutableDecision out = new MutableDecision();
        bursty.acquire(cell, clock.nanos(), 1, out);
        long before = cell.word();
        bursty.reserve(cell, clock.nanos(), 4, Long.MAX_VALUE, out);
        bursty.refund(cell, 4, out.receipt(), clock);
        assertEquals(before, cell.word());
        // Never twice, never above fresh: a second refund of the same admission finds nothing of it.
        bursty.refund(cell, 4, out.receipt(), clock);
        assertTrue(cell.word() >= clock.nanos() - bursty.maxBurstNanos());
    }

    @Test
    void isFresh_onceAFullBurstIsStored_andARecreatedKeyIsNeverMorePermissive() {
        SmoothBursty bursty = SmoothBursty.of(Rate.perSecond(5));
        Cell cell = bursty.newCell(START);
        bursty.acquire(cell, START, 1, null);
        assertFalse(bursty.isFresh(cell, START + 1_100 * MS));
        assertTrue(bursty.isFresh(cell, START + 1_200 * MS));
        Cell recreated = bursty.newCell(START + 1_200 * MS);
        assertTrue(bursty.storedPermits(recreated, START + 1_200 * MS)
                <= bursty.storedPermits(cell, START + 1_200 * MS));
        assertTrue(bursty.retireIfFresh(cell, START + 1_200 * MS));
        assertEquals(Algorithm.RETIRED, bursty.acquire(cell, START + 1_200 * MS, 1, null));
    }

    @Test
    void acquire_hugeCost_isRefusedForever() {
        SmoothBursty bursty = SmoothBursty.of(Rate.perSecond(5));
        Cell cell = bursty.newCell(START);
        MutableDecision out = new MutableDecision();
        assertEquals(Algorithm.DENIED, bursty.acquire(cell, START, Long.MAX_VALUE / 2, out));
        assertEquals(Decision.NEVER, out.retryAfterNanos());
    }

    @Test
    void acquire_manyThreadsOnAFrozenClock_admitExactlyGuavasCount() throws Exception {
        // Given a key idle long enough to store its 1 s burst of 100 permits, and a frozen clock
        SmoothBursty bursty = SmoothBursty.of(Rate.perSecond(100));
        Cell cell = bursty.newCell(START);
        long now = START + 10 * S;
        // When 8 threads released together try 1000 single permits each
        int admitted = MoreAlgorithmsHarness.hammer(MoreAlgorithmsHarness.THREADS, 1_000,
                (t, i) -> bursty.acquire(cell, now, 1, null) == Algorithm.ADMITTED ? Boolean.TRUE : null).size();
        // Then exactly the stored 100 plus the one that pays for itself go through
        assertEquals(101, admitted);
    }

    @Test
    void builder_badValues_failWithTheParameterAndTheValue() {
        assertEquals("maxBurst must be >= 0 but was -1s", assertThrows(IllegalArgumentException.class,
                () -> SmoothBursty.builder().maxBurst(Duration.ofSeconds(-1))).getMessage());
        assertEquals("rate must be set", assertThrows(IllegalStateException.class,
                () -> SmoothBursty.builder().build()).getMessage());
        assertEquals(SmoothBursty.of(Rate.perSecond(5)),
                SmoothBursty.builder().rate(Rate.perSecond(5)).maxBurst(Duration.ofSeconds(1)).build());
        assertEquals(5.0, SmoothBursty.of(Rate.perSecond(5)).maxPermits(), 0.0);
    }

    @Test
    void registry_peekOnANewKey_doesNotStartItsStoredPermits() {
        // Given a key that was only peeked at (another policy refused its request), then idle
        FakeClock clock = new FakeClock(1_000_000_000L);
        io.github.sluice.store.KeySpace space = io.github.sluice.store.ShardedRegistry.builder().clock(clock)
                .build().keySpace("bursty", SmoothBursty.of(Rate.perSecond(5)));
        MutableDecision out = new MutableDecision();
        assertTrue(space.acquire("k", 0, out));
        clock.advance(Duration.ofSeconds(1));

        // Then its first admission finds nothing stored, as in Redis, where a peek writes nothing:
        // the first is free and the next waits for it
        assertTrue(space.acquire("k", 1, out));
        assertFalse(space.acquire("k", 1, out));
        assertEquals(200_000_000L, out.retryAfterNanos());
    }
}
