package io.github.sluice.store;

/**
 * Told when the {@link ShardedRegistry} drops a key.
 *
 * <p>Called on the thread that dropped the key, outside any lock; implementations must be fast,
 * thread-safe and must not throw (an exception is caught and ignored).
 */
@FunctionalInterface
public interface EvictionListener {

    /** A listener that does nothing. */
    EvictionListener NONE = (policy, key, lossless) -> { };

    /**
     * A key was dropped.
     *
     * @param policy the policy's name
     * @param key the key
     * @param lossless {@code true} if the key's state was fresh (idle eviction, which changes no
     *     decision); {@code false} if a key with history was dropped at the hard bound on keys
     */
    void evicted(String policy, String key, boolean lossless);
}
