package io.github.sluice.store;

/**
 * Told when a shared {@link Store} (Redis, say) stops deciding with authority and when it does
 * again: for metrics, logs and alerting. Both methods have empty defaults, so an implementation
 * overrides only what it needs.
 *
 * <p>A store takes its listener from its builder and documents the thread it calls it on (the
 * Redis store: one event thread per store, one call at a time, in the order of the transitions).
 * Implementations must be thread-safe and should return quickly; an exception thrown is caught
 * and logged by the store, and never changes a decision.
 *
 * <p>{@code io.github.sluice.http.EnforcementListener} extends this interface, so the enforcer's
 * listener can be handed to a store and hears its events with the request events.
 */
public interface StoreListener {

    /** A listener that ignores both events. */
    StoreListener NONE = new StoreListener() { };

    /**
     * The store stopped answering and its failure policy took over (fail-open, fail-closed or a
     * local fallback): decisions are no longer authoritative until {@link #storeRecovered}.
     *
     * @param store the store's name, e.g. {@code redis}
     * @param cause why, or {@code null}
     */
    default void storeDegraded(String store, Throwable cause) {
    }

    /**
     * The store answers again; decisions are authoritative again.
     *
     * @param store the store's name
     */
    default void storeRecovered(String store) {
    }
}
