package io.github.sluice.redis;

import io.github.sluice.store.StoreListener;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the store events it is told about, in order, with the thread each came on; notices calls
 * that overlap (two threads inside the listener at once). Optionally blocks in every call until
 * {@link #unblock()}, as a listener that posts to a hung webhook would.
 */
final class RecordingListener implements StoreListener {

    final AtomicInteger degraded = new AtomicInteger();
    final AtomicInteger recovered = new AtomicInteger();
    volatile String store;
    final ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
    /** "degraded" or "recovered", in the order the calls ended. */
    final ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
    /** The name of the thread of every call. */
    final ConcurrentLinkedQueue<String> threads = new ConcurrentLinkedQueue<>();
    /** Calls that began while another was still running. */
    final AtomicInteger overlaps = new AtomicInteger();
    /** Calls that have begun (counted before any blocking). */
    final AtomicInteger entered = new AtomicInteger();
    private final AtomicInteger inside = new AtomicInteger();
    private final CountDownLatch gate;

    /** A listener that returns at once. */
    RecordingListener() {
        this.gate = null;
    }

    private RecordingListener(CountDownLatch gate) {
        this.gate = gate;
    }

    /** @return a listener whose calls block until {@link #unblock()} */
    static RecordingListener blocking() {
        return new RecordingListener(new CountDownLatch(1));
    }

    /** Lets blocked calls return, and later ones not block. */
    void unblock() {
        if (gate != null) {
            gate.countDown();
        }
    }

    @Override
    public void storeDegraded(String store, Throwable cause) {
        enter();
        try {
            this.store = store;
            degraded.incrementAndGet();
            events.add("degraded: " + cause);
            block();
            order.add("degraded");
        } finally {
            inside.decrementAndGet();
        }
    }

    @Override
    public void storeRecovered(String store) {
        enter();
        try {
            recovered.incrementAndGet();
            events.add("recovered");
            block();
            order.add("recovered");
        } finally {
            inside.decrementAndGet();
        }
    }

    /** @return whether the events so far alternate degraded, recovered, ... from a degradation */
    boolean alternates() {
        List<String> seen = List.copyOf(order);
        for (int i = 0; i < seen.size(); i++) {
            if (!seen.get(i).equals(i % 2 == 0 ? "degraded" : "recovered")) {
                return false;
            }
        }
        return true;
    }

    private void enter() {
        threads.add(Thread.currentThread().getName());
        entered.incrementAndGet();
        if (inside.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
    }

    private void block() {
        if (gate == null) {
            return;
        }
        try {
            // Bounded so that a test that fails does not hang the build.
            gate.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
