package io.github.sluice.testing;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * redis-cell's {@code rate_limit()} transcribed step by step over a key that may be missing (its
 * Redis TTL elapsed), in BigInteger arithmetic so that no quantity can overflow.
 */
public final class GcraModel implements Model {

    private final BigInteger emission;
    private final BigInteger tolerance;
    private final long limit;
    /** Ticks per nanosecond (1 for a whole number of nanoseconds per emission). */
    private final long den;
    /** The stored TAT, or {@code null} when the key is missing (never written, or expired). */
    private BigInteger stored;
    /** The time of every acquisition, by number. */
    private final List<Long> calls = new ArrayList<>();

    /**
     * @param emissionNanos the emission interval
     * @param maxBurst redis-cell's {@code max_burst}
     */
    public GcraModel(long emissionNanos, long maxBurst) {
        this(emissionNanos, 1, maxBurst);
    }

    private GcraModel(long emissionTicks, long den, long maxBurst) {
        this.emission = BigInteger.valueOf(emissionTicks);
        this.den = den;
        this.limit = maxBurst + 1;
        this.tolerance = emission.multiply(BigInteger.valueOf(limit));
    }

    /**
     * redis-cell's algorithm with Sluice's exact emission interval {@code period / permits} ns
     * (in lowest terms, in ticks of {@code 1/permits'} ns; rounded up beyond a denominator of
     * 1024), durations reported rounded up to the nanosecond.
     *
     * @param rate the rate
     * @param maxBurst redis-cell's max_burst
     * @return the model
     */
    public static GcraModel exact(io.github.sluice.core.Rate rate, long maxBurst) {
        long g = BigInteger.valueOf(rate.periodNanos()).gcd(BigInteger.valueOf(rate.permits())).longValueExact();
        long p = rate.periodNanos() / g;
        long n = rate.permits() / g;
        if (n > 1024) {
            return new GcraModel((rate.periodNanos() + rate.permits() - 1) / rate.permits(), 1, maxBurst);
        }
        return new GcraModel(p, n, maxBurst);
    }

    private long nanos(BigInteger ticks) {
        BigInteger[] qr = ticks.divideAndRemainder(BigInteger.valueOf(den));
        return qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0);
    }

    @Override
    public Decision acquire(long nowNanos, long quantity) {
        calls.add(nowNanos);
        BigInteger now = BigInteger.valueOf(nowNanos).multiply(BigInteger.valueOf(den));
        expire(now);
        BigInteger increment = emission.multiply(BigInteger.valueOf(quantity));
        BigInteger tat = stored == null ? now : stored;
        BigInteger newTat = now.compareTo(tat) > 0 ? now.add(increment) : tat.add(increment);
        BigInteger allowAt = newTat.subtract(tolerance);
        BigInteger diff = now.subtract(allowAt);
        BigInteger ttl;
        boolean limited = diff.signum() < 0;
        long retryAfter = 0;
        if (limited) {
            retryAfter = increment.compareTo(tolerance) <= 0 ? nanos(diff.negate())
                    : Decision.NEVER;
            ttl = tat.subtract(now);
        } else {
            ttl = newTat.subtract(now);
            stored = newTat;
        }
        BigInteger next = tolerance.subtract(ttl);
        long remaining = 0;
        if (next.compareTo(emission.negate()) > 0) {
            remaining = next.divide(emission).longValueExact(); // truncates towards zero, like Rust's cast
        }
        return new Decision(limited ? Outcome.DENIED : Outcome.ALLOWED, limit, Math.max(0, remaining),
                nanos(ttl), retryAfter, 0);
    }

    /**
     * Sluice's refund: move the TAT back by the refunded emission less the time elapsed since the
     * admission (a TAT that became due meanwhile was the admission's, given back by time), never
     * before now.
     */
    @Override
    public void refund(long nowNanos, long cost, int call) {
        BigInteger now = BigInteger.valueOf(nowNanos).multiply(BigInteger.valueOf(den));
        expire(now);
        BigInteger back = emission.multiply(BigInteger.valueOf(Math.min(cost, limit)))
                .subtract(BigInteger.valueOf(nowNanos - calls.get(call)).multiply(BigInteger.valueOf(den)));
        if (stored == null || back.signum() <= 0) {
            return;
        }
        stored = stored.subtract(back).max(now);
    }

    /** Redis drops the key when its TTL (TAT - now at the last write) has elapsed. */
    private void expire(BigInteger now) {
        if (stored != null && stored.compareTo(now) <= 0) {
            stored = null;
        }
    }
}
