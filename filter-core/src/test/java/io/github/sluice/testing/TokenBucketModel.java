package io.github.sluice.testing;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;

/**
 * A token bucket as x/time/rate describes it, kept as a credit of token-nanoseconds and the time of
 * the last update (rather than the implementation's single "base" instant): starts full, refills
 * continuously, caps at the burst, refuses {@code n > burst} forever.
 */
public final class TokenBucketModel implements Model {

    private final long interval;
    private final long burst;
    private final long capacity;
    /** Tokens times the interval: nanoseconds of refill held. */
    private long credit;
    private long last;
    private boolean started;

    /**
     * @param intervalNanos nanoseconds per token
     * @param burst the capacity in tokens
     */
    public TokenBucketModel(long intervalNanos, long burst) {
        this.interval = intervalNanos;
        this.burst = burst;
        this.capacity = intervalNanos * burst;
    }

    private void advance(long now) {
        if (!started) {
            started = true;
            credit = capacity;
        } else {
            credit = Math.min(capacity, credit + (now - last));
        }
        last = now;
    }

    @Override
    public Decision acquire(long now, long n) {
        advance(now);
        long tokens = credit / interval;
        long reset = capacity - credit;
        if (n > burst) {
            return new Decision(Outcome.DENIED, burst, tokens, reset, Decision.NEVER, 0);
        }
        long need = n * interval;
        if (credit < need) {
            return new Decision(Outcome.DENIED, burst, tokens, reset, need - credit, 0);
        }
        credit -= need;
        return new Decision(Outcome.ALLOWED, burst, credit / interval, capacity - credit, 0, 0);
    }

    /** A refund puts tokens back, never more than the burst. */
    @Override
    public void release(long now, long n) {
        advance(now);
        credit = Math.min(capacity, credit + Math.min(n, burst) * interval);
    }
}
