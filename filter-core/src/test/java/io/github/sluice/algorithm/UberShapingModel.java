package io.github.sluice.algorithm;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;

/**
 * Reference model of the shaping leaky bucket, written after uber-go/ratelimit's atomic limiter:
 * it remembers the time of the last permission issued and applies uber-go's three cases to find the
 * next one. A request of cost {@code n} is uber-go's {@code Take} for its first permission, the
 * other {@code n - 1} permissions following back to back. A new key has issued nothing (uber-go's
 * zero state: its first permission is {@code now}), or, with {@code earned}, starts as if it had
 * been quiet forever; a delay above {@code maxDelay} is refused without issuing anything (Sluice's
 * one addition). Header values are found by simulating
 * further requests on a copy of the state rather than by formula.
 */
final class UberShapingModel {

    private final long perRequest;
    private final long maxSlack;
    private final long maxDelay;
    private final long burst;
    /** {@link #last} of a key that has issued nothing (uber-go's zero state). */
    private static final long NONE = Long.MIN_VALUE;
    /** The time of the last permission issued. */
    private long last;

    UberShapingModel(long perRequest, long slack, long maxDelay, long now) {
        this(perRequest, slack, maxDelay, now, true);
    }

    UberShapingModel(long perRequest, long slack, long maxDelay, long now, boolean earned) {
        this.perRequest = perRequest;
        this.maxSlack = slack * perRequest;
        this.maxDelay = maxDelay;
        this.burst = slack + 1 + maxDelay / perRequest;
        this.last = earned ? now - maxSlack - perRequest : NONE;
    }

    /** uber-go's choice of the time of the next permission, given the last one. */
    private long nextPermission(long lastIssued, long now) {
        if (lastIssued == NONE) {
            return now;
        }
        if (maxSlack == 0 && now - lastIssued > perRequest) {
            return now;
        }
        if (maxSlack > 0 && now - lastIssued > maxSlack + perRequest) {
            return now - maxSlack;
        }
        return lastIssued + perRequest;
    }

    Decision take(long cost, long now) {
        if (cost > (1L << 61) / perRequest) {
            return new Decision(Outcome.DENIED, burst, remaining(last, now), reset(last, now),
                    Decision.NEVER, 0);
        }
        if (cost == 0) {
            return new Decision(Outcome.ALLOWED, burst, remaining(last, now), reset(last, now), 0, 0);
        }
        long first = nextPermission(last, now);
        long delay = Math.max(0, first - now);
        if (delay > maxDelay) {
            return new Decision(Outcome.DENIED, burst, remaining(last, now), reset(last, now),
                    delay - maxDelay, 0);
        }
        last = first + (cost - 1) * perRequest;
        return new Decision(delay == 0 ? Outcome.ALLOWED : Outcome.SHAPED, burst,
                remaining(last, now), reset(last, now), 0, delay);
    }

    /** @return the time of the last permission issued */
    long last() {
        return last;
    }

    /**
     * Hands back an admission of {@code cost} whose last permission was {@code lastIssued}: only
     * while that is still the last permission issued (a later request was already told its time,
     * and handing back earlier permissions would give the next request the same one).
     */
    void refund(long cost, long lastIssued, long now) {
        long quiet = now - maxSlack - perRequest;
        if (last == lastIssued && last > quiet) {
            last = Math.max(last - cost * perRequest, quiet);
        }
    }

    /** Counts single-permit requests arriving now that would be admitted within maxDelay. */
    private long remaining(long lastIssued, long now) {
        long count = 0;
        long l = lastIssued;
        while (count < burst) {
            long t = nextPermission(l, now);
            if (t - now > maxDelay) {
                break;
            }
            l = t;
            count++;
        }
        return count;
    }

    /** Time until uber-go's second case applies again: the slack is fully earned. */
    private long reset(long lastIssued, long now) {
        if (lastIssued == NONE) {
            return 0;
        }
        return Math.max(0, lastIssued + perRequest + maxSlack - now);
    }
}
