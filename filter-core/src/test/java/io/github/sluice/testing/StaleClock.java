package io.github.sluice.testing;

import io.github.sluice.core.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock a test sets to any reading, earlier ones included: a reading older than one already
 * used stands for a thread that read the clock, then was descheduled while others went on. A hook
 * can run once, inside the next reading, to stand for another request that slips in at that
 * moment (between an acquisition and its refund, for instance). Thread-safe.
 */
public final class StaleClock implements Clock {

    private final AtomicLong nanos;
    private final AtomicReference<Runnable> hook = new AtomicReference<>();
    private final AtomicInteger skip = new AtomicInteger();

    /** @param start the first reading, nanoseconds */
    public StaleClock(long start) {
        this.nanos = new AtomicLong(start);
    }

    @Override
    public long nanos() {
        if (hook.get() != null && skip.getAndDecrement() <= 0) {
            Runnable h = hook.getAndSet(null);
            if (h != null) {
                h.run();
            }
        }
        return nanos.get();
    }

    /** @param t the next readings, earlier than the current one or not */
    public void set(long t) {
        nanos.set(t);
    }

    /** @return the current reading, without running the hook */
    public long peek() {
        return nanos.get();
    }

    /** @param h runs once, at the start of the next reading */
    public void onNextReading(Runnable h) {
        onReading(1, h);
    }

    /**
     * @param n which of the next readings runs the hook: 1 for the next one
     * @param h runs once, at the start of that reading
     */
    public void onReading(int n, Runnable h) {
        skip.set(n - 1);
        hook.set(h);
    }
}
