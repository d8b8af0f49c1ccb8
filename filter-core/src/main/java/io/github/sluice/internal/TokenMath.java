package io.github.sluice.internal;

import java.math.BigInteger;

/**
 * The integer-nanosecond arithmetic of a token bucket kept as one "base" instant, shared by
 * {@code TokenBucket} (the registry algorithm) and {@link io.github.sluice.limiter.TokenBucketLimiter} (the standalone
 * x/time/rate-style limiter) so that both decide identically.
 *
 * <p>A bucket of {@code burst} tokens, one every {@code interval} nanoseconds, is held as the
 * instant {@code base} at which it would have held zero tokens. Its credit at {@code now} is
 * {@code now - base} nanoseconds of tokens, capped at {@code capacity = burst * interval}; a
 * negative credit is a debt left by reservations. Taking {@code n} tokens adds
 * {@code n * interval} to the base.
 */
public final class TokenMath {

    private TokenMath() {
    }

    /**
     * Applies the refill up to {@code now}: the base of a bucket that cannot hold more than its
     * capacity.
     *
     * @param base the stored base, nanoseconds on the limiter's clock
     * @param now the clock reading, nanoseconds
     * @param capacity {@code burst * interval}, nanoseconds
     * @return the base to decide with: {@code max(base, now - capacity)}
     */
    public static long effectiveBase(long base, long now, long capacity) {
        return Math.max(base, now - capacity);
    }

    /**
     * Whole tokens held at {@code now}, never negative (a debt shows as zero tokens).
     *
     * @param base the effective base, nanoseconds on the limiter's clock
     * @param now the clock reading, nanoseconds
     * @param interval nanoseconds per token, {@code >= 1}
     * @return the whole tokens, {@code >= 0}
     */
    public static long wholeTokens(long base, long now, long interval) {
        long credit = now - base;
        return credit <= 0 ? 0 : credit / interval;
    }

    /**
     * Nanoseconds until the bucket is full again, never negative.
     *
     * @param base the effective base, nanoseconds on the limiter's clock
     * @param now the clock reading, nanoseconds
     * @param capacity {@code burst * interval}, nanoseconds
     * @return nanoseconds until full, {@code >= 0}
     */
    public static long resetNanos(long base, long now, long capacity) {
        return Math.max(0, base - (now - capacity));
    }

    /**
     * Converts a credit (or debt) measured at one interval into the same number of tokens at
     * another interval, rounded down to the nanosecond (towards fewer tokens, more debt), so that a
     * change of rate never grants a fraction of a token.
     *
     * @param credit nanoseconds of tokens at {@code fromInterval}, may be negative
     * @param fromInterval the old interval, {@code >= 1}
     * @param toInterval the new interval, {@code >= 1}
     * @return {@code floor(credit * toInterval / fromInterval)}, saturated to the long range
     */
    public static long rescale(long credit, long fromInterval, long toInterval) {
        if (fromInterval == toInterval) {
            return credit;
        }
        // Rare (runtime changes, cancellations across one): exactness matters more than speed.
        BigInteger[] qr = BigInteger.valueOf(credit).multiply(BigInteger.valueOf(toInterval))
                .divideAndRemainder(BigInteger.valueOf(fromInterval));
        BigInteger q = qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
        if (q.bitLength() > 62) {
            return q.signum() < 0 ? -(1L << 62) : 1L << 62;
        }
        return q.longValueExact();
    }
}
