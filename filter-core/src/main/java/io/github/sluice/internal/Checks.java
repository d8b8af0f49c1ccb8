package io.github.sluice.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks whose messages name the parameter, the rule and the value, in the user's units:
 * durations as {@code 10ms} or {@code 2m} ({@link Units}), never ISO-8601 or raw nanoseconds, and
 * no bound that only exists because of the width of a {@code long}.
 */
public final class Checks {

    /** The longest duration any algorithm accepts: about 73 years, so sums of durations cannot overflow. */
    public static final long MAX_NANOS = 1L << 61;

    private Checks() {
    }

    /**
     * @param name the parameter
     * @param value the value
     * @param min the smallest value allowed
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value < min}
     */
    public static long atLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + " but was " + value);
        }
        return value;
    }

    /**
     * @param name the parameter
     * @param value the value
     * @param min the smallest value allowed
     * @param max the largest value allowed
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value} is outside {@code [min, max]}
     */
    public static long between(String name, long value, long min, long max) {
        if (value < min) {
            // A bound near Long.MAX_VALUE is no rule a user should read; the lower one is.
            throw new IllegalArgumentException(max >= MAX_NANOS
                    ? name + " must be >= " + min + " but was " + value
                    : name + " must be between " + min + " and " + max + " but was " + value);
        }
        if (value > max) {
            throw new IllegalArgumentException(max >= MAX_NANOS
                    ? name + " is too large: it must be less than 2^63 - 1"
                    : name + " must be between " + min + " and " + max + " but was " + value);
        }
        return value;
    }

    /**
     * Converts a positive duration to nanoseconds.
     *
     * @param name the parameter
     * @param value the duration
     * @return nanoseconds, in {@code [1, MAX_NANOS]}
     * @throws NullPointerException if {@code value} is null
     * @throws IllegalArgumentException if it is zero, negative or too long
     */
    public static long positiveNanos(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0 but was " + Units.duration(value));
        }
        if (value.compareTo(Duration.ofNanos(MAX_NANOS)) > 0) {
            throw new IllegalArgumentException(
                    name + " must be at most " + Units.MAX_DURATION + " but was " + Units.duration(value));
        }
        return value.toNanos();
    }

    /**
     * Converts a non-negative duration to nanoseconds.
     *
     * @param name the parameter
     * @param value the duration
     * @return nanoseconds, in {@code [0, MAX_NANOS]}
     * @throws NullPointerException if {@code value} is null
     * @throws IllegalArgumentException if it is negative or too long
     */
    public static long nonNegativeNanos(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isZero()) {
            return 0;
        }
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must be >= 0 but was " + Units.duration(value));
        }
        return positiveNanos(name, value);
    }

    /**
     * The nanoseconds between two permits of a rate of {@code permits} per {@code periodNanos},
     * rounded up so that the configured rate is never exceeded.
     *
     * @param permits permits per period, {@code >= 1}
     * @param periodNanos the period, {@code >= 1}
     * @return the interval, {@code >= 1}
     * @throws IllegalArgumentException if the rate is above one permit per nanosecond
     */
    public static long intervalNanos(long permits, long periodNanos) {
        atLeast("permits", permits, 1);
        atLeast("period", periodNanos, 1);
        if (permits > periodNanos) {
            throw new IllegalArgumentException("rate must be at most 1 permit per nanosecond (" + periodNanos
                    + " per " + Units.duration(periodNanos) + ") but was " + permits + " per "
                    + Units.duration(periodNanos));
        }
        return (periodNanos + permits - 1) / permits;
    }

    /**
     * The interval of a rate given in permits per second.
     *
     * @param name the parameter
     * @param perSecond the rate
     * @return nanoseconds between two permits, {@code >= 1}
     * @throws IllegalArgumentException if the rate is NaN, infinite, not positive, above one per
     *     nanosecond, or below one per {@link #MAX_NANOS}
     */
    public static long intervalNanos(String name, double perSecond) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException(name + " must be a finite number > 0 but was " + perSecond);
        }
        double interval = Math.ceil(1e9 / perSecond);
        if (interval < 1 || interval > MAX_NANOS) {
            throw new IllegalArgumentException(name + " must be between one per " + Units.MAX_DURATION
                    + " and 1e9 per second but was " + perSecond);
        }
        return (long) interval;
    }

    /**
     * The exact fraction a rate given as a {@code double} per second stands for: the simplest
     * fraction {@code permits / seconds} (the first convergent of the double's continued fraction)
     * that rounds to the same double, so {@code 7 / 60.0} is 7 permits per minute and
     * {@code 1 / 3.0} one permit per 3 seconds. If no such fraction has a period within
     * {@link #MAX_NANOS}, the closest convergent below the double whose period fits (never a
     * faster rate than the double). Configuration time only: allocates.
     *
     * @param name the parameter, for the message
     * @param perSecond the rate, finite, {@code > 0} and at most {@code 1e9}
     * @return {@code {permits, periodNanos}}, {@code permits >= 1},
     *     {@code 1 <= periodNanos <= MAX_NANOS}
     * @throws IllegalArgumentException if the rate is NaN, infinite, not positive, above one per
     *     nanosecond, or so small that one permit takes longer than {@link #MAX_NANOS}
     */
    public static long[] perSecondFraction(String name, double perSecond) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException(name + " must be a finite number > 0 but was " + perSecond);
        }
        if (perSecond > 1e9) {
            throw new IllegalArgumentException(name + " must be at most 1e9 per second (one per nanosecond) but was "
                    + perSecond);
        }
        BigDecimal exact = new BigDecimal(perSecond);
        BigInteger u = exact.unscaledValue();
        BigInteger v = BigInteger.ONE;
        if (exact.scale() > 0) {
            v = BigInteger.TEN.pow(exact.scale());
        } else {
            u = u.multiply(BigInteger.TEN.pow(-exact.scale()));
        }
        BigInteger maxSeconds = BigInteger.valueOf(MAX_NANOS / 1_000_000_000L);
        BigInteger h2 = BigInteger.ZERO;
        BigInteger h1 = BigInteger.ONE;
        BigInteger k2 = BigInteger.ONE;
        BigInteger k1 = BigInteger.ZERO;
        long[] below = null;
        boolean even = true;
        while (v.signum() != 0) {
            BigInteger[] qr = u.divideAndRemainder(v);
            BigInteger h = qr[0].multiply(h1).add(h2);
            BigInteger k = qr[0].multiply(k1).add(k2);
            if (k.compareTo(maxSeconds) > 0) {
                break;
            }
            if (h.signum() > 0) {
                if (h.bitLength() < 53 && h.doubleValue() / k.doubleValue() == perSecond) {
                    return new long[] {h.longValueExact(), k.longValueExact() * 1_000_000_000L};
                }
                if (even && h.bitLength() < 63) {
                    below = new long[] {h.longValueExact(), k.longValueExact() * 1_000_000_000L};
                }
            }
            h2 = h1;
            h1 = h;
            k2 = k1;
            k1 = k;
            u = v;
            v = qr[1];
            even = !even;
        }
        if (below == null && !belowMinimumRate(perSecond)) {
            // Just above the minimum, no convergent below the rate has a period that fits: the
            // minimum itself is not faster than asked.
            return new long[] {1, MAX_NANOS};
        }
        if (below == null) {
            throw new IllegalArgumentException(name + " must be at least one per " + Units.MAX_DURATION
                    + " (longer intervals do not fit in signed 64-bit nanoseconds with room for a burst)"
                    + " but was " + perSecond + " per second, one every about "
                    + Math.round(1 / perSecond / 86_400 / 365.25) + " years; TokenBucketLimiter and"
                    + " BlockingLimiter.create accept such a rate (the burst is spent, nothing refills)");
        }
        return below;
    }

    /**
     * Whether a rate is positive but below one permit per {@link #MAX_NANOS} (about 73 years), the
     * slowest a {@link io.github.sluice.core.Rate} holds: x/time/rate's {@code Limit(1e-10)},
     * Guava's {@code create(Double.MIN_VALUE)}.
     *
     * @param perSecond a rate in permits per second
     * @return {@code true} if {@code 0 < perSecond < 1e9 / MAX_NANOS}
     */
    public static boolean belowMinimumRate(double perSecond) {
        return perSecond > 0 && perSecond < 1e9 / MAX_NANOS;
    }

    /**
     * Multiplies two non-negative values whose product is a duration in nanoseconds, failing
     * instead of overflowing past {@link #MAX_NANOS}.
     *
     * @param what the meaning of the product, for the message, e.g. {@code burst * interval}
     * @param a a factor, {@code >= 0}
     * @param b a factor, {@code >= 0}
     * @return {@code a * b}
     * @throws IllegalArgumentException if the product exceeds {@link #MAX_NANOS}
     */
    public static long product(String what, long a, long b) {
        if (a != 0 && b > MAX_NANOS / a) {
            throw new IllegalArgumentException(what + " would overflow: at most " + Units.MAX_DURATION
                    + " fits, and it would be about " + Math.round((double) a * b / 86_400e9) + "d");
        }
        return a * b;
    }
}
