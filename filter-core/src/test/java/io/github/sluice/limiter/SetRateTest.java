package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.RateChange;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
 * {@link BlockingLimiter#setRate(Rate)} on a manual clock: Guava's rule for smooth-bursty and
 * warm-up (compared with {@link GuavaSetRateModel}, a transcription of Guava's double
 * arithmetic: every wait within 1 microsecond of Guava's, never shorter), x/time/rate's rule for
 * token bucket, GCRA and leaky bucket (the tokens held, or what was consumed, kept), the next slot
 * kept for shaping; and rate changes racing with acquirers released together on a frozen clock.
 */
class SetRateTest {

    private static final long SECOND = 1_000_000_000L;

    private final FakeClock clock = new FakeClock();
    private final long start = clock.nanos();
    private final List<Long> slept = Collections.synchronizedList(new ArrayList<>());
    private final TokenBucketLimiter.Sleeper sleeper = nanos -> {
        slept.add(nanos);
        clock.advanceNanos(nanos);
    };

    // ---- Guava: smooth-bursty and warm-up against the model ----

    /** A script step: a positive number acquires that many permits; the others are below. */
    private record Step(char op, double value) {
        static Step acquire(long n) {
            return new Step('a', n);
        }

        static Step idle(double seconds) {
            return new Step('i', seconds);
        }

        static Step rate(double perSecond) {
            return new Step('r', perSecond);
        }
    }

    private void runAgainstGuava(BlockingLimiter<?> limiter, GuavaSetRateModel guava, List<Step> script)
            throws InterruptedException {
        int i = 0;
        for (Step step : script) {
            double now = clock.nanos() - start;
            switch (step.op()) {
                case 'a' -> {
                    long sluice = limiter.acquire((long) step.value()).toNanos();
                    double reference = guava.reserve(now, (long) step.value());
                    String where = "step " + i + " " + step + ": sluice " + sluice + " ns, Guava " + reference + " ns";
                    assertTrue(sluice >= reference, "never shorter than Guava: " + where);
                    assertTrue(sluice - reference <= 1_000, "within 1 microsecond of Guava: " + where);
                }
                case 'i' -> clock.advanceNanos((long) (step.value() * SECOND));
                case 'r' -> {
                    limiter.setRate(step.value());
                    guava.setRate(step.value(), now);
                    assertEquals(guava.storedPermits(now), limiter.storedPermits(), 1e-6,
                            "stored permits rescaled as Guava's doSetRate at step " + i);
                }
                default -> throw new AssertionError(step);
            }
            i++;
        }
    }

    private static List<Step> script() {
        return List.of(Step.acquire(1), Step.acquire(1), Step.acquire(3), Step.rate(2), Step.acquire(1),
                Step.acquire(1), Step.idle(0.7), Step.rate(10), Step.acquire(1), Step.acquire(4), Step.acquire(1),
                Step.idle(5), Step.rate(3), Step.acquire(2), Step.acquire(1), Step.acquire(1), Step.rate(0.5),
                Step.acquire(1), Step.acquire(1), Step.idle(1.3), Step.rate(7), Step.acquire(1), Step.acquire(1),
                Step.rate(7), Step.acquire(2), Step.acquire(1));
    }

    @Test
    void smoothBursty_setRateMidSchedule_waitsAsGuavasDoSetRate() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.of(SmoothBursty.of(Rate.perSecond(5)), clock, sleeper);
        runAgainstGuava(limiter, GuavaSetRateModel.bursty(5, SECOND), script());
    }

    @Test
    void smoothBursty_setRateAfterIdle_storedPermitsScaledByMaxPermitsRatio() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.of(
                SmoothBursty.builder().rate(Rate.perSecond(4)).maxBurst(Duration.ofSeconds(2)).build(), clock, sleeper);
        limiter.acquire();
        clock.advance(Duration.ofSeconds(1)); // idle 0.75 s past the paid ticket: 3 stored of maxPermits 8
        limiter.setRate(10); // Guava: 3 * 20 / 8 = 7.5 stored
        assertEquals(7.5, limiter.storedPermits(), 1e-9);
        assertEquals(10.0, limiter.getRate(), 0.0);
        assertEquals(Duration.ZERO, limiter.acquire(7));
        assertEquals(Duration.ZERO, limiter.acquire(1), "half a stored permit pays; the fresh half pushes the next");
        assertEquals(Duration.ofMillis(50), limiter.acquire(1));
    }

    @Test
    void warmUp_setRateMidSchedule_waitsAsGuavasDoSetRate() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.of(WarmUp.builder().rate(Rate.perSecond(2))
                .warmUp(Duration.ofSeconds(4)).coldFactor(3).build(), clock, sleeper);
        runAgainstGuava(limiter, GuavaSetRateModel.warmingUp(2, 4 * SECOND, 3), script());
    }

    @Test
    void warmUp_setRateOnAFreshLimiter_staysCold() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.of(WarmUp.of(Rate.perSecond(2), Duration.ofSeconds(4)), clock, sleeper);
        GuavaSetRateModel guava = GuavaSetRateModel.warmingUp(2, 4 * SECOND, 3);
        limiter.setRate(8);
        guava.setRate(8, 0);
        assertEquals(guava.storedPermits(0), limiter.storedPermits(), 1e-6, "maxPermits of the new rate: cold");
        runAgainstGuava(limiter, guava, List.of(Step.acquire(1), Step.acquire(1), Step.acquire(1), Step.acquire(1)));
        // Cold at 8/s with cold factor 3: the second request waits about 3/8 s, not 1/8 s.
        assertTrue(slept.get(0) > 300_000_000L, "cold spacing after setRate on a fresh limiter: " + slept);
    }

    // ---- x/time/rate's rule: token bucket, GCRA, policing leaky bucket ----

    @Test
    void tokenBucket_setRate_keepsTheTokensHeldAndRefillsAtTheNewRate() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(TokenBucket.of(Rate.perSecond(10)), clock, sleeper);
        for (int i = 0; i < 10; i++) {
            assertTrue(limiter.tryAcquire());
        }
        clock.advance(Duration.ofMillis(550)); // 5.5 tokens under the old rate
        limiter.setRate(Rate.perSecond(1));
        assertEquals(Rate.perSecond(1), limiter.rate());
        assertEquals(5, drain(limiter), "the 5 whole tokens held at the change are kept");
        clock.advance(Duration.ofMillis(499));
        assertFalse(limiter.tryAcquire(), "the half token left refills at 1/s: 0.999 tokens after 499 ms");
        clock.advance(Duration.ofMillis(1));
        assertTrue(limiter.tryAcquire());
        assertEquals(10, ((TokenBucket) limiter.algorithm()).burst(), "the burst is unchanged");
    }

    @Test
    void gcra_setRate_keepsWhatWasConsumedAndEmitsAtTheNewRate() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(Gcra.of(Rate.perSecond(10)), clock, sleeper);
        assertEquals(10, drain(limiter));
        clock.advance(Duration.ofMillis(500)); // 5 of 10 consumed still
        limiter.setRate(Rate.perSecond(2));
        assertEquals(5, drain(limiter), "5 consumed of a limit of 10 at the change: 5 more fit");
        clock.advance(Duration.ofMillis(499));
        assertFalse(limiter.tryAcquire(), "the new emission interval is 500 ms");
        clock.advance(Duration.ofMillis(1));
        assertTrue(limiter.tryAcquire());
    }

    @Test
    void leakyBucket_setRate_keepsTheWaterAndLeaksAtTheNewRate() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(LeakyBucket.of(Rate.perSecond(4)), clock, sleeper);
        assertEquals(4, drain(limiter));
        clock.advance(Duration.ofMillis(250)); // 3 units of water left
        limiter.setRate(Rate.of(1, Duration.ofSeconds(2)));
        assertEquals(1, drain(limiter), "3 of 4 units of water kept: one more fits");
        clock.advance(Duration.ofMillis(1_999));
        assertFalse(limiter.tryAcquire(), "leaks one unit per 2 s now");
        clock.advance(Duration.ofMillis(1));
        assertTrue(limiter.tryAcquire());
    }

    @Test
    void tokenBucket_setRateRoundTrip_onAFrozenClock_changesNothing() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(TokenBucket.of(Rate.of(7, Duration.ofMinutes(1))), clock, sleeper);
        for (int i = 0; i < 3; i++) {
            assertTrue(limiter.tryAcquire());
        }
        for (int i = 0; i < 50; i++) {
            limiter.setRate(Rate.perSecond(1_000 + i * 37));
            limiter.setRate(Rate.of(7, Duration.ofMinutes(1)));
        }
        assertEquals(4, drain(limiter), "whole tokens are converted exactly, never lost or created");
    }

    /**
     * An admission decided on a later clock reading than the rate change's leaves the bucket in
     * debt at the change's reading; the debt is carried (x/time/rate: tokens, negative included,
     * kept), not forgiven.
     */
    @Test
    void tokenBucket_carryAfterAnAdmissionOnALaterClockReading_keepsItsDebt() {
        TokenBucket old = TokenBucket.builder().rate(Rate.perSecond(100)).burst(4).build();
        long t = clock.nanos();
        Cell cell = old.newCell(t);
        assertEquals(Algorithm.ADMITTED, old.acquire(cell, t + 10_000_000L, 4, null)); // 1 token earned at t + 10 ms
        Algorithm<Cell> doubled = RateChange.withRate(old, Rate.perSecond(200));
        Cell carried = RateChange.carry(old, cell, doubled, t); // -1 token at t
        assertTrue(cell.retired(), "the old state is retired by the carry");
        assertEquals(Algorithm.DENIED, doubled.acquire(carried, t + 9_999_999L, 1, null),
                "-1 token at t refills at 200/s: 0.99 tokens at t + 10 ms - 1 ns");
        assertEquals(Algorithm.ADMITTED, doubled.acquire(carried, t + 10_000_000L, 1, null));
    }

    // ---- uber-go shaping: the next slot under the old interval, then the new one ----

    @Test
    void shaping_setRate_keepsTheNextSlotThenSpacesByTheNewInterval() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.of(ShapingLeakyBucket.builder().rate(Rate.perSecond(10))
                .slack(0).maxDelay(Duration.ofDays(1)).build(), clock, sleeper);
        long t = clock.nanos();
        assertEquals(t, limiter.take());
        limiter.setRate(1);
        assertEquals(1.0, limiter.getRate(), 0.0);
        assertEquals(t + 100_000_000L, limiter.take(), "the slot computed under the old 100 ms interval");
        assertEquals(t + 1_100_000_000L, limiter.take(), "then the new 1 s interval");
    }

    // ---- windows, bad input ----

    // ---- fixed window: the count taken in the current window is kept ----

    private static final long MINUTE = 60 * SECOND;

    /** Moves the clock to the start of the next epoch-aligned window of {@code length} ns. */
    private void toWindowStart(long length) {
        clock.advanceNanos(length - Math.floorMod(clock.nanos(), length));
    }

    @Test
    void fixedWindow_raiseLimit_letsTheRestInAtOnceUntilTheWindowEnds() {
        toWindowStart(MINUTE);
        BlockingLimiter<?> limiter = BlockingLimiter.of(FixedWindow.of(5, Duration.ofMinutes(1)), clock, sleeper);
        assertEquals(5, drain(limiter));
        clock.advance(Duration.ofSeconds(20));
        limiter.setRate(Rate.of(8, Duration.ofMinutes(1)));
        assertEquals(Rate.of(8, Duration.ofMinutes(1)), limiter.rate());
        assertEquals(3, drain(limiter), "5 taken in this window are kept: 3 more of the new 8");
        clock.advance(Duration.ofSeconds(40).minusNanos(1));
        assertFalse(limiter.tryAcquire(), "the window still ends where it did");
        clock.advanceNanos(1);
        assertEquals(8, drain(limiter), "a new window counts from zero under the new limit");
    }

    @Test
    void fixedWindow_lowerBelowTheCountThenRaise_refusesUntilTheWindowEndsAndForgetsNothing() {
        toWindowStart(MINUTE);
        BlockingLimiter<?> limiter = BlockingLimiter.of(FixedWindow.of(10, Duration.ofMinutes(1)), clock, sleeper);
        for (int i = 0; i < 8; i++) {
            assertTrue(limiter.tryAcquire());
        }
        limiter.setRate(Rate.of(5, Duration.ofMinutes(1)));
        assertFalse(limiter.tryAcquire(), "8 taken is over the new limit of 5: refused");
        limiter.setRate(Rate.of(9, Duration.ofMinutes(1)));
        assertEquals(1, drain(limiter), "the 8 taken are remembered through the lower limit: 1 of 9 left");
        limiter.setRate(Rate.of(10, Duration.ofMinutes(1)));
        assertEquals(1, drain(limiter), "9 taken of 10");
        clock.advance(Duration.ofMinutes(1));
        assertEquals(10, drain(limiter));
    }

    @Test
    void fixedWindow_longerEpochWindow_countMovesIntoTheAlignedWindowContainingNow() {
        toWindowStart(2 * MINUTE);
        clock.advance(Duration.ofSeconds(70)); // 10 s into a one-minute window, 70 s into a two-minute one
        BlockingLimiter<?> limiter = BlockingLimiter.of(FixedWindow.of(5, Duration.ofMinutes(1)), clock, sleeper);
        for (int i = 0; i < 3; i++) {
            assertTrue(limiter.tryAcquire());
        }
        limiter.setRate(Rate.of(5, Duration.ofMinutes(2)));
        assertEquals(2, drain(limiter), "3 taken are kept");
        clock.advance(Duration.ofSeconds(50).minusNanos(1));
        assertFalse(limiter.tryAcquire(), "the epoch-aligned two-minute window has not ended");
        clock.advanceNanos(1);
        assertEquals(5, drain(limiter));
    }

    @Test
    void fixedWindow_firstRequestWindowLengthened_keepsItsStartAndEndsTheNewLengthAfterIt() {
        FixedWindow tenSeconds = FixedWindow.builder().limit(4).window(Duration.ofSeconds(10))
                .alignment(FixedWindow.Alignment.FIRST_REQUEST).build();
        BlockingLimiter<?> limiter = BlockingLimiter.of(tenSeconds, clock, sleeper);
        assertEquals(4, drain(limiter));
        clock.advance(Duration.ofSeconds(5));
        limiter.setRate(Rate.of(100, Duration.ofSeconds(20))); // a limit whose cells are longer
        assertEquals(96, drain(limiter), "4 taken are kept");
        clock.advance(Duration.ofSeconds(15).minusMillis(1));
        assertFalse(limiter.tryAcquire(), "the window opened 20 s ago less 1 ms is still open");
        clock.advance(Duration.ofMillis(2));
        assertEquals(100, drain(limiter));
    }

    @Test
    void fixedWindow_firstRequestWindowShortenedBelowItsAge_endsAtOnce() {
        FixedWindow tenSeconds = FixedWindow.builder().limit(4).window(Duration.ofSeconds(10))
                .alignment(FixedWindow.Alignment.FIRST_REQUEST).build();
        BlockingLimiter<?> limiter = BlockingLimiter.of(tenSeconds, clock, sleeper);
        assertEquals(4, drain(limiter));
        clock.advance(Duration.ofSeconds(5));
        limiter.setRate(Rate.of(4, Duration.ofSeconds(2)));
        assertEquals(4, drain(limiter), "a window opened 5 s ago has ended under a 2 s window");
    }

    /** A refund must not reopen a window that a lowered limit left over its limit. */
    @Test
    void fixedWindow_refundIntoAWindowCarriedOverItsLimit_admitsNothing() {
        FixedWindow ten = FixedWindow.of(10, Duration.ofHours(1));
        long t = clock.nanos();
        FixedWindow.WindowCell cell = ten.newCell(t);
        io.github.sluice.core.MutableDecision out = new io.github.sluice.core.MutableDecision();
        assertEquals(Algorithm.ADMITTED, ten.acquire(cell, t, 8, out));
        long receipt = out.receipt();
        Algorithm<FixedWindow.WindowCell> five = RateChange.withRate(ten, Rate.of(5, Duration.ofHours(1)));
        FixedWindow.WindowCell carried = RateChange.carry(ten, cell, five, t);
        assertTrue(cell.retired());
        five.refund(carried, 3, receipt, clock);
        assertEquals(Algorithm.DENIED, five.acquire(carried, t, 1, null),
                "8 taken less 3 refunded is still over 5");
    }

    // ---- which algorithms, bad input ----

    @Test
    void everyRateAlgorithmOfTheLibrary_supportsARateChange() {
        List<Algorithm<?>> algorithms = List.of(SmoothBursty.of(Rate.perSecond(5)),
                WarmUp.builder().rate(Rate.perSecond(5)).warmUp(Duration.ofSeconds(1)).build(),
                TokenBucket.of(Rate.perSecond(5)), Gcra.of(Rate.perSecond(5)), LeakyBucket.of(Rate.perSecond(5)),
                ShapingLeakyBucket.builder().rate(Rate.perSecond(5)).build(), FixedWindow.of(5, Duration.ofSeconds(1)),
                SlidingWindow.of(5, Duration.ofSeconds(1)), SlidingLog.of(5, Duration.ofSeconds(1)));
        for (Algorithm<?> algorithm : algorithms) {
            assertTrue(RateChange.supports(algorithm), algorithm.toString());
            BlockingLimiter<?> limiter = BlockingLimiter.of(algorithm, clock, sleeper);
            limiter.setRate(Rate.of(8, Duration.ofSeconds(2)));
            // (shaping reads a rate back as one request per interval)
            Rate expected = algorithm instanceof ShapingLeakyBucket ? Rate.of(1, Duration.ofMillis(250))
                    : Rate.of(8, Duration.ofSeconds(2));
            assertEquals(expected, limiter.rate(), algorithm.toString());
            assertEquals(4.0, limiter.getRate(), 0.0, algorithm.toString());
        }
    }

    /** An algorithm defined outside the library: nothing knows how to carry its state. */
    @Test
    void algorithmDefinedElsewhere_setRate_refusedWithAMessageNamingIt() {
        Algorithm<Cell> custom = new Algorithm<>() {
            @Override
            public String kind() {
                return "custom";
            }

            @Override
            public long limit() {
                return 1;
            }

            @Override
            public long windowNanos() {
                return SECOND;
            }

            @Override
            public Cell newCell(long now) {
                return new Cell(0);
            }

            @Override
            public int acquire(Cell cell, long now, long cost, io.github.sluice.core.MutableDecision out) {
                if (out != null) {
                    out.allow(1, 1, 0);
                }
                return ADMITTED;
            }

            @Override
            public void refund(Cell cell, long cost, long receipt, io.github.sluice.core.Clock clock) {
            }

            @Override
            public boolean isFresh(Cell cell, long now) {
                return true;
            }

            @Override
            public boolean retireIfFresh(Cell cell, long now) {
                return cell.retire(cell.word());
            }

            @Override
            public long bytesPerKey() {
                return 16;
            }
        };
        assertFalse(RateChange.supports(custom));
        BlockingLimiter<?> limiter = BlockingLimiter.of(custom, clock, sleeper);
        for (Runnable change : List.<Runnable>of(() -> limiter.setRate(Rate.perSecond(3)), () -> limiter.setRate(3.0))) {
            String message = assertThrows(UnsupportedOperationException.class, change::run).getMessage();
            assertTrue(message.contains("custom"), message);
        }
        assertTrue(limiter.tryAcquire(), "the limiter still works");
    }

    @Test
    void setRate_notPositive_refusedNamingTheValue() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(SmoothBursty.of(Rate.perSecond(5)), clock, sleeper);
        for (double bad : new double[] {0, -1, Double.NaN, Double.NEGATIVE_INFINITY}) {
            String message = assertThrows(IllegalArgumentException.class, () -> limiter.setRate(bad)).getMessage();
            assertTrue(message.startsWith("permitsPerSecond must be > 0 (or INF) but was " + bad), message);
        }
        assertThrows(NullPointerException.class, () -> limiter.setRate(null));
        assertEquals(5.0, limiter.getRate(), 0.0, "a refused change changes nothing");
    }

    @Test
    void setRate_rateAboveOnePerNanosecond_refusedAndRateUnchanged() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(Gcra.of(Rate.perSecond(5)), clock, sleeper);
        assertThrows(IllegalArgumentException.class, () -> limiter.setRate(Rate.of(2, Duration.ofNanos(1))));
        assertEquals(Rate.perSecond(5), limiter.rate());
        assertEquals(5, drain(limiter));
    }

    // ---- concurrency: acquirers released together while another thread changes the rate ----

    /**
     * Frozen clock, so nothing refills: whatever the rate, a token bucket, GCRA or leaky bucket
     * can admit at most its burst in total (large, so that every take races with the changes). Threads released together take permits while another
     * thread flips the rate; the admitted plus what is left must be exactly the burst (nothing
     * admitted twice, nothing lost), and nobody sees an exception.
     */
    @Test
    void setRateRacingAcquirers_frozenClock_admittedPlusLeftIsExactlyTheBurst() throws Exception {
        List<Algorithm<? extends Cell>> algorithms = List.of(
                TokenBucket.builder().rate(Rate.perSecond(100)).burst(100_000).build(),
                Gcra.builder().rate(Rate.perSecond(100)).burst(99_999).build(),
                LeakyBucket.builder().rate(Rate.perSecond(100)).capacity(100_000).build());
        for (Algorithm<? extends Cell> algorithm : algorithms) {
            BlockingLimiter<?> limiter = BlockingLimiter.of(algorithm, clock, sleeper);
            long admitted = race(() -> limiter.tryAcquire() ? 1 : 0,
                    i -> limiter.setRate(Rate.of(100 + 7 * (i % 5), Duration.ofSeconds(1 + i % 3))));
            assertTrue(admitted <= 100_000, algorithm + ": admitted " + admitted);
            assertEquals(100_000, admitted + drain(limiter), algorithm + ": admitted " + admitted);
        }
    }

    /**
     * Frozen clock, fixed windows of both alignments: threads released together take permits while
     * another thread flips the limit between 100 and 300 and the window between one and two hours.
     * The count taken in the window is kept through every change, so the admitted never exceed the
     * most permissive limit in force (300), and after a last change to 300 per hour the admitted
     * plus what is left is exactly 300: nothing admitted twice, nothing forgotten.
     */
    @Test
    void fixedWindow_setRateRacingAcquirers_frozenClock_admittedPlusLeftIsExactlyTheLargestLimit() throws Exception {
        // (a calendar window keeps its calendar through a rate change: CalendarWindowTest)
        for (FixedWindow.Alignment alignment : List.of(FixedWindow.Alignment.EPOCH, FixedWindow.Alignment.FIRST_REQUEST)) {
            toWindowStart(2 * 3_600 * SECOND);
            clock.advance(Duration.ofMinutes(1));
            FixedWindow algorithm = FixedWindow.builder().limit(100).window(Duration.ofHours(1))
                    .alignment(alignment).build();
            BlockingLimiter<?> limiter = BlockingLimiter.of(algorithm, clock, sleeper);
            long admitted = race(() -> limiter.tryAcquire() ? 1 : 0,
                    i -> limiter.setRate(Rate.of(i % 2 == 0 ? 300 : 100, Duration.ofHours(1 + i % 3 / 2))));
            assertTrue(admitted <= 300, alignment + ": admitted " + admitted);
            limiter.setRate(Rate.of(300, Duration.ofHours(1)));
            assertEquals(300, admitted + drain(limiter), alignment + ": admitted " + admitted);
        }
    }

    /**
     * Frozen clock, sliding window and sliding log: threads released together take permits while
     * another thread flips the limit between 100 and 300 and the window between one and two hours
     * (every permit stays in the slot, resp. at the timestamp, of the frozen reading, and a count
     * above a lowered limit is remembered). So the admitted never exceed the most permissive limit
     * in force (300), and after a last change to 300 per hour the admitted plus what is left is
     * exactly 300: nothing admitted twice, nothing forgotten, no exception.
     */
    @Test
    void slidingWindows_setRateRacingAcquirers_frozenClock_admittedPlusLeftIsExactlyTheLargestLimit() throws Exception {
        List<Algorithm<? extends Cell>> algorithms = List.of(SlidingWindow.of(100, Duration.ofHours(1)),
                SlidingWindow.builder().limit(100).window(Duration.ofHours(1)).slots(7).build(),
                SlidingLog.of(100, Duration.ofHours(1)));
        for (Algorithm<? extends Cell> algorithm : algorithms) {
            clock.advance(Duration.ofMinutes(17));
            BlockingLimiter<?> limiter = BlockingLimiter.of(algorithm, clock, sleeper);
            long admitted = race(() -> limiter.tryAcquire() ? 1 : 0,
                    i -> limiter.setRate(Rate.of(i % 2 == 0 ? 300 : 100, Duration.ofHours(1 + i % 3 / 2))));
            assertTrue(admitted <= 300, algorithm + ": admitted " + admitted);
            limiter.setRate(Rate.of(300, Duration.ofHours(1)));
            assertEquals(300, admitted + drain(limiter), algorithm + ": admitted " + admitted);
        }
    }

    /**
     * Frozen clock, smooth-bursty and warm-up (cold factor 1, so every permit costs a stable
     * interval): every reservation of one permit pushes the next free ticket by the stable
     * interval of the rate in force when it was decided, so after {@code k} reservations the next
     * one is told to wait between {@code k} of the shorter and {@code k} of the longer interval.
     * A lost reservation would make it shorter, one counted twice longer.
     */
    @Test
    void setRateRacingReservations_frozenClock_noReservationLost() throws Exception {
        List<Algorithm<? extends Cell>> algorithms = List.of(SmoothBursty.of(Rate.perSecond(1_000)),
                WarmUp.builder().rate(Rate.perSecond(1_000)).warmUp(Duration.ofMillis(10)).coldFactor(1).build());
        for (Algorithm<? extends Cell> algorithm : algorithms) {
            TokenBucketLimiter.Sleeper frozen = nanos -> { }; // the clock never moves
            BlockingLimiter<?> limiter = BlockingLimiter.of(algorithm, clock, frozen);
            long admitted = race(() -> {
                limiter.acquire();
                return 1;
            }, i -> limiter.setRate(i % 2 == 0 ? 2_000 : 1_000));
            long shortest = 500_000L; // 1/2000 s
            long longest = 1_000_000L;
            long next = limiter.acquire().toNanos();
            assertTrue(next >= admitted * shortest && next <= admitted * (longest + 1),
                    algorithm + ": " + admitted + " reservations, the next one waits " + next + " ns");
        }
    }

    /** A count-returning action that may throw. */
    private interface Action {
        long run() throws Exception;
    }

    /** A rate change number {@code i}. */
    private interface Change {
        void apply(int i);
    }

    /** Threads released together run {@code action} while one thread applies rate changes. */
    private static long race(Action action, Change change) throws Exception {
        int threads = 6;
        int each = 1_000;
        CyclicBarrier go = new CyclicBarrier(threads + 1);
        AtomicLong admitted = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < each; i++) {
                        admitted.addAndGet(action.run());
                    }
                    return null;
                }));
            }
            Future<?> changer = pool.submit(() -> {
                go.await();
                for (int i = 0; !done.get() || i < 20; i++) {
                    change.apply(i);
                }
                return null;
            });
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS); // rethrows any exception
            }
            done.set(true);
            changer.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        return admitted.get();
    }

    private static int drain(BlockingLimiter<?> limiter) {
        int n = 0;
        while (limiter.tryAcquire()) {
            n++;
        }
        return n;
    }
}
