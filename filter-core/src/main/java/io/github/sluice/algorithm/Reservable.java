package io.github.sluice.algorithm;

import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;

/**
 * An algorithm that, like Guava's {@code RateLimiter}, can reserve permits in the future: a
 * request that is not due yet may take its place in the key's schedule and be told how long to
 * wait, so that callers that block queue in the order they reserved. The blocking facade
 * {@code io.github.sluice.limiter.BlockingLimiter} uses it; algorithms without it are waited for
 * by retrying.
 *
 * <p>Implementations are lock-free and thread-safe, and obey the {@link Cell} rules: a
 * reservation is published by one compare-and-set; a refusal never writes.
 *
 * @param <S> the algorithm's state type
 */
public interface Reservable<S extends Cell> {

    /**
     * Reserves {@code cost} permits if the key's next free moment is at most {@code maxWaitNanos}
     * after {@code now}, and otherwise takes nothing. An admission that must wait is reported as
     * {@linkplain MutableDecision#shape shaped} with the wait as its delay (the caller sleeps it);
     * one that need not wait, as allowed. The receipt undoes it through the algorithm's
     * {@code refund}.
     *
     * @param cell the key's state
     * @param now the clock reading, nanoseconds
     * @param cost permits, {@code >= 1}
     * @param maxWaitNanos the longest acceptable wait, {@code >= 0}
     * @param out where to write the decision, or {@code null}
     * @return {@link io.github.sluice.core.Algorithm#ADMITTED}, {@code DENIED} or {@code RETIRED}
     */
    int reserve(S cell, long now, long cost, long maxWaitNanos, MutableDecision out);

    /**
     * Returns Guava's {@code storedPermits}: the permits the key has saved up by being idle, as
     * of {@code now} (Guava's resync), which the next requests spend before waiting.
     *
     * @param cell the key's state
     * @param now the clock reading, nanoseconds
     * @return stored permits, {@code >= 0}; 0 for a retired cell
     */
    double storedPermits(S cell, long now);
}
