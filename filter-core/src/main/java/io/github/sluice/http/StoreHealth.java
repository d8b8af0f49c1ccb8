package io.github.sluice.http;

import io.github.sluice.core.Clock;

/**
 * Whether a shared store (Redis) answers, as its degraded and recovered events told an
 * {@link EnforcerMetrics}: the state now, how long it has been degraded, and how often.
 *
 * <p>A store that never reported an event has no {@code StoreHealth}: it was never degraded.
 * Repeated events of the same kind are idempotent: a second "degraded" while degraded neither
 * restarts the episode nor counts a new one. Thread-safe: events (rare, on the store's own thread)
 * and the duration reads (a scrape) take this object's lock; nothing on the request path does.
 */
public final class StoreHealth {

    private final String name;
    private final Clock clock;
    private volatile boolean degraded;
    /** Clock reading when the current episode began; meaningful while {@link #degraded}. */
    private volatile long since;
    /** Nanoseconds spent degraded in episodes that have ended. */
    private volatile long closedNanos;
    private volatile long degradations;

    StoreHealth(String name, Clock clock) {
        this.name = name;
        this.clock = clock;
    }

    synchronized void degrade() {
        if (!degraded) {
            since = clock.nanos();
            degradations = degradations + 1;
            degraded = true;
        }
    }

    synchronized void recover() {
        if (degraded) {
            closedNanos = closedNanos + Math.max(0, clock.nanos() - since);
            degraded = false;
        }
    }

    /** @return the store's name, as it reports its events (e.g. {@code redis}) */
    public String name() {
        return name;
    }

    /** @return {@code true} while the store's failure policy decides instead of the store */
    public boolean degraded() {
        return degraded;
    }

    /** @return how long the current degraded episode has lasted, in nanoseconds; {@code 0} when healthy */
    public long degradedForNanos() {
        synchronized (this) {
            return degraded ? Math.max(0, clock.nanos() - since) : 0;
        }
    }

    /** @return time spent degraded in all episodes, the current one included, in nanoseconds */
    public long degradedTotalNanos() {
        synchronized (this) {
            return closedNanos + (degraded ? Math.max(0, clock.nanos() - since) : 0);
        }
    }

    /** @return how many times the store became degraded */
    public long degradations() {
        return degradations;
    }

    @Override
    public String toString() {
        return "StoreHealth{" + name + (degraded ? ", degraded" : ", healthy") + ", degradations=" + degradations + '}';
    }
}
