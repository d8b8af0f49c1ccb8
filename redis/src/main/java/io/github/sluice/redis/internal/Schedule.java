package io.github.sluice.redis.internal;

import io.github.sluice.core.Rate;
import java.math.BigInteger;

/**
 * The exact schedule of a token bucket, GCRA or policing leaky bucket in the Lua scripts, which
 * hold every number in a double (integers exact below 2^53) and read Redis's clock in whole
 * microseconds.
 *
 * <h2>Ticks</h2>
 * The in-memory algorithm keeps the interval as the fraction {@code P / N} ns in lowest terms
 * ({@code N <= 1024}), or, past its limits, rounded up to whole nanoseconds ({@code N = 1}). In
 * microseconds that is {@code P / (1000 N)}, which in lowest terms is {@code step / ticks}: the
 * script counts in ticks of {@code 1 / ticks} µs, the coarsest unit in which both the clock
 * (whole microseconds) and every instant of the schedule are whole. It stores an instant as
 * whole microseconds plus a remainder of ticks, and computes only with differences from now in
 * ticks, which stay below the window (at most {@link #MAX_WINDOW} ticks) plus a bounded lead
 * for clock skew, so every value stays exact.
 *
 * <h2>Replies</h2>
 * Durations go back in nanoseconds, rounded up as the in-memory algorithm rounds them
 * ({@code ceil(ticks * scale / divisor)}), when the window in the in-memory algorithm's own
 * ticks fits the same bound; otherwise in microseconds, rounded up.
 *
 * <h2>Fallback</h2>
 * A window above {@link #MAX_WINDOW} ticks (a long window at a fine denominator) uses the
 * interval rounded up to whole microseconds, as before this schedule was exact: never more
 * permissive than memory, slower by less than one part in the interval in microseconds.
 *
 * <p>Immutable and thread-safe.
 */
final class Schedule {

    /** The longest window, in ticks, scheduled exactly: 2^51, leaving room below 2^53. */
    static final long MAX_WINDOW = 1L << 51;
    /** The in-memory algorithm's largest denominator scheduled exactly. */
    private static final long MAX_DENOMINATOR = 1024;
    /** The in-memory algorithm's longest window in its ticks. */
    private static final long MAX_MEMORY_WINDOW = 1L << 61;

    /** Ticks per microsecond. */
    final long ticks;
    /** Ticks per permit. */
    final long step;
    /** Reply durations are {@code ceil(ticks * scale / divisor)}. */
    final long scale;
    /** See {@link #scale}. */
    final long divisor;
    /** {@code true} if replies are nanoseconds, {@code false} for microseconds. */
    final boolean nanos;

    private Schedule(long ticks, long step, long scale, long divisor, boolean nanos) {
        this.ticks = ticks;
        this.step = step;
        this.scale = scale;
        this.divisor = divisor;
        this.nanos = nanos;
    }

    /**
     * @param name the window's name for messages, e.g. {@code token-bucket burst * interval}
     * @param rate the algorithm's rate
     * @param intervalNanos its interval rounded up to whole nanoseconds
     * @param tokens the permits that fill its window (burst, capacity, burst + 1)
     * @return the schedule
     * @throws IllegalArgumentException if even the rounded window cannot be held exactly by Lua
     */
    static Schedule of(String name, Rate rate, long intervalNanos, long tokens) {
        long g = gcd(rate.periodNanos(), rate.permits());
        long p = rate.periodNanos() / g;
        long n = rate.permits() / g;
        BigInteger memoryWindow = BigInteger.valueOf(tokens).multiply(BigInteger.valueOf(p));
        if (n > MAX_DENOMINATOR || memoryWindow.compareTo(BigInteger.valueOf(MAX_MEMORY_WINDOW)) > 0) {
            // The in-memory algorithm's own fallback: the interval rounded up to nanoseconds
            p = intervalNanos;
            n = 1;
        }
        long h = gcd(p, 1000 * n);
        long ticks = 1000 * n / h;
        long step = p / h;
        if (tokens <= MAX_WINDOW / step) {
            // Memory ticks (1/n ns) per script tick: h. Nanoseconds = ceil(t * h / n), exact
            // while the window in memory ticks fits too; else microseconds = ceil(t / ticks).
            boolean fits = tokens <= MAX_WINDOW / p;
            return fits ? new Schedule(ticks, step, h, n, true) : new Schedule(ticks, step, 1, ticks, false);
        }
        long us = Micros.ceil(name, intervalNanos);
        Micros.product(name, tokens, us);
        return new Schedule(1, us, 1, 1, false);
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
