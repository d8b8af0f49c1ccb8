package io.github.sluice.store;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;

/**
 * One policy's per-key state inside a {@link Store}.
 *
 * <p>Thread-safe. The in-memory implementation is lock-free and allocates only when a key is
 * seen for the first time.
 */
public interface KeySpace {

    /** @return the policy's name */
    String name();

    /** @return the algorithm applied to every key */
    Algorithm<?> algorithm();

    /**
     * Decides one request for {@code key}.
     *
     * @param key the client key, non-null and already bounded in length
     * @param cost permits requested, {@code >= 0}; zero peeks without writing
     * @param out where the decision is written
     * @return {@code true} if admitted (allowed now, or shaped)
     */
    boolean acquire(String key, long cost, MutableDecision out);

    /**
     * Gives permits back: the end of a request for a concurrency limit, or a refund for a rate
     * limit. Releasing more than was taken never raises a key above its fresh state.
     *
     * @param key the client key
     * @param cost permits to give back, {@code >= 0}
     */
    void release(String key, long cost);

    /** @return the number of keys currently held (approximate under concurrent change) */
    long size();
}
