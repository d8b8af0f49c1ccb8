package io.github.sluice.store;

/**
 * Told when the {@link ShardedRegistry} drops a key.
 *
 * <p>Called on the thread that dropped the key (the thread of a request that added a new key, or of
 * {@link ShardedRegistry#sweep}), after the registry released its locks; implementations must be
 * fast, thread-safe and must not throw (an exception is caught and ignored). A listener may call
 * the registry. A key dropped at the bound is chosen by the registry to give away as little as
 * possible; many lossy drops mean a flood of distinct keys or a bound too small for the traffic.
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
     *     decision); {@code false} if a key with history was dropped at the hard bound on keys (its
     *     next request starts from a fresh state), or, in the rare case that no shard could take
     *     it, if a new key's state was not kept after its first decision
     */
    void evicted(String policy, String key, boolean lossless);
}
