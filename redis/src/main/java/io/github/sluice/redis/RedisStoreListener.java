package io.github.sluice.redis;

import java.time.Duration;

/**
 * Told when a {@link RedisStore} starts deciding without Redis (its circuit breaker opened) and
 * when Redis answers again.
 *
 * <p>Called on the thread that saw the transition (a request thread, or the store's probe
 * thread), never under a lock; implementations must be fast, thread-safe and must not throw (an
 * exception is logged and ignored).
 */
public interface RedisStoreListener {

    /** A listener that does nothing. */
    RedisStoreListener NONE = new RedisStoreListener() { };

    /**
     * The store is degraded: decisions follow its {@link FailurePolicy} until Redis answers.
     *
     * @param store the store's name
     * @param cause the last failure
     */
    default void storeDegraded(String store, Throwable cause) {
    }

    /**
     * Redis answered again; decisions go to Redis.
     *
     * @param store the store's name
     * @param downtime how long the store was degraded
     */
    default void storeRecovered(String store, Duration downtime) {
    }
}
