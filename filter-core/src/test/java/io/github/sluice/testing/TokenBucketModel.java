package io.github.sluice.testing;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
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
    /** Tokens times the interval: nanoseconds of refill held. */
    private long credit;
    private long last;
    private boolean started;
    /** The time of every acquisition, by number. */
    private final List<Long> calls = new ArrayList<>();

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
        calls.add(now);
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

    /**
     * A refund puts the admission's tokens back, less what refilled since it was made (that much
     * of it may have been given back by time already), never more than the burst.
     */
    @Override
    public void refund(long now, long n, int call) {
        long back = Math.min(n, burst) * interval - (now - calls.get(call));
        advance(now);
        if (back > 0) {
            credit = Math.min(capacity, credit + back);
        }
    }
}
