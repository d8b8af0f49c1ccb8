package io.github.sluice.store;

import io.github.sluice.core.MutableDecision;

/**
 * One key space's part of a request that several policies decide together: the key space, the
 * key, the permits asked for, and the holder the store writes the decision into. The claims of one
 * request form a chain, in policy order, through {@link #next()}; {@link Store#acquireAll} takes
 * the chain whole.
 *
 * <p>The enforcer's own claims are the entries of its verdicts, one object per applied policy, so
 * that deciding a request copies nothing. Other callers build a chain with
 * {@link #of(KeySpace, String, long, MutableDecision, Claim)}.
 *
 * <p>A claim does not change while a store decides it, except its decision, which the store
 * writes. Not thread-safe: a chain belongs to the one request that decides it.
 */
public interface Claim {

    /** @return the key space that decides this claim */
    KeySpace space();

    /** @return the client key, non-null and already bounded in length */
    String key();

    /** @return the permits asked for, {@code >= 0} */
    long cost();

    /**
     * @return the request's partition of the key space's algorithm (see
     *     {@link KeySpace#acquire(String, int, long, MutableDecision)}), by default
     *     {@link io.github.sluice.core.Algorithm#NO_PARTITION}
     */
    default int partition() {
        return io.github.sluice.core.Algorithm.NO_PARTITION;
    }

    /** @return the holder the store writes this claim's decision into, never {@code null} */
    MutableDecision decision();

    /**
     * Returns a reading of {@code clock} that this claim's request took before the store decides
     * it (the enforcer reads the clock to check its override cache, and the decision is then taken
     * at that instant rather than at a second reading), or {@link MutableDecision#NO_READING}. A
     * store may decide the claim at the reading returned instead of reading its clock, and must
     * only pass its own clock: a reading is comparable with its own clock's only. The default has
     * none.
     *
     * @param clock the clock the store decides by
     * @return a reading of that clock taken by this request, or {@link MutableDecision#NO_READING}
     */
    default long nanos(io.github.sluice.core.Clock clock) {
        return MutableDecision.NO_READING;
    }

    /** @return the next claim of the same request, or {@code null} if this is the last */
    Claim next();

    /**
     * Makes a claim that precedes {@code next} in a chain. Build a chain from its last claim to
     * its first: {@code Claim.of(a, "k", 1, da, Claim.of(b, "k", 1, db, null))}.
     *
     * @param space the key space
     * @param key the client key, already bounded in length
     * @param cost permits asked for, {@code >= 0}
     * @param decision where the store writes the decision
     * @param next the claim after this one, or {@code null} for the last
     * @return the claim
     * @throws NullPointerException if {@code space}, {@code key} or {@code decision} is null
     * @throws IllegalArgumentException if {@code cost < 0}
     */
    static Claim of(KeySpace space, String key, long cost, MutableDecision decision, Claim next) {
        return new SimpleClaim(space, key, cost, decision, next);
    }
}
