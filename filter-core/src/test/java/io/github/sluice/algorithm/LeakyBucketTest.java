package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import io.github.sluice.limiter.Limiter;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LeakyBucketTest {

    private static final long SECOND = 1_000_000_000L;

    private final FakeClock clock = new FakeClock();

    private static LeakyBucket bucket(long capacity, long permits, Duration period) {
        return LeakyBucket.builder().capacity(capacity).rate(Rate.of(permits, period)).build();
    }

    @Test
    void acquire_emptyBucket_admitsUpToCapacityThenDeniesWithRetryAfter() {
        // Given a funnel of 3 units leaking 1 unit per second
        Limiter<?> limiter = Limiter.of(bucket(3, 1, Duration.ofSeconds(1)), clock);

        // When 4 units are poured one at a time at the same instant
        Decision first = limiter.acquire(1);
        limiter.acquire(1);
        Decision third = limiter.acquire(1);
        Decision fourth = limiter.acquire(1);

        // Then 3 fit, and the 4th must wait for one unit to leak out
        assertEquals(new Decision(Outcome.ALLOWED, 3, 2, SECOND, 0, 0), first);
        assertEquals(new Decision(Outcome.ALLOWED, 3, 0, 3 * SECOND, 0, 0), third);
        assertEquals(new Decision(Outcome.DENIED, 3, 0, 3 * SECOND, SECOND, 0), fourth);
    }

    @Test
    void acquire_afterLeaking_freesSpaceAtTheLeakRate() {
        Limiter<?> limiter = Limiter.of(bucket(4, 2, Duration.ofSeconds(1)), clock);
        assertTrue(limiter.tryAcquire(4));

        // Half a second leaks one unit (2 per second); a pour of 2 must wait another half second
        clock.advance(Duration.ofMillis(500));
        Decision two = limiter.acquire(2);
        Decision one = limiter.acquire(1);

        assertEquals(new Decision(Outcome.DENIED, 4, 1, 1_500_000_000L, 500_000_000L, 0), two);
        assertEquals(new Decision(Outcome.ALLOWED, 4, 0, 2 * SECOND, 0, 0), one);
    }

    @Test
    void acquire_costAboveCapacity_isRefusedForeverAndPoursNothing() {
        Limiter<?> limiter = Limiter.of(bucket(3, 1, Duration.ofSeconds(1)), clock);

        Decision d = limiter.acquire(4);

        assertFalse(d.allowed());
        assertFalse(d.retryable());
        assertTrue(limiter.tryAcquire(3), "the refusal must not have poured water");
    }

    @Test
    void acquire_denial_doesNotWriteTheCell() {
        LeakyBucket algorithm = bucket(2, 1, Duration.ofSeconds(1));
        Cell cell = algorithm.newCell(clock.nanos());
        assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, clock.nanos(), 2, null));
        long before = cell.word();

        assertEquals(Algorithm.DENIED, algorithm.acquire(cell, clock.nanos(), 1, new MutableDecision()));

        assertEquals(before, cell.word());
    }

    @Test
    void acquire_costZero_peeksWithoutPouring() {
        Limiter<?> limiter = Limiter.of(bucket(2, 1, Duration.ofSeconds(1)), clock);
        limiter.acquire(1);

        Decision peek = limiter.acquire(0);

        assertEquals(new Decision(Outcome.ALLOWED, 2, 1, SECOND, 0, 0), peek);
        assertEquals(1, limiter.acquire(0).remaining());
    }

    @Test
    void acquire_retiredCell_returnsRetiredWithoutWriting() {
        LeakyBucket algorithm = bucket(2, 1, Duration.ofSeconds(1));
        Cell cell = algorithm.newCell(clock.nanos());
        assertTrue(algorithm.retireIfFresh(cell, clock.nanos()));

        assertEquals(Algorithm.RETIRED, algorithm.acquire(cell, clock.nanos(), 1, null));
        algorithm.refund(cell, 1, clock.nanos(), clock);
        assertTrue(cell.retired());
    }

    @Test
    void refund_atOnce_neverGoesBelowEmpty() {
        Limiter<?> limiter = Limiter.of(bucket(3, 1, Duration.ofSeconds(1)), clock);
        MutableDecision out = new MutableDecision();
        assertTrue(limiter.acquire(2, out));

        limiter.refund(10, out.receipt());

        assertEquals(new Decision(Outcome.ALLOWED, 3, 3, 0, 0, 0), limiter.acquire(0));
    }

    @Test
    void refund_afterItsWaterLeakedAndTheBucketFilledAgain_takesNothingOut() {
        // Given a bucket of 2 leaking one a second: 2 poured at 0 s; at 2 s it is empty again and
        // 2 are poured
        Limiter<?> limiter = Limiter.of(bucket(2, 1, Duration.ofSeconds(1)), clock);
        MutableDecision first = new MutableDecision();
        assertTrue(limiter.acquire(2, first));
        clock.advance(Duration.ofSeconds(2));
        assertTrue(limiter.tryAcquire(2));

        // When the first pour is refunded only now
        limiter.refund(2, first.receipt());

        // Then no water comes out: what is in the bucket is the later pour's
        assertFalse(limiter.tryAcquire(1));
    }

    @Test
    void isFresh_onceDrained_andOnlyThen() {
        LeakyBucket algorithm = bucket(3, 1, Duration.ofSeconds(1));
        Cell cell = algorithm.newCell(clock.nanos());
        algorithm.acquire(cell, clock.nanos(), 2, null);

        assertFalse(algorithm.isFresh(cell, clock.nanos() + 2 * SECOND - 1));
        assertFalse(algorithm.retireIfFresh(cell, clock.nanos() + 2 * SECOND - 1));
        assertTrue(algorithm.isFresh(cell, clock.nanos() + 2 * SECOND));
        assertTrue(algorithm.retireIfFresh(cell, clock.nanos() + 2 * SECOND));
    }

    @Test
    void acquire_randomPoursAgainstTheFunnelModel_decideIdentically() {
        // Given the exact Funnel model and the bucket, on the same random pours and leaks
        SplittableRandom random = new SplittableRandom(20260301);
        long capacity = 7;
        long interval = 1_000_003; // an odd interval, so leaks are rarely whole units
        LeakyBucket algorithm = LeakyBucket.builder().capacity(capacity)
                .rate(Rate.of(1, Duration.ofNanos(interval))).build();
        Limiter<?> limiter = Limiter.of(algorithm, clock);
        FunnelModel model = new FunnelModel(capacity, interval, clock.nanos());
        MutableDecision out = new MutableDecision();
        long admittedUnits = 0;
        long start = clock.nanos();
        int allowed = 0;
        int denied = 0;

        List<long[]> poured = new ArrayList<>();
        List<Long> receipts = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            long cost = random.nextInt(20) == 0 ? capacity + 1 : random.nextLong(4);
            if (random.nextInt(12) == 0 && !poured.isEmpty()) {
                // Refund a pour not yet refunded: mostly a recent one, sometimes an old one
                int j = random.nextInt(3) != 0 ? poured.size() - 1 : random.nextInt(poured.size());
                long[] p = poured.remove(j);
                model.refund(p[0], p[1], clock.nanos());
                limiter.refund(p[0], receipts.remove(j));
                // A refund hands back at most what is in the bucket: count afresh from here
                admittedUnits = 0;
                start = clock.nanos();
            } else {
                Decision expected = model.watering(cost, clock.nanos());
                limiter.acquire(cost, out);
                // Then every decision is the model's, field by field
                assertEquals(expected, out.toDecision(), "operation " + i);
                if (out.allowed()) {
                    admittedUnits += cost;
                    allowed++;
                    if (cost > 0) {
                        poured.add(new long[] {cost, clock.nanos()});
                        receipts.add(out.receipt());
                    }
                } else {
                    denied++;
                }
            }
            // And never more water went in than capacity plus what has leaked since counting began
            long leaked = (clock.nanos() - start) / interval;
            assertTrue(admittedUnits <= capacity + leaked, "over-admitted at operation " + i);
            long step = random.nextInt(5) == 0 ? out.retryAfterNanos() % (3 * interval)
                    : random.nextLong(interval * 2);
            clock.advanceNanos(step);
        }
        // The sequence really exercised both sides of the boundary
        assertTrue(allowed > 20_000 && denied > 20_000, allowed + " allowed, " + denied + " denied");
    }

    @Test
    void acquire_eightThreadsOnAFrozenClock_admitExactlyTheCapacity() throws Exception {
        Limiter<?> limiter = Limiter.of(bucket(500, 1, Duration.ofSeconds(1)), clock);

        int admitted = MoreAlgorithmsHarness.hammer(MoreAlgorithmsHarness.THREADS, 1_000,
                (t, i) -> limiter.tryAcquire() ? Boolean.TRUE : null).size();

        assertEquals(500, admitted);
    }

    @Test
    void acquire_eightThreadsThroughTheRegistry_admitExactlyTheCapacity() throws Exception {
        int admitted = MoreAlgorithmsHarness.admittedThroughRegistry(
                bucket(500, 1, Duration.ofSeconds(1)), MoreAlgorithmsHarness.THREADS, 1_000);

        assertEquals(500, admitted);
    }

    @Test
    void registry_idleEviction_isLossless() {
        MoreAlgorithmsHarness.assertIdleEvictionIsLossless(bucket(5, 1, Duration.ofMillis(10)),
                7, 20_000, 6, 4_000_000);
    }

    @Test
    void builder_badValues_failNamingTheParameterAndTheValue() {
        IllegalArgumentException capacity = assertThrows(IllegalArgumentException.class,
                () -> LeakyBucket.builder().capacity(0));
        assertEquals("capacity must be >= 1 but was 0", capacity.getMessage());
        IllegalArgumentException permits = assertThrows(IllegalArgumentException.class,
                () -> LeakyBucket.builder().rate(Rate.perSecond(-2)));
        assertEquals("permits must be >= 1 but was -2", permits.getMessage());
        IllegalArgumentException period = assertThrows(IllegalArgumentException.class,
                () -> LeakyBucket.builder().rate(Rate.of(1, Duration.ZERO)));
        assertEquals("period must be > 0 but was 0s", period.getMessage());
        IllegalArgumentException overflow = assertThrows(IllegalArgumentException.class,
                () -> LeakyBucket.builder().capacity(Long.MAX_VALUE / 2)
                        .rate(Rate.perSecond(1)).build());
        assertTrue(overflow.getMessage().startsWith("capacity * interval would overflow"),
                overflow.getMessage());
        assertThrows(NullPointerException.class, () -> LeakyBucket.builder().rate(null));
        assertThrows(IllegalStateException.class, () -> LeakyBucket.builder().capacity(1).build());
    }

    @Test
    void equality_followsTheConfiguration() {
        LeakyBucket a = bucket(10, 5, Duration.ofSeconds(1));
        LeakyBucket b = bucket(10, 1, Duration.ofMillis(200));

        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, bucket(11, 5, Duration.ofSeconds(1)));
        assertEquals("leaky-bucket", a.kind());
        assertEquals(10, a.limit());
        assertEquals(2 * SECOND, a.windowNanos());
        assertEquals("leaky-bucket{capacity=10, interval=200ms}", a.toString());
    }
}
