package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import io.github.sluice.limiter.Limiter;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class WarmUpTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    /** The documented tolerance between this class and Guava's formulas: one microsecond. */
    private static final long TOLERANCE = 1_000;

    private final FakeClock clock = new FakeClock();

    private static WarmUp warmUp(long perSecond, Duration warmUp, double coldFactor) {
        return WarmUp.builder().rate(Rate.perSecond(perSecond)).warmUp(warmUp)
                .coldFactor(coldFactor).build();
    }

    /**
     * Guava's blocking acquire on top of this class: a refused request sleeps its retry-after and
     * tries again, which must then succeed. Returns the time slept.
     */
    private long acquireAndSleep(Limiter<?> limiter, long permits) {
        MutableDecision out = new MutableDecision();
        if (limiter.acquire(permits, out)) {
            return 0;
        }
        long sleep = out.retryAfterNanos();
        clock.advanceNanos(sleep);
        assertTrue(limiter.acquire(permits, out), "admitted after sleeping the retry-after");
        return sleep;
    }

    private String acquireEight(Limiter<?> limiter) {
        List<String> events = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            events.add(String.format(Locale.ROOT, "R%.2f", acquireAndSleep(limiter, 1) / 1e9));
        }
        return String.join(", ", events);
    }

    @Test
    void acquire_guavaTestWarmUp_reproducesTheDocumentedSpacing() {
        // Given Guava's testWarmUp: 2 per second, 4 s warm-up, cold factor 3
        Limiter<?> limiter = Limiter.of(warmUp(2, Duration.ofSeconds(4), 3.0), clock);

        // When 8 acquire, 4.5 s of rest, 8 acquire, 2.5 s of rest, 8 acquire
        String cold = acquireEight(limiter);
        clock.advance(Duration.ofMillis(4_500));
        String coldAgain = acquireEight(limiter);
        clock.advance(Duration.ofMillis(2_500));
        String stillWarm = acquireEight(limiter);

        // Then the sleeps are Guava's, to the hundredth of a second as Guava's test prints them
        assertEquals("R0.00, R1.38, R1.13, R0.88, R0.63, R0.50, R0.50, R0.50", cold);
        assertEquals("R0.00, R1.38, R1.13, R0.88, R0.63, R0.50, R0.50, R0.50", coldAgain);
        assertEquals("R0.00, R0.50, R0.50, R0.50, R0.50, R0.50, R0.50, R0.50", stillWarm);
    }

    @Test
    void acquire_guavaTestWarmUpWithColdFactor_reproducesTheDocumentedSpacing() {
        // Given Guava's testWarmUpWithColdFactor: 5 per second, 4 s warm-up, cold factor 10
        Limiter<?> limiter = Limiter.of(warmUp(5, Duration.ofSeconds(4), 10.0), clock);

        String cold = acquireEight(limiter);
        clock.advance(Duration.ofMillis(4_200));
        String coldAgain = acquireEight(limiter);
        clock.advance(Duration.ofMillis(1_200));
        String stillWarm = acquireEight(limiter);

        assertEquals("R0.00, R1.75, R1.26, R0.76, R0.30, R0.20, R0.20, R0.20", cold);
        assertEquals("R0.00, R1.75, R1.26, R0.76, R0.30, R0.20, R0.20, R0.20", coldAgain);
        assertEquals("R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20", stillWarm);
    }

    @Test
    void acquire_guavaTestWarmUpWithColdFactor1_isAPlainSmoothLimiter() {
        Limiter<?> limiter = Limiter.of(warmUp(5, Duration.ofSeconds(4), 1.0), clock);

        String first = acquireEight(limiter);
        clock.advance(Duration.ofMillis(340));
        String second = acquireEight(limiter);

        assertEquals("R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20", first);
        assertEquals("R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20", second);
    }

    @Test
    void acquire_guavaScenarios_matchGuavasFormulasWithinAMicrosecond() {
        // Guava's three warm-up tests, compared sleep by sleep with the transcription of Guava
        double[][] configs = {{2, 4_000, 3.0, 500, 4_000, 500, 2_000}, {5, 4_000, 10.0, 200, 4_000, 200, 1_000},
            {5, 4_000, 1.0, 340, 0, 0, 0}};
        for (double[] c : configs) {
            FakeClock own = new FakeClock();
            Limiter<?> limiter = Limiter.of(WarmUp.builder().rate(Rate.perSecond((long) c[0]))
                    .warmUp(Duration.ofMillis((long) c[1])).coldFactor(c[2]).build(), own);
            GuavaWarmUpModel guava = new GuavaWarmUpModel(c[0], (long) c[1] * MS, c[2], own.nanos());
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 8; i++) {
                    long expected = guava.acquire(1);
                    long actual = acquireAndSleepOn(limiter, own, 1);
                    assertTrue(Math.abs(expected - actual) <= TOLERANCE,
                            "round " + round + " acquire " + i + ": " + actual + " vs Guava " + expected);
                }
                long rest = (long) (c[3 + round] * MS);
                guava.sleep(rest);
                own.advanceNanos(rest);
            }
        }
    }

    private static long acquireAndSleepOn(Limiter<?> limiter, FakeClock own, long permits) {
        MutableDecision out = new MutableDecision();
        if (limiter.acquire(permits, out)) {
            return 0;
        }
        long sleep = out.retryAfterNanos();
        own.advanceNanos(sleep);
        assertTrue(limiter.acquire(permits, out));
        return sleep;
    }

    @Test
    void acquire_randomAcquireAndSleepLoops_matchGuavasFormulasWithinAMicrosecond() {
        // Random rates, warm-ups, cold factors, weights and rests, against Guava's transcription
        SplittableRandom random = new SplittableRandom(20120101);
        long worst = 0;
        for (int config = 0; config < 200; config++) {
            long perSecond = 1 + random.nextInt(50);
            long warmUpMillis = 1 + random.nextInt(20_000);
            double coldFactor = 1 + random.nextInt(400) / 20.0;
            FakeClock own = new FakeClock();
            Limiter<?> limiter = Limiter.of(warmUp(perSecond, Duration.ofMillis(warmUpMillis), coldFactor), own);
            GuavaWarmUpModel guava = new GuavaWarmUpModel(perSecond, warmUpMillis * MS, coldFactor, own.nanos());
            for (int i = 0; i < 500; i++) {
                int permits = 1 + (random.nextInt(6) == 0 ? random.nextInt(20) : 0);
                long expected = guava.acquire(permits);
                long actual = acquireAndSleepOn(limiter, own, permits);
                worst = Math.max(worst, Math.abs(expected - actual));
                assertTrue(Math.abs(expected - actual) <= TOLERANCE,
                        "config " + config + " acquire " + i + ": " + actual + " vs Guava " + expected);
                if (random.nextInt(5) == 0) {
                    long rest = random.nextLong(2 * warmUpMillis * MS);
                    guava.sleep(rest);
                    own.advanceNanos(rest);
                }
            }
        }
        assertTrue(worst <= TOLERANCE, "worst difference " + worst + " ns");
    }

    @Test
    void acquire_beforeTheNextFreeTicket_isDeniedWithoutWriting() {
        // Given a cold key (2/s, 4 s, cold factor 3) that just admitted one request
        Limiter<?> limiter = Limiter.of(warmUp(2, Duration.ofSeconds(4), 3.0), clock);
        Decision first = limiter.acquire(1);

        // When the next request comes 1 s later, before the 1.375 s cold spacing
        clock.advance(Duration.ofSeconds(1));
        Decision early = limiter.acquire(1);
        Decision again = limiter.acquire(1);

        // Then it is refused with the rest of the spacing, and the refusal changed nothing (the
        // fixed point rounds Guava's exact 1.375 s up by a nanosecond: never shorter)
        assertEquals(new Decision(Outcome.ALLOWED, 2, 0, 1_375 * MS + 1, 0, 0), first);
        assertEquals(new Decision(Outcome.DENIED, 2, 1, 375 * MS + 1, 375 * MS + 1, 0), early);
        assertEquals(early, again);
    }

    @Test
    void acquire_largeRequest_isGrantedNowAndTheNextOneWaits() {
        // Pre-consumption: a warm key (cold factor 1) grants 10 permits at once
        Limiter<?> limiter = Limiter.of(warmUp(2, Duration.ofSeconds(4), 1.0), clock);

        Decision big = limiter.acquire(10);
        Decision next = limiter.acquire(1);

        assertTrue(big.allowed());
        assertEquals(5 * SECOND, next.retryAfterNanos());
    }

    @Test
    void acquire_costZero_peeksWithoutTakingTheTicket() {
        Limiter<?> limiter = Limiter.of(warmUp(2, Duration.ofSeconds(4), 1.0), clock);
        limiter.acquire(1);

        Decision peek = limiter.acquire(0);

        assertEquals(new Decision(Outcome.ALLOWED, 2, 1, 500 * MS, 0, 0), peek);
        assertEquals(Outcome.DENIED, limiter.acquire(1).outcome());
    }

    @Test
    void acquire_hugeCost_isRefusedForever() {
        Limiter<?> limiter = Limiter.of(warmUp(2, Duration.ofSeconds(4), 3.0), clock);

        assertFalse(limiter.acquire(Long.MAX_VALUE / 2).retryable());
        assertTrue(limiter.tryAcquire(1));
    }

    @Test
    void refund_rightAfterAnAdmission_undoesItExactly() {
        // Given two identical keys that were used once, 1.5 s ago (2/s, 4 s, cold factor 3)
        WarmUp algorithm = warmUp(2, Duration.ofSeconds(4), 3.0);
        WarmUpCell refunded = algorithm.newCell(clock.nanos());
        WarmUpCell untouched = algorithm.newCell(clock.nanos());
        algorithm.acquire(refunded, clock.nanos(), 1, null);
        algorithm.acquire(untouched, clock.nanos(), 1, null);
        clock.advance(Duration.ofMillis(1_500));

        // When one admits 3 permits that another policy then refuses, and hands them back
        MutableDecision admission = new MutableDecision();
        assertEquals(Algorithm.ADMITTED, algorithm.acquire(refunded, clock.nanos(), 3, admission));
        algorithm.refund(refunded, 3, admission.receipt(), clock);

        // Then it holds the state of the admission instant: the credit 3.5 s + 0.125 s of rest
        assertEquals(3_625 * MS, refunded.stored());
        assertEquals(clock.nanos(), refunded.word());
        // And it decides exactly like the key that was never asked
        MutableDecision a = new MutableDecision();
        MutableDecision b = new MutableDecision();
        for (int i = 0; i < 20; i++) {
            algorithm.acquire(refunded, clock.nanos(), 1 + i % 3, a);
            algorithm.acquire(untouched, clock.nanos(), 1 + i % 3, b);
            assertEquals(b.toDecision(), a.toDecision(), "request " + i);
            clock.advance(Duration.ofMillis(300));
        }
    }

    @Test
    void isFresh_whenColdAgain() {
        WarmUp algorithm = warmUp(2, Duration.ofSeconds(4), 3.0);
        WarmUpCell cell = algorithm.newCell(clock.nanos());
        long t0 = clock.nanos();
        assertTrue(algorithm.isFresh(cell, t0));
        algorithm.acquire(cell, t0, 1, null);

        // The 1.375 s ticket, then the 0.5 s of credit spent, must pass
        long cold = t0 + 1_375 * MS + 500 * MS;
        assertFalse(algorithm.isFresh(cell, cold - 1));
        assertFalse(algorithm.retireIfFresh(cell, cold - 1));
        assertTrue(algorithm.isFresh(cell, cold));
        assertTrue(algorithm.retireIfFresh(cell, cold));
        assertEquals(Algorithm.RETIRED, algorithm.acquire(cell, cold, 1, null));
        algorithm.refund(cell, 1, t0, () -> cold);
        assertTrue(cell.retired());
    }

    @Test
    void acquire_whilePublishing_refusesWithoutWaiting() {
        // Given an admission that published its ticket and stalled before writing the credit
        WarmUp algorithm = warmUp(2, Duration.ofSeconds(4), 3.0);
        WarmUpCell cell = algorithm.newCell(clock.nanos());
        long ticket = clock.nanos() + SECOND;
        assertTrue(cell.casWord(cell.word(), ticket | WarmUp.PUBLISHING));
        MutableDecision out = new MutableDecision();

        // Then requests before the ticket are refused exactly, after it with a retry of 1 ns
        assertEquals(Algorithm.DENIED, algorithm.acquire(cell, ticket - 10, 1, out));
        assertEquals(10, out.retryAfterNanos());
        assertEquals(Algorithm.DENIED, algorithm.acquire(cell, ticket + 10, 1, out));
        assertEquals(1, out.retryAfterNanos());
        assertFalse(algorithm.isFresh(cell, ticket + 100 * SECOND));
        assertFalse(algorithm.retireIfFresh(cell, ticket + 100 * SECOND));
        algorithm.refund(cell, 1, ticket, () -> ticket);
        assertEquals(ticket | WarmUp.PUBLISHING, cell.word(), "a refund waits for nobody");

        // And once it finishes publishing, the key works again
        cell.stored(0);
        assertTrue(cell.casWord(ticket | WarmUp.PUBLISHING, ticket));
        assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, ticket + 10, 1, out));
        assertEquals(500 * MS, out.resetNanos(), "warm credit: the stable spacing");
    }

    @Test
    void acquire_randomRequestsAgainstTheIntegerSpecification_decideIdentically() {
        SplittableRandom random = new SplittableRandom(31337);
        int allowed = 0;
        int denied = 0;
        for (int config = 0; config < 20; config++) {
            long permits = 1 + random.nextInt(9);
            long period = 1_000_000 + random.nextLong(9_000_000);
            long warm = 1 + random.nextLong(50_000_000);
            double coldFactor = 1 + random.nextInt(1_000) / 7.0;
            FakeClock own = new FakeClock();
            WarmUp algorithm = WarmUp.builder().rate(Rate.of(permits, Duration.ofNanos(period)))
                    .warmUp(Duration.ofNanos(warm)).coldFactor(coldFactor).build();
            Limiter<?> limiter = Limiter.of(algorithm, own);
            WarmUpSpecModel model = new WarmUpSpecModel(permits, period, warm, coldFactor, own.nanos());
            // The build-time constants agree with the exact fractions
            assertEquals(model.threshold, algorithm.thresholdNanos(), "threshold");
            assertEquals(model.creditPerPermit, algorithm.creditPerPermit(), "credit per permit");
            assertEquals(model.creditShift, algorithm.creditShift(), "credit shift");
            assertEquals(model.widthBits, algorithm.widthBits(), "width bits");
            assertEquals(model.slope, algorithm.slope(), "slope");
            MutableDecision out = new MutableDecision();
            List<long[]> admitted = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                long cost = random.nextInt(30) == 0 ? Long.MAX_VALUE / 3 : random.nextLong(4);
                if (random.nextInt(12) == 0 && !admitted.isEmpty()) {
                    // Refund an admission: mostly the latest (exact), sometimes an older one
                    // whose ticket a later request has taken (nothing comes back)
                    int j = random.nextInt(3) != 0 ? admitted.size() - 1
                            : random.nextInt(admitted.size());
                    long[] a = admitted.remove(j);
                    model.refund(a[0], a[1]);
                    limiter.refund(a[0], a[2]);
                    continue;
                }
                Decision expected = model.acquire(cost, own.nanos());
                limiter.acquire(cost, out);
                assertEquals(expected, out.toDecision(), "config " + config + " operation " + i);
                if (out.allowed()) {
                    allowed++;
                    if (cost > 0) {
                        admitted.add(new long[] {cost, model.next(), out.receipt()});
                    }
                } else {
                    denied++;
                }
                long step = switch (random.nextInt(6)) {
                    case 0 -> out.retryAfterNanos() % (4 * period);
                    case 1 -> random.nextLong(warm + 1);
                    default -> random.nextLong(period / permits * 2);
                };
                own.advanceNanos(step);
            }
        }
        assertTrue(allowed > 20_000 && denied > 20_000, allowed + " allowed, " + denied + " denied");
    }

    @Test
    void acquire_eightThreadsOnAFrozenClock_admitOneRequest() throws Exception {
        Limiter<?> limiter = Limiter.of(warmUp(100, Duration.ofSeconds(10), 3.0), clock);

        int admitted = MoreAlgorithmsHarness.hammer(MoreAlgorithmsHarness.THREADS, 1_000,
                (t, i) -> limiter.tryAcquire() ? Boolean.TRUE : null).size();

        assertEquals(1, admitted);
    }

    @Test
    void acquire_eightThreadsThroughTheRegistry_admitOneRequest() throws Exception {
        assertEquals(1, MoreAlgorithmsHarness.admittedThroughRegistry(
                warmUp(100, Duration.ofSeconds(10), 3.0), MoreAlgorithmsHarness.THREADS, 1_000));
    }

    @Test
    void acquire_eightThreadsWhileTheClockMoves_neverAdmitBeforeTheTicket() throws Exception {
        // Given 1000/s warming over 20 ms, and 8 threads on one key that each move the clock
        WarmUp algorithm = WarmUp.builder().rate(Rate.perSecond(1_000))
                .warmUp(Duration.ofMillis(20)).build();
        WarmUpCell cell = algorithm.newCell(clock.nanos());
        List<long[]> admissions = MoreAlgorithmsHarness.hammer(MoreAlgorithmsHarness.THREADS, 20_000, (t, i) -> {
            MutableDecision out = new MutableDecision();
            // Every worker moves the shared clock a little, so readings interleave
            clock.advanceNanos(ThreadLocalRandom.current().nextLong(1_000));
            long now = clock.nanos();
            return algorithm.acquire(cell, now, 1, out) == Algorithm.ADMITTED
                    ? new long[] {now, out.resetNanos()} : null;
        });

        // Then, in the order they happened, each admission came at or after the previous ticket
        admissions.sort((x, y) -> Long.compare(x[0], y[0]));
        for (int k = 1; k < admissions.size(); k++) {
            long previousTicket = admissions.get(k - 1)[0] + admissions.get(k - 1)[1];
            assertTrue(admissions.get(k)[0] >= previousTicket, "admission " + k + " came early");
            assertTrue(admissions.get(k - 1)[1] >= MS, "a wait shorter than the stable interval");
        }
        assertTrue(admissions.size() > 10, "the clock moved too little: " + admissions.size());
    }

    @Test
    void registry_idleEviction_isLossless() {
        WarmUp algorithm = WarmUp.builder().rate(Rate.of(1, Duration.ofMillis(1)))
                .warmUp(Duration.ofMillis(4)).build();
        MoreAlgorithmsHarness.assertIdleEvictionIsLossless(algorithm, 5, 20_000, 3, 1_000_000);
    }

    @Test
    void builder_badValues_failNamingTheParameterAndTheValue() {
        assertEquals("coldFactor must be between 1.0 and 1000.0 but was 0.5",
                assertThrows(IllegalArgumentException.class,
                        () -> WarmUp.builder().coldFactor(0.5)).getMessage());
        assertEquals("coldFactor must be between 1.0 and 1000.0 but was NaN",
                assertThrows(IllegalArgumentException.class,
                        () -> WarmUp.builder().coldFactor(Double.NaN)).getMessage());
        assertEquals("warmUp must be >= 0 but was -1ms", assertThrows(IllegalArgumentException.class,
                () -> WarmUp.builder().warmUp(Duration.ofMillis(-1))).getMessage());
        assertEquals("warmUp must be at most 7d but was 7d 1ms",
                assertThrows(IllegalArgumentException.class,
                        () -> WarmUp.builder().warmUp(Duration.ofDays(7).plusMillis(1))).getMessage());
        assertEquals("permits must be >= 1 but was 0", assertThrows(IllegalArgumentException.class,
                () -> WarmUp.builder().rate(Rate.perSecond(0))).getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> WarmUp.builder().rate(Rate.of(2, Duration.ofNanos(1))));
        assertThrows(NullPointerException.class, () -> WarmUp.builder().warmUp(null));
        assertThrows(IllegalStateException.class,
                () -> WarmUp.builder().warmUp(Duration.ofSeconds(1)).build());
        assertThrows(IllegalStateException.class,
                () -> WarmUp.builder().rate(Rate.perSecond(1)).build());
    }

    @Test
    void defaults_andEquality() {
        WarmUp a = WarmUp.builder().rate(Rate.perSecond(2)).warmUp(Duration.ofSeconds(4)).build();

        assertEquals(a, warmUp(2, Duration.ofSeconds(4), 3.0));
        assertEquals(a.hashCode(), warmUp(2, Duration.ofSeconds(4), 3.0).hashCode());
        assertNotEquals(a, warmUp(2, Duration.ofSeconds(4), 3.5));
        assertEquals(3.0, a.coldFactor());
        assertEquals(4 * SECOND, a.warmUpNanos());
        assertEquals(500 * MS, a.intervalNanos());
        assertEquals("warm-up", a.kind());
        assertEquals(2, a.limit());
        assertEquals(SECOND, a.windowNanos());
        assertEquals("warm-up{rate=2/1s, warmUp=4s, coldFactor=3.0}", a.toString());
    }
}
