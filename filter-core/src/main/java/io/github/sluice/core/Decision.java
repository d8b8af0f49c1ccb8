package io.github.sluice.core;

import io.github.sluice.internal.Units;
import java.util.Objects;

/**
 * The immutable answer of a limiter to one request: the same shape for every algorithm.
 *
 * <p>All durations are in nanoseconds and never negative. A refusal is a {@code Decision} with
 * outcome {@link Outcome#DENIED}, never an exception.
 *
 * <p>The hot paths of Sluice fill a reusable {@link MutableDecision} instead, so that a decision
 * allocates nothing; this class is the convenient form for callers that keep the answer.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Decision {

    /**
     * The value of {@link #retryAfterNanos()} when the request can never be admitted, for example a
     * cost greater than the limiter's capacity. {@link #retryable()} is {@code false} then.
     */
    public static final long NEVER = Long.MAX_VALUE;

    private final Outcome outcome;
    private final long limit;
    private final long remaining;
    private final long resetNanos;
    private final long retryAfterNanos;
    private final long delayNanos;

    /**
     * Creates a decision. Most callers obtain decisions from a limiter instead.
     *
     * @param outcome what was decided
     * @param limit the quota of the limiter, in permits ({@code >= 0})
     * @param remaining permits left after this decision ({@code >= 0})
     * @param resetNanos time until the quota is fully restored ({@code >= 0})
     * @param retryAfterNanos for a denial, the delay after which the same request would be
     *     admitted ({@code > 0}, or {@link #NEVER}); {@code 0} otherwise
     * @param delayNanos for a shaped decision, how long the caller must wait before proceeding
     *     ({@code > 0}); {@code 0} otherwise
     * @throws NullPointerException if {@code outcome} is null
     * @throws IllegalArgumentException if a value is out of its range
     */
    public Decision(Outcome outcome, long limit, long remaining, long resetNanos,
            long retryAfterNanos, long delayNanos) {
        this.outcome = Objects.requireNonNull(outcome, "outcome");
        this.limit = nonNegative("limit", limit);
        this.remaining = nonNegative("remaining", remaining);
        this.resetNanos = nonNegative("resetNanos", resetNanos);
        this.retryAfterNanos = nonNegative("retryAfterNanos", retryAfterNanos);
        this.delayNanos = nonNegative("delayNanos", delayNanos);
        if (outcome == Outcome.DENIED && retryAfterNanos == 0) {
            throw new IllegalArgumentException("retryAfterNanos must be > 0 for a denial but was 0");
        }
        if (outcome != Outcome.DENIED && retryAfterNanos != 0) {
            throw new IllegalArgumentException(
                    "retryAfterNanos must be 0 unless denied but was " + retryAfterNanos);
        }
        if (outcome != Outcome.SHAPED && delayNanos != 0) {
            throw new IllegalArgumentException(
                    "delayNanos must be 0 unless shaped but was " + delayNanos);
        }
    }

    private static long nonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0 but was " + value);
        }
        return value;
    }

    /** @return what was decided */
    public Outcome outcome() {
        return outcome;
    }

    /** @return {@code true} if the request proceeds, now or after {@link #delayNanos()} */
    public boolean allowed() {
        return outcome != Outcome.DENIED;
    }

    /** @return the quota of the limiter, in permits */
    public long limit() {
        return limit;
    }

    /** @return permits left after this decision */
    public long remaining() {
        return remaining;
    }

    /** @return nanoseconds until the quota is fully restored (the window's end for windows) */
    public long resetNanos() {
        return resetNanos;
    }

    /**
     * @return for a denial, nanoseconds after which the same request would be admitted, or
     *     {@link #NEVER}; {@code 0} when not denied
     */
    public long retryAfterNanos() {
        return retryAfterNanos;
    }

    /** @return {@code false} if this denial can never turn into an admission (cost too large) */
    public boolean retryable() {
        return retryAfterNanos != NEVER;
    }

    /** @return for a shaped decision, nanoseconds to wait before proceeding; {@code 0} otherwise */
    public long delayNanos() {
        return delayNanos;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Decision d
                && outcome == d.outcome
                && limit == d.limit
                && remaining == d.remaining
                && resetNanos == d.resetNanos
                && retryAfterNanos == d.retryAfterNanos
                && delayNanos == d.delayNanos;
    }

    @Override
    public int hashCode() {
        return Objects.hash(outcome, limit, remaining, resetNanos, retryAfterNanos, delayNanos);
    }

    @Override
    public String toString() {
        return "Decision{" + outcome + ", limit=" + limit + ", remaining=" + remaining
                + ", reset=" + Units.duration(resetNanos)
                + (outcome == Outcome.DENIED ? ", retryAfter=" + (retryAfterNanos == NEVER ? "never" : Units.duration(retryAfterNanos)) : "")
                + (outcome == Outcome.SHAPED ? ", delay=" + Units.duration(delayNanos) : "") + '}';
    }
}
