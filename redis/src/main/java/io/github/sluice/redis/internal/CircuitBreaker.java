package io.github.sluice.redis.internal;

import io.github.sluice.core.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens after a number of consecutive failed calls to Redis; while open, decisions never reach
 * Redis and a probe decides when to close it again.
 *
 * <p>There is no half-open state letting requests through: the probe (a {@code PING} off the
 * request path) is the only test, so no request pays for Redis being down once it is open.
 *
 * <p>Thread-safe. {@link #isOpen()} and {@link #success()} take no lock, and {@code success()}
 * does not write when nothing failed, so the hot path keeps the counter's cache line shared.
 * Transitions take the breaker's lock, briefly.
 */
public final class CircuitBreaker {

    /**
     * Told about transitions, under the breaker's lock, on the thread that caused them (a request
     * thread when calls fail): the calls come in the order of the transitions, never two at once.
     * Implementations must only record the transition and return at once, without blocking,
     * logging or calling out (see {@link Reporter}).
     */
    public interface Transitions {
        /**
         * The breaker opened.
         *
         * @param cause the last failure
         */
        void opened(Throwable cause);

        /**
         * The breaker closed.
         *
         * @param downNanos how long it was open, nanoseconds
         */
        void closed(long downNanos);
    }

    private final int threshold;
    private final Clock clock;
    private final Transitions transitions;
    private final AtomicInteger failures = new AtomicInteger();
    private volatile boolean open;
    private boolean halted;
    private long openedAt;

    /**
     * @param threshold consecutive failures that open the breaker, {@code >= 1}
     * @param clock the real clock, to measure downtime
     * @param transitions told about transitions
     */
    public CircuitBreaker(int threshold, Clock clock, Transitions transitions) {
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be >= 1 but was " + threshold);
        }
        this.threshold = threshold;
        this.clock = clock;
        this.transitions = transitions;
    }

    /** @return {@code true} if decisions must not go to Redis */
    public boolean isOpen() {
        return open;
    }

    /** Records a successful call. */
    public void success() {
        if (failures.get() != 0) {
            failures.set(0);
        }
    }

    /**
     * Records a failed call; opens the breaker at the threshold.
     *
     * @param cause what failed
     */
    public void failure(Throwable cause) {
        if (failures.incrementAndGet() >= threshold && !open) {
            open(cause);
        }
    }

    /**
     * Opens the breaker now, whatever the count (e.g. the first connection failed).
     *
     * @param cause why
     */
    public void open(Throwable cause) {
        synchronized (this) {
            if (open) {
                return;
            }
            openedAt = clock.nanos();
            open = true;
            transitions.opened(cause);
        }
    }

    /** Closes the breaker: the probe saw Redis answer. Does nothing once {@linkplain #halt halted}. */
    public void close() {
        synchronized (this) {
            if (!open || halted) {
                return;
            }
            failures.set(0);
            open = false;
            transitions.closed(clock.nanos() - openedAt);
        }
    }

    /**
     * Opens the breaker for good, without telling anyone: the store is closed, and its requests
     * follow the failure policy from now on without counting failures or reporting transitions.
     */
    public void halt() {
        synchronized (this) {
            halted = true;
            open = true;
        }
    }
}
