package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The script's ticks: the coarsest exact unit, its bounds, and its fallbacks (see
 * {@link Schedule}).
 */
class ScheduleTest {

    private static Schedule of(Rate rate, long tokens) {
        TokenBucket tb = TokenBucket.builder().rate(rate).burst(tokens).build();
        return Schedule.of("burst * interval", rate, tb.intervalNanos(), tokens);
    }

    @Test
    void sevenPerMinute_ticksOfASeventhOfAMicrosecond() {
        Schedule s = of(Rate.of(7, Duration.ofMinutes(1)), 10);
        assertEquals(7, s.ticks);
        assertEquals(60_000_000, s.step);
        assertTrue(s.nanos);
        // ceil(ticks * 1000 / 7) ns: one interval is 8,571,428,572 ns, as memory reports it
        assertEquals(8_571_428_572L, (s.step * s.scale + s.divisor - 1) / s.divisor);
    }

    @Test
    void wholeMicrosecondRate_isThePreviousArithmetic() {
        Schedule s = of(Rate.perSecond(10), 5);
        assertEquals(1, s.ticks);
        assertEquals(100_000, s.step);
        assertEquals(1000, s.scale);
        assertEquals(1, s.divisor);
    }

    @Test
    void randomRates_theScheduleIsExactAndWithinTheBounds() {
        Random random = new Random(14);
        int fallbacks = 0;
        for (int i = 0; i < 10_000; i++) {
            long permits = 1 + random.nextInt(5000);
            long period = permits + (long) (random.nextDouble() * 3_600_000_000_000L);
            long tokens = 1 + random.nextInt(1000);
            Rate rate = Rate.of(permits, Duration.ofNanos(period));
            Schedule s = of(rate, tokens);
            assertTrue(s.ticks >= 1 && s.ticks <= 1_024_000, rate + ": " + s.ticks);
            assertTrue(tokens * s.step <= Schedule.MAX_WINDOW, rate + " x " + tokens);
            // step / ticks us is the interval memory keeps: P / N ns, or its rounding up
            long g = gcd(period, permits);
            long p = period / g;
            long n = permits / g;
            if (n > 1024) {
                p = (period + permits - 1) / permits;
                n = 1;
            }
            if (s.ticks == 1 && tokens * (p / gcd(p, 1000 * n)) > Schedule.MAX_WINDOW) {
                // Too long a window in exact ticks: the interval rounded up to the microsecond
                assertEquals(((period + permits - 1) / permits + 999) / 1000, s.step, rate + " x " + tokens);
                fallbacks++;
                continue;
            }
            // Exact, in lowest terms: the coarsest tick in which the schedule is whole
            assertEquals(p * s.ticks, s.step * 1000 * n, rate + ": " + s.step + "/" + s.ticks + " us");
            assertEquals(1, gcd(s.step, s.ticks), rate + ": " + s.step + "/" + s.ticks + " us");
        }
        assertTrue(fallbacks > 0 && fallbacks < 5000, "both cases drawn: " + fallbacks);
    }

    @Test
    void windowBeyondTwoToThe51Ticks_roundsToMicroseconds() {
        // 7/1m: 60,000,000 ticks of 1/7 us per permit; 2^51 ticks hold 37.5 million permits
        Schedule s = of(Rate.of(7, Duration.ofMinutes(1)), 40_000_000);
        assertEquals(1, s.ticks);
        assertEquals(8_571_429, s.step);
        assertFalse(s.nanos);
    }

    @Test
    void windowBeyondNanosecondReplies_repliesMicrosecondsOnTheExactSchedule() {
        // 1,000,000 permits: 6e13 ticks of 1/7 us, but 6e16 of memory's 1/7 ns (above 2^51)
        Schedule s = of(Rate.of(7, Duration.ofMinutes(1)), 1_000_000);
        assertEquals(7, s.ticks);
        assertEquals(60_000_000, s.step);
        assertFalse(s.nanos);
        assertEquals(7, s.divisor);
    }

    @Test
    void windowBeyondLua_isRefusedNamingTheParameter() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Schedule.of("token-bucket burst * interval", Rate.perHour(1), 3_600_000_000_000L, 2_000_000));
        assertTrue(e.getMessage().contains("token-bucket burst * interval"), e.getMessage());
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
