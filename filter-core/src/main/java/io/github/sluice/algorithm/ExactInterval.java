package io.github.sluice.algorithm;

import io.github.sluice.core.Cell;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import java.math.BigInteger;

/**
 * The exact interval of a {@link Rate} for the one-word algorithms (token bucket, GCRA, policing
 * leaky bucket), so that a rate like 7 per minute keeps its schedule (7 per 60 s forever) instead
 * of losing a fraction of a nanosecond per permit to an interval rounded up.
 *
 * <h2>Ticks</h2>
 * The interval {@code period / permits}, in lowest terms {@code P / N} nanoseconds, is exactly
 * {@code P} ticks of {@code 1/N} ns. The state word holds an instant in ticks: {@code nanos * N}
 * <em>modulo 2^64</em> (Java's wrapping {@code long} arithmetic). Epoch-anchored nanoseconds
 * already use 61 bits, so an instant in ticks does not fit in a word; but every decision only
 * needs the difference between the stored instant and now, which wrapping subtraction gives
 * exactly while it is below 2^63 ticks. Algorithms compare with differences, never with
 * {@code <} on raw words. With {@code N = 1} (any rate whose period is a multiple of its permits
 * in nanoseconds, such as {@code 100/1m}) ticks are nanoseconds and nothing wraps: the arithmetic
 * is the previous one exactly.
 *
 * <h2>The horizon</h2>
 * A key idle for {@code 2^64 / N} ns or more (at least 208 days, as {@code N <= 1024}) can wrap
 * around to look recent. The algorithms read a difference beyond the state's possible range (its
 * window plus {@link #SLACK} for a thread holding an old clock reading) as "idle", so a wrapped
 * word is misread only with probability {@code (window + slack) / 2^64} per such key, and the
 * misreading is a state the bucket could have had: it refuses, never over-admits, and for at most
 * one window. The registry drops idle keys (they are fresh) long before, in practice.
 *
 * <h2>Fallback</h2>
 * A reduced denominator above {@link #MAX_DENOMINATOR}, or a window longer than
 * {@link #MAX_WINDOW_TICKS} ticks, uses {@code N = 1} and the interval rounded up to the
 * nanosecond, as before: the rate is never exceeded, and the error is below one part in
 * {@code interval} nanoseconds.
 *
 * <p>Immutable and thread-safe.
 */
final class ExactInterval {

    /** The largest reduced denominator scheduled exactly: the horizon is then at least 2^54 ns. */
    static final long MAX_DENOMINATOR = 1024;
    /** The longest window, in ticks, scheduled exactly: room for the slack below 2^63. */
    static final long MAX_WINDOW_TICKS = 1L << 61;
    /** How far (in ticks) a stale clock reading may lag the state: about 73 minutes at N = 1024. */
    static final long SLACK = 1L << 52;

    /** {@code N}: ticks per nanosecond. */
    final long den;
    /** {@code P}: ticks per permit. */
    final long step;
    /** The interval in nanoseconds, rounded up. */
    final long nanos;
    /** {@code tokens * step}: the window in ticks. */
    final long window;

    private ExactInterval(long den, long step, long nanos, long window) {
        this.den = den;
        this.step = step;
        this.nanos = nanos;
        this.window = window;
    }

    /**
     * @param rate the rate
     * @param tokens the permits that fill the window (burst, capacity, burst + 1)
     * @param what the window's name for an overflow message, e.g. {@code burst * interval}
     * @return the exact interval, or the rounded one (see "Fallback")
     * @throws IllegalArgumentException if the rate is above one per nanosecond or the window
     *     exceeds {@link Checks#MAX_NANOS}
     */
    static ExactInterval of(Rate rate, long tokens, String what) {
        long nanos = Checks.intervalNanos(rate.permits(), rate.periodNanos());
        long g = BigInteger.valueOf(rate.periodNanos()).gcd(BigInteger.valueOf(rate.permits())).longValueExact();
        long p = rate.periodNanos() / g;
        long n = rate.permits() / g;
        BigInteger window = BigInteger.valueOf(tokens).multiply(BigInteger.valueOf(p));
        if (window.divide(BigInteger.valueOf(n)).compareTo(BigInteger.valueOf(Checks.MAX_NANOS)) > 0) {
            Checks.product(what, tokens, nanos); // throws, with the usual message
        }
        if (n > MAX_DENOMINATOR || window.compareTo(BigInteger.valueOf(MAX_WINDOW_TICKS)) > 0) {
            return new ExactInterval(1, nanos, nanos, Checks.product(what, tokens, nanos));
        }
        return new ExactInterval(n, p, nanos, window.longValueExact());
    }

    /** @return {@code nanos * den}, wrapping: an instant in ticks */
    long ticks(long nanos) {
        return nanos * den;
    }

    /** @return a non-negative number of ticks in nanoseconds, rounded up */
    long nanosCeil(long ticks) {
        return den == 1 ? ticks : ticks / den + (ticks % den > 0 ? 1 : 0);
    }

    /** @return the word to store for {@code ticks}: never {@link Cell#RETIRED} (one tick later) */
    static long word(long ticks) {
        return ticks == Cell.RETIRED ? ticks + 1 : ticks;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExactInterval e && e.den == den && e.step == step;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(den * 31 + step);
    }
}
