package io.github.sluice.redis.internal;

/**
 * Conversions between the nanoseconds of Sluice's algorithms and the microseconds of the Lua
 * scripts, which hold every value in a Lua number (a double, exact below 2^53).
 *
 * <p>Configured durations are rounded <em>up</em> to whole microseconds, so a rate or a window
 * on Redis is never more permissive than in memory; durations that Redis reports back are
 * multiplied by 1000. Clock readings are rounded down. All methods are pure and thread-safe.
 */
public final class Micros {

    /**
     * The largest configured duration accepted, in microseconds: 2^52 (about 142 years), so that
     * adding a duration to a Redis {@code TIME} reading (about 2^50.7 today) stays below 2^53.
     */
    public static final long MAX = 1L << 52;

    private Micros() {
    }

    /**
     * Converts a configured duration to microseconds, rounding up.
     *
     * @param name the parameter, for the message
     * @param nanos a duration in nanoseconds, {@code >= 0}
     * @return microseconds, in {@code [0, MAX]}
     * @throws IllegalArgumentException if {@code nanos} is negative or the result exceeds
     *     {@link #MAX}
     */
    public static long ceil(String name, long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException(name + " must be >= 0 ns but was " + nanos);
        }
        long us = nanos / 1000 + (nanos % 1000 == 0 ? 0 : 1);
        return checked(name, us);
    }

    /**
     * Checks that a value computed in microseconds (or a count) can be held exactly by Lua.
     *
     * @param name the parameter, for the message
     * @param value the value
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value} is outside {@code [0, MAX]}
     */
    public static long checked(String name, long value) {
        if (value < 0 || value > MAX) {
            throw new IllegalArgumentException(name + " must be between 0 and " + MAX
                    + " in the Redis store (integers exact in Lua) but was " + value);
        }
        return value;
    }

    /**
     * Multiplies two values that the script will multiply, checking the product stays exact.
     *
     * @param name the product's meaning, for the message
     * @param a a factor, {@code >= 0}
     * @param b a factor, {@code >= 0}
     * @return {@code a * b}
     * @throws IllegalArgumentException if the product exceeds {@link #MAX}
     */
    public static long product(String name, long a, long b) {
        if (a != 0 && b > MAX / a) {
            throw new IllegalArgumentException(name + " must be at most " + MAX
                    + " us in the Redis store (integers exact in Lua) but was " + a + " * " + b);
        }
        return a * b;
    }

    /**
     * Converts a clock reading to microseconds, rounding down.
     *
     * @param nanos nanoseconds since the epoch
     * @return microseconds since the epoch
     */
    public static long floor(long nanos) {
        return Math.floorDiv(nanos, 1000L);
    }

    /**
     * Converts microseconds reported by Redis to nanoseconds, saturating instead of overflowing.
     *
     * @param micros a duration, {@code >= 0}
     * @return nanoseconds, at most {@link Long#MAX_VALUE}
     */
    public static long toNanos(long micros) {
        if (micros <= 0) {
            return 0;
        }
        return micros > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : micros * 1000;
    }
}
