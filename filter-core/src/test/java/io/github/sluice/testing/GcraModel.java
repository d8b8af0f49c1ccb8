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
    /** The stored TAT, or {@code null} when the key is missing (never written, or expired). */
    private BigInteger stored;
    /** The time of every acquisition, by number. */
    private final List<Long> calls = new ArrayList<>();

    /**
     * @param emissionNanos the emission interval
     * @param maxBurst redis-cell's {@code max_burst}
     */
    public GcraModel(long emissionNanos, long maxBurst) {
        this.emission = BigInteger.valueOf(emissionNanos);
        this.limit = maxBurst + 1;
        this.tolerance = emission.multiply(BigInteger.valueOf(limit));
    }

    @Override
    public Decision acquire(long nowNanos, long quantity) {
        calls.add(nowNanos);
        BigInteger now = BigInteger.valueOf(nowNanos);
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
            retryAfter = increment.compareTo(tolerance) <= 0 ? diff.negate().longValueExact()
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
                ttl.longValueExact(), retryAfter, 0);
    }

    /**
     * Sluice's refund: move the TAT back by the refunded emission less the time elapsed since the
     * admission (a TAT that became due meanwhile was the admission's, given back by time), never
     * before now.
     */
    @Override
    public void refund(long nowNanos, long cost, int call) {
        BigInteger now = BigInteger.valueOf(nowNanos);
        expire(now);
        BigInteger back = emission.multiply(BigInteger.valueOf(Math.min(cost, limit)))
                .subtract(BigInteger.valueOf(nowNanos - calls.get(call)));
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
