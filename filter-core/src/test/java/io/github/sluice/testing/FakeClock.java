package io.github.sluice.testing;

import io.github.sluice.core.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so. Thread-safe. */
public final class FakeClock implements Clock {

    private final AtomicLong nanos;

    /** Starts at a realistic epoch reading (2026-01-01T00:00:00Z). */
    public FakeClock() {
        this(1_767_225_600_000_000_000L);
    }

    /** @param start the first reading, nanoseconds */
    public FakeClock(long start) {
        this.nanos = new AtomicLong(start);
    }

    @Override
    public long nanos() {
        return nanos.get();
    }

    /** @param d how far to move forward */
    public void advance(Duration d) {
        advanceNanos(d.toNanos());
    }

    /** @param n nanoseconds to move forward, {@code >= 0} */
    public void advanceNanos(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("a clock never goes back: " + n);
        }
        nanos.addAndGet(n);
    }

    /** @param t the new reading; must not be earlier than the current one */
    public void set(long t) {
        long now = nanos.get();
        if (t < now) {
            throw new IllegalArgumentException("a clock never goes back: " + t + " < " + now);
        }
        nanos.set(t);
    }
}
