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
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ShapingLeakyBucketTest {

    private static final long MS = 1_000_000L;

    private final FakeClock clock = new FakeClock();

    /**
     * 10 per second (100 ms apart), the given slack, at most 300 ms of delay, a new key starting
     * with its slack earned (as if quiet for long).
     */
    private static ShapingLeakyBucket tenPerSecond(long slack) {
        return ShapingLeakyBucket.builder().rate(Rate.perSecond(10)).slack(slack)
                .maxDelay(Duration.ofMillis(300)).start(ShapingLeakyBucket.Start.EARNED).build();
    }

    @Test
    void acquire_newKeyByDefault_hasNoSlackBankedAndEarnsItOnlyByIdling() {
        // Given the default start (uber-go's New): slack 2, 10/s, max delay 300 ms
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.perSecond(10)).slack(2)
                .maxDelay(Duration.ofMillis(300)).build();
        Limiter<?> limiter = Limiter.of(algorithm, clock);

        // When requests arrive together on the new key: the first at once, then spaced
        assertEquals(new Decision(Outcome.ALLOWED, 6, 4, 0, 0, 0), limiter.acquire(0));
        assertEquals(new Decision(Outcome.ALLOWED, 6, 3, 300 * MS, 0, 0), limiter.acquire(1));
        assertEquals(new Decision(Outcome.SHAPED, 6, 2, 400 * MS, 0, 100 * MS), limiter.acquire(1));
        assertEquals(200 * MS, limiter.acquire(1).delayNanos());
        assertEquals(300 * MS, limiter.acquire(1).delayNanos());
        assertEquals(Outcome.DENIED, limiter.acquire(1).outcome());

        // Then, after a long pause, the slack earned by idling pays for slack + 1 at once
        clock.advance(Duration.ofSeconds(10));
        for (int i = 0; i < 3; i++) {
            assertEquals(Outcome.ALLOWED, limiter.acquire(1).outcome(), "request " + i);
        }
        assertEquals(100 * MS, limiter.acquire(1).delayNanos());
    }

    @Test
    void isFresh_emptyStartWithSlack_onlyWhileNothingWasTaken() {
        // An idle key has banked slack that a new key would not have: dropping it would change answers
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.perSecond(10)).slack(2).build();
        Cell cell = algorithm.newCell(clock.nanos());
        assertTrue(algorithm.isFresh(cell, clock.nanos()));
        algorithm.acquire(cell, clock.nanos(), 1, null);

        long later = clock.nanos() + Duration.ofDays(365).toNanos();
        assertFalse(algorithm.isFresh(cell, later));
        assertFalse(algorithm.retireIfFresh(cell, later));
        assertTrue(algorithm.retireIfFresh(algorithm.newCell(later), later));
    }

    @Test
    void isFresh_emptyStartWithoutSlack_onceTheNextSlotIsDue() {
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.perSecond(10)).slack(0).build();
        Cell cell = algorithm.newCell(clock.nanos());
        long t0 = clock.nanos();
        algorithm.acquire(cell, t0, 1, null);

        assertFalse(algorithm.isFresh(cell, t0 + 100 * MS - 1));
        assertTrue(algorithm.retireIfFresh(cell, t0 + 100 * MS));
    }

    @Test
    void acquire_quietKey_spendsTheSlackAtOnceThenSpacesAndFinallyRefuses() {
        // Given a shaper of 10/s with a slack of 2 intervals and a max delay of 300 ms
        Limiter<?> limiter = Limiter.of(tenPerSecond(2), clock);

        // When 7 requests arrive at the same instant
        List<Decision> d = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            d.add(limiter.acquire(1));
        }

        // Then slack + 1 = 3 proceed now, 3 are delayed 100, 200, 300 ms, and the 7th is refused
        // until its delay would be 300 ms
        long burst = 6;
        assertEquals(new Decision(Outcome.ALLOWED, burst, 5, 100 * MS, 0, 0), d.get(0));
        assertEquals(new Decision(Outcome.ALLOWED, burst, 3, 300 * MS, 0, 0), d.get(2));
        assertEquals(new Decision(Outcome.SHAPED, burst, 2, 400 * MS, 0, 100 * MS), d.get(3));
        assertEquals(new Decision(Outcome.SHAPED, burst, 0, 600 * MS, 0, 300 * MS), d.get(5));
        assertEquals(new Decision(Outcome.DENIED, burst, 0, 600 * MS, 100 * MS, 0), d.get(6));
    }

    @Test
    void acquire_noSlack_spacesEveryRequestEvenAfterAPause() {
        Limiter<?> limiter = Limiter.of(tenPerSecond(0), clock);
        clock.advance(Duration.ofMinutes(5));

        Decision first = limiter.acquire(1);
        Decision second = limiter.acquire(1);

        assertEquals(Outcome.ALLOWED, first.outcome());
        assertEquals(Outcome.SHAPED, second.outcome());
        assertEquals(100 * MS, second.delayNanos());
    }

    @Test
    void acquire_afterQuietTime_slackPaysForAShortBurstOnly() {
        Limiter<?> limiter = Limiter.of(tenPerSecond(2), clock);
        for (int i = 0; i < 6; i++) {
            limiter.acquire(1);
        }

        // 550 ms later the 400 ms of booked schedule has passed and 1.5 intervals of slack are
        // earned back, not the full 2
        clock.advance(Duration.ofMillis(550));
        Decision a = limiter.acquire(1);
        Decision b = limiter.acquire(1);
        Decision c = limiter.acquire(1);

        assertEquals(Outcome.ALLOWED, a.outcome());
        assertEquals(Outcome.ALLOWED, b.outcome());
        assertEquals(Outcome.SHAPED, c.outcome());
        assertEquals(50 * MS, c.delayNanos());
    }

    @Test
    void acquire_costN_proceedsAtItsSlotAndPushesTheNextOneNIntervals() {
        Limiter<?> limiter = Limiter.of(tenPerSecond(0), clock);

        Decision big = limiter.acquire(3);
        Decision next = limiter.acquire(1);

        assertEquals(Outcome.ALLOWED, big.outcome());
        assertEquals(300 * MS, next.delayNanos());
    }

    @Test
    void acquire_denial_writesNothing() {
        ShapingLeakyBucket algorithm = tenPerSecond(0);
        Cell cell = algorithm.newCell(clock.nanos());
        for (int i = 0; i < 4; i++) {
            assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, clock.nanos(), 1, null));
        }
        long before = cell.word();

        MutableDecision out = new MutableDecision();
        assertEquals(Algorithm.DENIED, algorithm.acquire(cell, clock.nanos(), 1, out));

        assertEquals(before, cell.word());
        assertEquals(100 * MS, out.retryAfterNanos());
    }

    @Test
    void acquire_costZero_peeksEvenWhenTheQueueIsFull() {
        Limiter<?> limiter = Limiter.of(tenPerSecond(0), clock);
        for (int i = 0; i < 4; i++) {
            limiter.acquire(1);
        }

        Decision peek = limiter.acquire(0);

        assertEquals(new Decision(Outcome.ALLOWED, 4, 0, 400 * MS, 0, 0), peek);
        assertFalse(limiter.tryAcquire(1));
    }

    @Test
    void acquire_hugeCost_isRefusedForever() {
        Limiter<?> limiter = Limiter.of(tenPerSecond(0), clock);

        Decision d = limiter.acquire(Long.MAX_VALUE / 2);

        assertFalse(d.retryable());
        assertTrue(limiter.tryAcquire(1));
    }

    @Test
    void refund_rightAfterAcquire_givesTheSlotBackExactly() {
        Limiter<?> limiter = Limiter.of(tenPerSecond(0), clock);
        MutableDecision first = new MutableDecision();
        limiter.acquire(1, first);
        MutableDecision second = new MutableDecision();
        limiter.acquire(1, second);
        Decision shaped = second.toDecision();

        limiter.refund(1, second.receipt());
        Decision again = limiter.acquire(1);

        assertEquals(shaped, again);
    }

    @Test
    void refund_ofTheOnlyAdmission_leavesTheKeyFresh() {
        Limiter<?> limiter = Limiter.of(tenPerSecond(0), clock);
        MutableDecision out = new MutableDecision();
        limiter.acquire(1, out);

        limiter.refund(100, out.receipt());

        assertEquals(new Decision(Outcome.ALLOWED, 4, 4, 0, 0, 0), limiter.acquire(0),
                "a refund never earns more than the full slack");
    }

    @Test
    void refund_afterALaterRequestTookTheNextSlot_givesNothingBack() {
        // Given 10/s, no slack: a request at 0 ms (slot 0), then one delayed to 100 ms
        Limiter<?> limiter = Limiter.of(tenPerSecond(0), clock);
        MutableDecision first = new MutableDecision();
        limiter.acquire(1, first);
        assertEquals(100 * MS, limiter.acquire(1).delayNanos());

        // When the first is refunded
        limiter.refund(1, first.receipt());

        // Then the next request still waits for the slot after the delayed one, never shares it
        assertEquals(200 * MS, limiter.acquire(1).delayNanos());
    }

    @Test
    void isFresh_onceTheSlackIsEarnedBack() {
        ShapingLeakyBucket algorithm = tenPerSecond(2);
        Cell cell = algorithm.newCell(clock.nanos());
        long t0 = clock.nanos();
        algorithm.acquire(cell, t0, 1, null);

        assertFalse(algorithm.isFresh(cell, t0 + 100 * MS - 1));
        assertFalse(algorithm.retireIfFresh(cell, t0 + 100 * MS - 1));
        assertTrue(algorithm.isFresh(cell, t0 + 100 * MS));
        assertTrue(algorithm.retireIfFresh(cell, t0 + 100 * MS));
        assertEquals(Algorithm.RETIRED, algorithm.acquire(cell, t0 + 100 * MS, 1, null));
    }

    @Test
    void acquire_randomRequestsAgainstTheUberModel_decideIdentically() {
        randomRequestsAgainstTheUberModel(ShapingLeakyBucket.Start.EARNED, 4004);
    }

    @Test
    void acquire_randomRequestsAgainstTheUberModel_emptyStart_decideIdentically() {
        randomRequestsAgainstTheUberModel(ShapingLeakyBucket.Start.EMPTY, 4005);
    }

    private void randomRequestsAgainstTheUberModel(ShapingLeakyBucket.Start start, long seed) {
        // Given uber-go's algorithm, transcribed, and the shaper, on the same random requests
        SplittableRandom random = new SplittableRandom(seed);
        long per = 1_000_003;
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().start(start)
                .rate(Rate.of(1, Duration.ofNanos(per))).slack(3).maxDelay(Duration.ofNanos(5 * per + 17)).build();
        Limiter<?> limiter = Limiter.of(algorithm, clock);
        UberShapingModel model = new UberShapingModel(per, 3, 5 * per + 17, clock.nanos(),
                start == ShapingLeakyBucket.Start.EARNED);
        MutableDecision out = new MutableDecision();
        long lastDelayedAt = Long.MIN_VALUE;
        long lastDelayedCost = 0;
        List<long[]> admissions = new ArrayList<>();
        List<Long> receipts = new ArrayList<>();
        int shaped = 0;
        int denied = 0;

        for (int i = 0; i < 100_000; i++) {
            long cost = random.nextInt(50) == 0 ? Long.MAX_VALUE / 4 : random.nextLong(4);
            Decision expected = model.take(cost, clock.nanos());
            limiter.acquire(cost, out);

            // Then every decision is the model's, field by field
            assertEquals(expected, out.toDecision(), "operation " + i);
            assertTrue(out.delayNanos() <= 5 * per + 17, "delay above maxDelay");
            if (out.outcome() == Outcome.SHAPED) {
                shaped++;
                // And two delayed requests are never scheduled closer than their spacing
                long at = clock.nanos() + out.delayNanos();
                assertTrue(lastDelayedAt == Long.MIN_VALUE || at - lastDelayedAt >= lastDelayedCost * per,
                        "spacing violated at operation " + i);
                lastDelayedAt = at;
                lastDelayedCost = cost;
            } else if (out.outcome() == Outcome.DENIED) {
                denied++;
            }
            if (out.allowed() && cost > 0) {
                admissions.add(new long[] {cost, model.last()});
                receipts.add(out.receipt());
                int r = random.nextInt(20);
                if (r < 3) {
                    // Another policy refused the same request: its slot is handed back at once,
                    // or (rarely) an older admission's, which later slots now follow
                    int j = r == 0 ? random.nextInt(admissions.size()) : admissions.size() - 1;
                    long[] a = admissions.remove(j);
                    model.refund(a[0], a[1], clock.nanos());
                    limiter.refund(a[0], receipts.remove(j));
                    lastDelayedAt = Long.MIN_VALUE;
                }
            }
            // Clients often come back exactly when told to: after the retry-after or the delay
            long step = switch (random.nextInt(6)) {
                case 0 -> out.retryAfterNanos() % (4 * per);
                case 1 -> out.delayNanos();
                default -> random.nextLong(per * 3 / 2);
            };
            clock.advanceNanos(step);
        }
        assertTrue(shaped > 10_000 && denied > 10_000, shaped + " shaped, " + denied + " denied");
    }

    @Test
    void acquire_eightThreadsOnAFrozenClock_spaceDelayedRequestsOneIntervalApart() throws Exception {
        // Given 100/s, slack 10, max delay 1 s: 11 immediate slots and 100 delayed ones
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.perSecond(100))
                .maxDelay(Duration.ofSeconds(1)).build();
        Limiter<?> limiter = Limiter.of(algorithm, clock);

        List<Long> delays = MoreAlgorithmsHarness.hammer(MoreAlgorithmsHarness.THREADS, 200, (t, i) -> {
            MutableDecision out = new MutableDecision();
            return limiter.acquire(1, out) ? out.delayNanos() : null;
        });

        // uber-go's New: only the first is immediate, the next hundred are spaced, the rest refused
        assertSpacedOneIntervalApart(delays, 1, 100, 10 * MS);
    }

    @Test
    void acquire_eightThreadsThroughTheRegistry_spaceDelayedRequestsOneIntervalApart() throws Exception {
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.perSecond(100))
                .maxDelay(Duration.ofSeconds(1)).build();
        KeySpace space = ShardedRegistry.builder().clock(clock).shards(4).build()
                .keySpace("shape", algorithm);

        List<Long> delays = MoreAlgorithmsHarness.hammer(MoreAlgorithmsHarness.THREADS, 200, (t, i) -> {
            MutableDecision out = new MutableDecision();
            return space.acquire("downstream", 1, out) ? out.delayNanos() : null;
        });

        assertSpacedOneIntervalApart(delays, 1, 100, 10 * MS);
    }

    @Test
    void acquire_eightThreadsOnAFrozenClock_earnedStart_spendTheSlackFirst() throws Exception {
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.perSecond(100))
                .maxDelay(Duration.ofSeconds(1)).start(ShapingLeakyBucket.Start.EARNED).build();
        Limiter<?> limiter = Limiter.of(algorithm, clock);

        List<Long> delays = MoreAlgorithmsHarness.hammer(MoreAlgorithmsHarness.THREADS, 200, (t, i) -> {
            MutableDecision out = new MutableDecision();
            return limiter.acquire(1, out) ? out.delayNanos() : null;
        });

        assertSpacedOneIntervalApart(delays, 11, 100, 10 * MS);
    }

    private static void assertSpacedOneIntervalApart(List<Long> delays, int immediate, int delayed,
            long interval) {
        List<Long> sorted = new ArrayList<>(delays);
        Collections.sort(sorted);
        assertEquals(immediate + delayed, sorted.size(), "admitted");
        for (int i = 0; i < immediate; i++) {
            assertEquals(0L, sorted.get(i), "slack slot " + i);
        }
        for (int i = immediate; i < sorted.size(); i++) {
            assertEquals((i - immediate + 1) * interval, sorted.get(i), "delayed slot " + i);
        }
    }

    @Test
    void registry_idleEviction_isLossless() {
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.of(1, Duration.ofMillis(1)))
                .slack(3).maxDelay(Duration.ofMillis(4)).start(ShapingLeakyBucket.Start.EARNED).build();
        MoreAlgorithmsHarness.assertIdleEvictionIsLossless(algorithm, 11, 20_000, 3, 1_000_000);
    }

    @Test
    void registry_idleEviction_emptyStartWithoutSlack_isLossless() {
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.of(1, Duration.ofMillis(1)))
                .slack(0).maxDelay(Duration.ofMillis(4)).build();
        MoreAlgorithmsHarness.assertIdleEvictionIsLossless(algorithm, 12, 20_000, 3, 1_000_000);
    }

    @Test
    void registry_idleEviction_emptyStartWithSlack_keepsIdleKeys() {
        // An evicted idle key would come back without its earned slack: answers would change
        ShapingLeakyBucket algorithm = ShapingLeakyBucket.builder().rate(Rate.of(1, Duration.ofMillis(1)))
                .slack(3).maxDelay(Duration.ofMillis(4)).build();
        MoreAlgorithmsHarness.assertIdleEvictionIsLossless(algorithm, 13, 20_000, 3, 1_000_000, false);
    }

    @Test
    void builder_badValues_failNamingTheParameterAndTheValue() {
        assertEquals("slack must be >= 0 but was -1", assertThrows(IllegalArgumentException.class,
                () -> ShapingLeakyBucket.builder().slack(-1)).getMessage());
        assertEquals("maxDelay must be >= 0 but was -1s", assertThrows(IllegalArgumentException.class,
                () -> ShapingLeakyBucket.builder().maxDelay(Duration.ofSeconds(-1))).getMessage());
        assertEquals("permits must be >= 1 but was 0", assertThrows(IllegalArgumentException.class,
                () -> ShapingLeakyBucket.builder().rate(Rate.perSecond(0))).getMessage());
        IllegalArgumentException slack = assertThrows(IllegalArgumentException.class,
                () -> ShapingLeakyBucket.builder().rate(Rate.perSecond(1))
                        .slack(Long.MAX_VALUE).build());
        assertTrue(slack.getMessage().startsWith("slack * interval would overflow"), slack.getMessage());
        assertThrows(NullPointerException.class, () -> ShapingLeakyBucket.builder().maxDelay(null));
        assertThrows(IllegalStateException.class, () -> ShapingLeakyBucket.builder().build());
    }

    @Test
    void defaults_andEquality() {
        ShapingLeakyBucket a = ShapingLeakyBucket.builder().rate(Rate.perSecond(10)).build();
        ShapingLeakyBucket b = ShapingLeakyBucket.builder().rate(Rate.of(1, Duration.ofMillis(100)))
                .slack(10).maxDelay(Duration.ofSeconds(1)).build();

        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, tenPerSecond(10));
        assertEquals(10, a.slack());
        assertEquals(1_000 * MS, a.maxDelayNanos());
        assertEquals("shaping", a.kind());
        assertEquals(21, a.limit());
        assertEquals(2_100 * MS, a.windowNanos());
        assertEquals(ShapingLeakyBucket.Start.EMPTY, a.start());
        assertNotEquals(a, ShapingLeakyBucket.builder().rate(Rate.perSecond(10))
                .start(ShapingLeakyBucket.Start.EARNED).build());
        assertEquals("shaping{interval=100ms, slack=10, maxDelay=1s, start=empty}", a.toString());
    }
}
