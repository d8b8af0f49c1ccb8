package io.github.sluice.spring.boot;

import io.github.sluice.http.Enforcer;
import io.github.sluice.store.StoreListener;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link StoreListener} a shared store is built with, so that its degraded and recovered
 * events reach the enforcer's counts (and so the {@code sluice} health contributor, the endpoint
 * and the meters), although the store must exist before the enforcer that uses it: events are
 * passed on to the enforcer's metrics once it is {@linkplain #connect connected}, and the last
 * event of each store before that is replayed then (a Redis that is down at start-up).
 *
 * <p>The starter's {@code RedisStore} uses this bean; a store bean of your own should too:
 * {@code RedisStore.builder().uri(url).listener(storeEvents).build()}.
 *
 * <p>Thread-safe: the store calls it from its own thread.
 */
public final class SluiceStoreEvents implements StoreListener {

    /** Each store's last event before the connection: its cause if degraded, {@link #RECOVERED} if not. */
    private final Map<String, Object> before = new ConcurrentHashMap<>();
    private static final Object RECOVERED = new Object();
    private volatile StoreListener target;

    /** Creates the listener, not yet connected. */
    public SluiceStoreEvents() {
    }

    /**
     * Passes every later event to the enforcer's metrics, after the last event of each store that
     * came before.
     *
     * @param enforcer the enforcer using the store
     * @throws NullPointerException if {@code enforcer} is null
     */
    public synchronized void connect(Enforcer enforcer) {
        StoreListener t = Objects.requireNonNull(enforcer, "enforcer").metrics();
        before.forEach((store, last) -> {
            if (last == RECOVERED) {
                t.storeRecovered(store);
            } else {
                t.storeDegraded(store, (Throwable) last);
            }
        });
        before.clear();
        target = t;
    }

    @Override
    public void storeDegraded(String store, Throwable cause) {
        StoreListener t = target;
        if (t != null) {
            t.storeDegraded(store, cause);
            return;
        }
        synchronized (this) {
            if (target == null) {
                before.put(store, cause == null ? new IllegalStateException("degraded") : cause);
                return;
            }
        }
        target.storeDegraded(store, cause);
    }

    @Override
    public void storeRecovered(String store) {
        StoreListener t = target;
        if (t != null) {
            t.storeRecovered(store);
            return;
        }
        synchronized (this) {
            if (target == null) {
                before.put(store, RECOVERED);
                return;
            }
        }
        target.storeRecovered(store);
    }

    @Override
    public String toString() {
        return "SluiceStoreEvents{" + (target == null ? "not connected" : "connected") + '}';
    }
}
