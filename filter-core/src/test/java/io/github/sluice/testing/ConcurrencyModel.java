package io.github.sluice.testing;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;

/** A semaphore that refuses instead of blocking, and whose releases never go below zero. */
public final class ConcurrencyModel implements Model {

    private final long max;
    private final long retryAfterNanos;
    private long inFlight;

    /**
     * @param max permits held at once
     * @param retryAfterNanos the nominal retry-after of a refusal
     */
    public ConcurrencyModel(long max, long retryAfterNanos) {
        this.max = max;
        this.retryAfterNanos = retryAfterNanos;
    }

    @Override
    public Decision acquire(long now, long cost) {
        if (cost > max) {
            return new Decision(Outcome.DENIED, max, max - inFlight, 0, Decision.NEVER, 0);
        }
        if (inFlight + cost > max) {
            return new Decision(Outcome.DENIED, max, max - inFlight, 0, retryAfterNanos, 0);
        }
        inFlight += cost;
        return new Decision(Outcome.ALLOWED, max, max - inFlight, 0, 0, 0);
    }

    @Override
    public void release(long now, long cost) {
        inFlight = Math.max(0, inFlight - cost);
    }

    /** Permits are interchangeable: a refund is a release. */
    @Override
    public void refund(long now, long cost, int call) {
        release(now, cost);
    }

    /** @return the permits held */
    public long inFlight() {
        return inFlight;
    }
}
