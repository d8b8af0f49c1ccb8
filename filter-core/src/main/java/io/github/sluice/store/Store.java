package io.github.sluice.store;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;

/**
 * Where limiter state lives: the in-memory {@link ShardedRegistry}, or a shared store such as
 * Redis. Policies never know which; they hold a {@link KeySpace} per policy.
 *
 * <p>Implementations are thread-safe.
 */
public interface Store extends AutoCloseable {

    /**
     * Returns the key space of one policy, creating it on first use. Calling again with the same
     * name and an equal algorithm returns an equivalent key space sharing the same state.
     *
     * <p>Calling again with the same name and a <em>different</em> algorithm has one of two
     * behaviours, and each implementation must document which it has: it is refused with
     * {@link IllegalArgumentException} (the in-memory {@link ShardedRegistry} does this, since its
     * cells are shaped by their algorithm), or it is accepted as a policy change (say, on a
     * configuration reload): the new algorithm replaces the old one for that name, and whatever the
     * store cached for the old binding must no longer decide requests (the Redis store does this and
     * forgets its cached denials).
     *
     * @param name the policy's name ({@code [a-z0-9-]+})
     * @param algorithm the policy's algorithm
     * @return the key space, never {@code null}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the name or the algorithm is not acceptable to this
     *     store, or the name is already bound to a different algorithm and this store refuses
     *     rebinding
     */
    KeySpace keySpace(String name, Algorithm<?> algorithm);

    /**
     * Acquires on several key spaces for one request, all or nothing: either every acquisition
     * is admitted, or the permits taken are given back before this method returns. Every entry of
     * {@code out} is filled; after the first denial the remaining spaces are only peeked (cost
     * zero), so that their headers can still be reported.
     *
     * <p>A give-back is a {@linkplain KeySpace#refund refund} with the admission's receipt: it
     * returns the permits to the window, slot, log entries or schedule they were taken from, never
     * to a later one, and if the key's state has moved on meanwhile (other requests, a new window)
     * it returns only what is provably still the admission's own. A store that gives back after a
     * round trip carries the receipts its scripts returned.
     *
     * <p>The default implementation acquires one after the other; a remote store may do it in one
     * round trip.
     *
     * @param spaces the key spaces, in policy order
     * @param keys the key for each space
     * @param costs the cost for each space, {@code >= 0}
     * @param out the decision for each space
     * @param count how many entries of the arrays to use
     * @return {@code -1} if all were admitted, otherwise the index of the first denial
     */
    default int acquireAll(KeySpace[] spaces, String[] keys, long[] costs, MutableDecision[] out,
            int count) {
        int denied = -1;
        for (int i = 0; i < count; i++) {
            if (denied >= 0) {
                spaces[i].acquire(keys[i], 0, out[i]);
            } else if (!spaces[i].acquire(keys[i], costs[i], out[i])) {
                denied = i;
                for (int j = 0; j < i; j++) {
                    spaces[j].refund(keys[j], costs[j], out[j]);
                }
            }
        }
        return denied;
    }

    /** Releases resources (connections, threads). The default does nothing. */
    @Override
    default void close() {
    }
}
