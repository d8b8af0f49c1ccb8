package io.github.sluice.redis;

import io.github.sluice.http.EnforcementListener;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the store events it is told about. */
final class RecordingListener implements EnforcementListener {

    final AtomicInteger degraded = new AtomicInteger();
    final AtomicInteger recovered = new AtomicInteger();
    volatile String store;
    final java.util.concurrent.ConcurrentLinkedQueue<String> events = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @Override
    public void storeDegraded(String store, Throwable cause) {
        this.store = store;
        degraded.incrementAndGet();
        events.add("degraded: " + cause);
    }

    @Override
    public void storeRecovered(String store) {
        recovered.incrementAndGet();
        events.add("recovered");
    }
}
