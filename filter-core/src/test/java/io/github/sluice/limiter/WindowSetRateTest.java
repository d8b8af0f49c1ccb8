package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.RateChange;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockingLimiter#setRate} on the sliding window and the sliding log, case by case: the
 * rules of "Changing the rate" in {@code docs/algorithms.md} on a manual clock.
 * {@link WindowSetRateModelTest} checks the same rules against reference models over random
 * sequences.
 */
class WindowSetRateTest {

    private static final long MINUTE = 60_000_000_000L;

    private final FakeClock clock = new FakeClock();
    private final TokenBucketLimiter.Sleeper sleeper = clock::advanceNanos;

    /** Moves the clock to the next multiple of {@code length} since the epoch. */
    private void toBoundary(long length) {
        clock.advanceNanos(length - Math.floorMod(clock.nanos(), length));
    }

    private static int drain(BlockingLimiter<?> limiter) {
        int n = 0;
        while (limiter.tryAcquire()) {
            n++;
        }
        return n;
    }

    // ---- sliding window ----

    @Test
    void slidingWindow_raiseLimit_letsTheDifferenceInAtOnceAndKeepsTheSlots() {
        toBoundary(MINUTE);
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingWindow.of(5, Duration.ofMinutes(1)), clock, sleeper);
        assertEquals(5, drain(limiter));
        clock.advance(Duration.ofSeconds(20));
        limiter.setRate(Rate.of(8, Duration.ofMinutes(1)));
        assertEquals(Rate.of(8, Duration.ofMinutes(1)), limiter.rate());
        assertEquals(3, drain(limiter), "the 5 in the window are kept: 3 more of the new 8");
        clock.advance(Duration.ofSeconds(40).minusNanos(1));
        assertFalse(limiter.tryAcquire(), "the first slot has not left the window");
        clock.advanceNanos(1);
        assertEquals(5, drain(limiter), "its 5 left; the 3 taken 20 s in are still counted");
    }

    @Test
    void slidingWindow_lowerBelowTheCountThenRaise_refusesUntilSlotsLeaveAndForgetsNothing() {
        toBoundary(MINUTE);
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingWindow.of(10, Duration.ofMinutes(1)), clock, sleeper);
        for (int i = 0; i < 4; i++) {
            assertTrue(limiter.tryAcquire());
        }
        clock.advance(Duration.ofSeconds(30));
        for (int i = 0; i < 4; i++) {
            assertTrue(limiter.tryAcquire());
        }
        limiter.setRate(Rate.of(3, Duration.ofMinutes(1)));
        assertFalse(limiter.tryAcquire(), "8 in the window is over the new limit of 3");
        limiter.setRate(Rate.of(9, Duration.ofMinutes(1)));
        assertEquals(1, drain(limiter), "the 8 are remembered through the lower limit: 1 of 9 left");
        limiter.setRate(Rate.of(4, Duration.ofMinutes(1)));
        clock.advance(Duration.ofSeconds(30));
        assertFalse(limiter.tryAcquire(), "the first 4 left, the 5 taken at 30 s are still over 4");
        clock.advance(Duration.ofSeconds(30));
        assertEquals(4, drain(limiter), "a whole window later everything has left");
    }

    /** A longer window counts each permit for the new window, from (at latest) the end of its slot. */
    @Test
    void slidingWindow_longerWindow_keepsTheCountsForTheNewWindow() {
        toBoundary(2 * MINUTE);
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingWindow.of(10, Duration.ofMinutes(1)), clock, sleeper);
        assertEquals(10, drain(limiter));
        clock.advance(Duration.ofSeconds(1));
        limiter.setRate(Rate.of(10, Duration.ofMinutes(2)));
        clock.advance(Duration.ofSeconds(119).minusNanos(1));
        assertFalse(limiter.tryAcquire(), "taken in the first 12 s slot of a 2-minute window: counted 2 minutes");
        clock.advanceNanos(1);
        assertEquals(10, drain(limiter));
    }

    /**
     * A shorter window: the 10 permits, taken in the first 6 s slot, are dated the slot's last
     * nanosecond, which lies in the 3 s slot from 3 s to 6 s: they leave the 30 s window at 33 s
     * (3 s later than their own reading would make them, never earlier).
     */
    @Test
    void slidingWindow_shorterWindow_eachSlotMovesToTheNewSlotOfItsLastNanosecond() {
        toBoundary(MINUTE);
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingWindow.of(10, Duration.ofMinutes(1)), clock, sleeper);
        assertEquals(10, drain(limiter));
        clock.advance(Duration.ofSeconds(20));
        limiter.setRate(Rate.of(10, Duration.ofSeconds(30)));
        clock.advance(Duration.ofSeconds(13).minusNanos(1));
        assertFalse(limiter.tryAcquire());
        clock.advanceNanos(1);
        assertEquals(10, drain(limiter));
    }

    @Test
    void slidingWindow_windowTooShortForItsSlots_refusedWithTheBuildersMessageAndRateUnchanged() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingWindow.of(10, Duration.ofMinutes(1)), clock, sleeper);
        String message = assertThrows(IllegalArgumentException.class,
                () -> limiter.setRate(Rate.of(10, Duration.ofNanos(5)))).getMessage();
        assertTrue(message.startsWith("window must be at least 10ns (one per slot) but was 5ns"), message);
        assertEquals(Rate.of(10, Duration.ofMinutes(1)), limiter.rate());
    }

    /** A refund must not reopen a slot that a lowered limit left over its limit. */
    @Test
    void slidingWindow_refundIntoASlotCarriedOverItsLimit_admitsNothing() {
        SlidingWindow ten = SlidingWindow.of(10, Duration.ofMinutes(1));
        long t = clock.nanos();
        SlidingWindow.SlotCell cell = ten.newCell(t);
        MutableDecision out = new MutableDecision();
        assertEquals(Algorithm.ADMITTED, ten.acquire(cell, t, 8, out));
        long receipt = out.receipt();
        Algorithm<SlidingWindow.SlotCell> five = RateChange.withRate(ten, Rate.of(5, Duration.ofMinutes(1)));
        SlidingWindow.SlotCell carried = RateChange.carry(ten, cell, five, t);
        assertTrue(cell.retired());
        five.refund(carried, 3, receipt, clock);
        assertEquals(Algorithm.DENIED, five.acquire(carried, t, 1, null), "8 taken less 3 refunded is still over 5");
        // Without the excess, the same refund into a slot within the limit gives back.
        SlidingWindow.SlotCell within = ten.newCell(t);
        assertEquals(Algorithm.ADMITTED, ten.acquire(within, t, 5, out));
        SlidingWindow.SlotCell kept = RateChange.carry(ten, within, five, t);
        five.refund(kept, 3, out.receipt(), clock);
        assertEquals(Algorithm.ADMITTED, five.acquire(kept, t, 3, null), "the slot's own receipt still refunds");
    }

    // ---- sliding log ----

    /**
     * Five permits one second apart, then the limit lowered to 2: the ring keeps the newest two,
     * and the next admission waits until the older of them (at 3 s) leaves, 13 s in; exactly as
     * the whole log under a limit of 2 would decide.
     */
    @Test
    void slidingLog_lowerLimit_keepsTheNewestWhichDecideAsTheWholeLog() throws InterruptedException {
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingLog.of(5, Duration.ofSeconds(10)), clock, sleeper);
        long t0 = clock.nanos();
        for (int i = 0; i < 5; i++) {
            assertTrue(limiter.tryAcquire());
            clock.advance(Duration.ofSeconds(1));
        }
        limiter.setRate(Rate.of(2, Duration.ofSeconds(10)));
        assertEquals(Duration.ofSeconds(8), limiter.acquire(), "waits until 13 s, when the permit of 3 s leaves");
        assertEquals(t0 + 13_000_000_000L, clock.nanos());
        assertFalse(limiter.tryAcquire());
    }

    @Test
    void slidingLog_lowerThenRaise_remembersThePermitsBeyondTheLowerLimit() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingLog.of(5, Duration.ofSeconds(10)), clock, sleeper);
        for (int i = 0; i < 5; i++) {
            assertTrue(limiter.tryAcquire());
            clock.advance(Duration.ofSeconds(1));
        }
        limiter.setRate(Rate.of(2, Duration.ofSeconds(10)));
        limiter.setRate(Rate.of(6, Duration.ofSeconds(10)));
        assertEquals(1, drain(limiter), "all 5 in the window are remembered: 1 of 6 left");
        clock.advance(Duration.ofSeconds(5)); // 10 s: the permit of 0 s leaves
        assertEquals(1, drain(limiter));
    }

    @Test
    void slidingLog_newWindow_movesTheHorizonButBringsNothingBack() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingLog.of(5, Duration.ofSeconds(10)), clock, sleeper);
        assertEquals(5, drain(limiter));
        clock.advance(Duration.ofSeconds(5));
        limiter.setRate(Rate.of(5, Duration.ofSeconds(20)));
        clock.advance(Duration.ofSeconds(15).minusNanos(1));
        assertFalse(limiter.tryAcquire(), "counted 20 s now");
        clock.advanceNanos(1);
        limiter.setRate(Rate.of(5, Duration.ofSeconds(6)));
        assertEquals(5, drain(limiter), "the 5 left the 20 s window");
        clock.advance(Duration.ofSeconds(7));
        limiter.setRate(Rate.of(5, Duration.ofSeconds(60)));
        assertEquals(5, drain(limiter), "forgotten by the 6 s window: a longer one does not bring them back");
    }

    @Test
    void slidingLog_limitAboveTheCap_refusedWithTheBuildersMessageAndRateUnchanged() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(SlidingLog.of(100, Duration.ofMinutes(1)), clock, sleeper);
        assertTrue(limiter.tryAcquire());
        String message = assertThrows(IllegalArgumentException.class,
                () -> limiter.setRate(Rate.of(10_001, Duration.ofMinutes(1)))).getMessage();
        assertTrue(message.startsWith("limit must be at most 10000 for a sliding log"), message);
        message = assertThrows(IllegalArgumentException.class, () -> limiter.setRate(200.0)).getMessage();
        assertTrue(message.contains("but was 12000"), message);
        assertEquals(Rate.of(100, Duration.ofMinutes(1)), limiter.rate());
        assertEquals(99, drain(limiter), "the state is untouched");
        limiter.setRate(Rate.of(10_000, Duration.ofMinutes(1)));
        assertEquals(9_900, drain(limiter), "the cap itself is accepted");
    }

    // ---- setRate(double) on windows: the window is kept ----

    @Test
    void windows_setRatePerSecond_keepTheWindowAndTakeRateTimesWindowAsTheLimit() {
        BlockingLimiter<?>[] limiters = {
            BlockingLimiter.of(SlidingWindow.of(100, Duration.ofMinutes(1)), clock, sleeper),
            BlockingLimiter.of(SlidingLog.of(100, Duration.ofMinutes(1)), clock, sleeper),
            BlockingLimiter.of(FixedWindow.of(100, Duration.ofMinutes(1)), clock, sleeper),
        };
        for (BlockingLimiter<?> limiter : limiters) {
            limiter.setRate(2.5);
            assertEquals(Rate.of(150, Duration.ofMinutes(1)), limiter.rate(), limiter.toString());
            assertEquals(2.5, limiter.getRate(), 0.0);
            limiter.setRate(1 / 3.0);
            assertEquals(Rate.of(20, Duration.ofMinutes(1)), limiter.rate(), "read as the fraction 1/3 s");
            limiter.setRate(0.07);
            assertEquals(Rate.of(4, Duration.ofMinutes(1)), limiter.rate(), "4.2 per minute rounds down");
            String message = assertThrows(IllegalArgumentException.class, () -> limiter.setRate(0.01)).getMessage();
            assertEquals("permitsPerSecond must give at least 1 permit per " + limiter.algorithm().kind()
                    + " window of 1m (the limit is permitsPerSecond x window, rounded down) but was 0.01", message);
            assertEquals(Rate.of(4, Duration.ofMinutes(1)), limiter.rate(), "a refused change changes nothing");
        }
    }
}
