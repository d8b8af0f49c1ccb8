package io.github.sluice.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateTest {

    @Test
    void perUnit_equalsOfWithThatPeriod() {
        assertEquals(Rate.of(5, Duration.ofSeconds(1)), Rate.perSecond(5));
        assertEquals(Rate.of(100, Duration.ofMinutes(1)), Rate.perMinute(100));
        assertEquals(Rate.of(7, Duration.ofHours(1)), Rate.perHour(7));
        assertEquals(Rate.of(1000, Duration.ofDays(1)), Rate.perDay(1000));
        assertEquals(Rate.perMinute(100).hashCode(), Rate.of(100, Duration.ofSeconds(60)).hashCode());
    }

    @Test
    void rate_keepsItsPermitsAndPeriodExactly_notAQuotient() {
        Rate third = Rate.of(1, Duration.ofSeconds(3));

        assertEquals(1, third.permits());
        assertEquals(Duration.ofSeconds(3), third.period());
        assertEquals(3_000_000_000L, third.periodNanos());
    }

    @Test
    void sameSpeedWithOtherPermits_isNotEqual_becauseThePermitsAreTheDefaultBurst() {
        assertNotEquals(Rate.perMinute(100), Rate.of(200, Duration.ofMinutes(2)));
    }

    @Test
    void toString_isThePolicyLanguage() {
        assertEquals("100/1m", Rate.perMinute(100).toString());
        assertEquals("1/3s", Rate.of(1, Duration.ofSeconds(3)).toString());
    }

    @Test
    void outOfRange_failsNamingTheParameterAndTheValue() {
        assertEquals("permits must be >= 1 but was 0",
                assertThrows(IllegalArgumentException.class, () -> Rate.perSecond(0)).getMessage());
        assertEquals("permits must be >= 1 but was -5",
                assertThrows(IllegalArgumentException.class, () -> Rate.of(-5, Duration.ofSeconds(1))).getMessage());
        assertEquals("period must be > 0 but was 0s",
                assertThrows(IllegalArgumentException.class, () -> Rate.of(1, Duration.ZERO)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Rate.of(1, Duration.ofSeconds(-1)));
        assertThrows(NullPointerException.class, () -> Rate.of(1, null));
    }

    /**
     * Every positive rate at or above one permit per 2^61 ns is held, never faster than asked:
     * just above that minimum no continued-fraction convergent below the rate has a period that
     * fits, and the minimum itself is taken.
     */
    @Test
    void perSecond_justAboveTheMinimum_isTheMinimumNotRefused() {
        double minimum = 1e9 / (1L << 61);
        for (double r : new double[] {minimum, Math.nextUp(minimum), minimum * (1 + 1e-12), minimum * 1.0000001}) {
            Rate rate = Rate.perSecond(r);
            double perSecond = rate.permits() * 1e9 / rate.periodNanos();
            assertEquals(true, perSecond <= r, r + " read as " + rate);
            assertEquals(true, perSecond >= minimum * (1 - 1e-15), r + " read as " + rate);
        }
        assertThrows(IllegalArgumentException.class, () -> Rate.perSecond(Math.nextDown(minimum)));
    }
}
