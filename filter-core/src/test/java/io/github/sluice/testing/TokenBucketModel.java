package io.github.sluice.testing;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import java.util.ArrayList;
import java.util.List;

/**
 * A token bucket as x/time/rate describes it, kept as a credit of token-nanoseconds and the time of
 * the last update (rather than the implementation's single "base" instant): starts full, refills
 * continuously, caps at the burst, refuses {@code n > burst} forever.
 */
public final class TokenBucketModel implements Model {

    private final long interval;
    private final long burst;
    private final long capacity;
    /** Ticks per nanosecond: the model counts in ticks of 1/den ns so that the interval is exact. */
    private final long den;
    private long credit;
    private long last;
    private boolean started;
    private final List<Long> calls = new ArrayList<>();

    /**
     * A bucket with a whole number of nanoseconds per token.
     *
     * @param intervalNanos nanoseconds per token
     * @param burst the capacity
     */
    public TokenBucketModel(long intervalNanos, long burst) {
        this(intervalNanos, 1, burst);
    }

    private TokenBucketModel(long periodTicks, long den, long burst) {
        this.interval = periodTicks;
        this.den = den;
        this.burst = burst;
        this.capacity = periodTicks * burst;
    }

    /**
     * The documented exact schedule of a rate: {@code period / permits} ns in lowest terms, in
     * ticks of {@code 1/permits'} ns; a reduced denominator above 1024 rounds the interval up.
     *
     * @param rate the rate
     * @param burst the capacity
     * @return the model
     */
    public static TokenBucketModel exact(Rate rate, long burst) {
        long g = java.math.BigInteger.valueOf(rate.periodNanos()).gcd(java.math.BigInteger.valueOf(rate.permits()))
                .longValueExact();
        long p = rate.periodNanos() / g;
        long n = rate.permits() / g;
        if (n > 1024) {
            return new TokenBucketModel((rate.periodNanos() + rate.permits() - 1) / rate.permits(), 1, burst);
        }
        return new TokenBucketModel(p, n, burst);
    }

    private void advance(long now) {
        if (!started) {
            started = true;
            credit = capacity;
        } else if (now - last >= capacity / den + 1) {
            credit = capacity;
        } else {
            credit = Math.min(capacity, credit + (now - last) * den);
        }
        last = now;
    }

    private long nanos(long ticks) {
        return ticks / den + (ticks % den > 0 ? 1 : 0);
    }

    @Override
    public Decision acquire(long now, long n) {
        calls.add(now);
        advance(now);
        long tokens = credit <= 0 ? 0 : credit / interval;
        long reset = nanos(capacity - credit);
        if (n > burst) {
            return new Decision(Outcome.DENIED, burst, tokens, reset, Decision.NEVER, 0);
        }
        long need = n * interval;
        if (credit < need) {
            return new Decision(Outcome.DENIED, burst, tokens, reset, nanos(need - credit), 0);
        }
        credit -= need;
        return new Decision(Outcome.ALLOWED, burst, credit / interval, nanos(capacity - credit), 0, 0);
    }

    @Override
    public void refund(long now, long n, int call) {
        long elapsed = now - calls.get(call);
        long back = elapsed >= capacity / den + 1 ? 0 : Math.min(n, burst) * interval - elapsed * den;
        advance(now);
        if (back > 0) {
            credit = Math.min(capacity, credit + back);
        }
    }
}
