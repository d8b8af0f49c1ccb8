package io.github.sluice.algorithm;

import io.github.sluice.internal.Units;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.internal.Checks;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;

/**
 * Concurrency limit with {@link java.util.concurrent.Semaphore} semantics (seed 003): at most
 * {@code maxInFlight} permits held at once per key; a request takes its permits when it starts and
 * gives them back with {@link #release} when it ends, however it ends. Nothing is restored by
 * time.
 *
 * <h2>Decisions</h2>
 * {@code limit} is {@code maxInFlight}, {@code remaining} the permits still free, {@code reset} 0
 * (nothing is restored by time). A denial's retry-after is a nominal {@value #RETRY_AFTER_MILLIS}
 * ms (the end of another request cannot be predicted), or {@link Decision#NEVER} when
 * {@code cost > maxInFlight}.
 *
 * <h2>Bounded wait</h2>
 * With {@code maxWait > 0}, a store's acquisition ({@link #acquireOrWait}) that finds no free
 * permit waits up to {@code maxWait} for a release instead of failing at once, like
 * {@code Semaphore.tryAcquire(timeout)}. Waiting is lazy and lossless: a waiter registers itself
 * before its last try, a release that sees a registered waiter bumps the cell's release count and
 * wakes the waiters under the cell's monitor, and a waiter only sleeps while that count is the one
 * it read before its try. Nothing is spent when nobody waits: the monitor is never touched then.
 * Waiters are not served in order (a non-fair semaphore). The wait is measured on the store's
 * {@link Clock}; the thread sleeps in real time for at most the remaining wait and re-reads the
 * clock when it wakes. The core {@link io.github.sluice.limiter.Limiter} never waits; a standalone
 * limiter that waits is {@link io.github.sluice.limiter.ConcurrencyLimiter#tryAcquire(Duration)}.
 *
 * <h2>State</h2>
 * One word per key, the permits in flight; a release never takes it below zero, and returns the
 * permits it found no match for (see {@link Algorithm#release(Cell, long, long)}): handing each
 * permit back exactly once is the caller's duty, and a second release while other requests hold
 * permits frees one of theirs, so the enforcer counts and logs every unmatched release. The
 * standalone {@link io.github.sluice.limiter.ConcurrencyLimiter}'s {@link io.github.sluice.limiter.Permit} enforces it. A key is fresh when it holds
 * no permit; the registry never evicts a key that holds permits, nor one with waiters.
 *
 * <p>Immutable and thread-safe.
 */
public final class Concurrency extends Algorithm<Concurrency.PermitCell> {

    /** The retry-after of a denial, in milliseconds. */
    public static final long RETRY_AFTER_MILLIS = 1000;

    private static final long RETRY_AFTER_NANOS = RETRY_AFTER_MILLIS * 1_000_000L;

    /**
     * A key's permits in flight (the {@link Cell} word) and the lazily used wait state.
     * Thread-safe.
     */
    public static final class PermitCell extends Cell {
        private static final VarHandle WAITERS;

        static {
            try {
                WAITERS = MethodHandles.lookup().findVarHandle(PermitCell.class, "waiters", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Threads inside {@link #acquireOrWait}'s waiting loop. */
        private volatile int waiters;
        /** Bumped under the monitor by every release that found a waiter. */
        private volatile int releases;

        PermitCell() {
            super(0);
        }

        /** @return the permits in flight, or {@link Cell#RETIRED} */
        public long inFlight() {
            return word();
        }

        /** @return the number of threads waiting for a release */
        public int waiters() {
            return waiters;
        }

        private void signal() {
            synchronized (this) {
                releases++;
                notifyAll();
            }
        }

        /** Sleeps until a release after {@code seen}, at most {@code nanos}; false if interrupted. */
        private boolean await(int seen, long nanos) {
            synchronized (this) {
                if (releases != seen) {
                    return true;
                }
                try {
                    wait(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    private final long maxInFlight;
    private final long maxWait;

    private Concurrency(long maxInFlight, long maxWait) {
        this.maxInFlight = maxInFlight;
        this.maxWait = maxWait;
    }

    /** @return a builder; {@code maxInFlight} must be set */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@code maxInFlight} permits per key, refused at once when all are held
     * ({@code concurrency 50}): {@code Concurrency.of(50)}. For a bounded wait, use the
     * {@link #builder()}.
     *
     * @param maxInFlight permits held at once, {@code >= 1}
     * @return the algorithm
     * @throws IllegalArgumentException if {@code maxInFlight < 1}
     */
    public static Concurrency of(long maxInFlight) {
        return builder().maxInFlight(maxInFlight).build();
    }

    /** @return the permits a key may hold at once */
    public long maxInFlight() {
        return maxInFlight;
    }

    /** @return the longest wait for a release, in nanoseconds; 0 for none */
    public long maxWaitNanos() {
        return maxWait;
    }

    @Override
    public String kind() {
        return "concurrency";
    }

    @Override
    public long limit() {
        return maxInFlight;
    }

    /** @return 0: a concurrency limit has no window */
    @Override
    public long windowNanos() {
        return 0;
    }

    /**
     * @return 32: a {@link PermitCell} (header, the word, the access stamp, the waiter and release
     *     counts). A key on which requests wait also gets a monitor, outside the Java heap.
     */
    @Override
    public long bytesPerKey() {
        return objectBytes(1, 3, 0);
    }

    /** @return {@code true}: permits are handed back by {@link #release} */
    @Override
    public boolean concurrency() {
        return true;
    }

    /** @return {@code false}: permits go back whatever the time */
    @Override
    public boolean readsClockAtRelease() {
        return false;
    }

    /** @return {@code true} only with a bounded wait, whose deadline is measured from the reading */
    @Override
    public boolean readsClockToDecide() {
        return maxWait > 0;
    }

    @Override
    public PermitCell newCell(long now) {
        return new PermitCell();
    }

    @Override
    public int acquire(PermitCell cell, long now, long cost, MutableDecision out) {
        while (true) {
            long held = cell.word();
            if (held == Cell.RETIRED) {
                return RETIRED;
            }
            if (cost > maxInFlight - held) {
                if (out != null) {
                    out.deny(maxInFlight, maxInFlight - held, 0,
                            cost > maxInFlight ? Decision.NEVER : RETRY_AFTER_NANOS);
                }
                return DENIED;
            }
            if (cost == 0 || cell.casWord(held, held + cost)) {
                if (out != null) {
                    out.allow(maxInFlight, maxInFlight - held - cost, 0);
                }
                return ADMITTED;
            }
        }
    }

    @Override
    public int acquireOrWait(PermitCell cell, long now, Clock clock, long cost,
            MutableDecision out) {
        int result = acquire(cell, now, cost, out);
        if (result != DENIED || maxWait == 0 || cost > maxInFlight) {
            return result;
        }
        long deadline = now + maxWait;
        // Registered before the try below, so a release after that try is sure to see us.
        addWaiters(cell, 1);
        try {
            while (true) {
                int seen = cell.releases;
                result = acquire(cell, now, cost, out);
                if (result != DENIED) {
                    return result;
                }
                long remaining = deadline - clock.nanos();
                if (remaining <= 0 || !cell.await(seen, remaining)) {
                    return DENIED;
                }
            }
        } finally {
            addWaiters(cell, -1);
        }
    }

    private static void addWaiters(PermitCell cell, int delta) {
        PermitCell.WAITERS.getAndAdd(cell, delta);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Permits in flight are interchangeable, so the refund of an admission (another policy
     * refused the same request) is its release; no receipt is needed.
     */
    @Override
    public void refund(PermitCell cell, long cost, long receipt, Clock clock) {
        release(cell, 0, cost);
    }

    @Override
    public long release(PermitCell cell, long now, long cost) {
        if (cost <= 0) {
            return 0;
        }
        long unmatched;
        while (true) {
            long held = cell.word();
            if (held == Cell.RETIRED || held == 0) {
                return cost; // a retired cell held nothing: nothing here was this release's
            }
            unmatched = Math.max(0, cost - held);
            if (cell.casWord(held, held - (cost - unmatched))) {
                break;
            }
        }
        if (cell.waiters > 0) {
            cell.signal();
        }
        return unmatched;
    }

    @Override
    public boolean isFresh(PermitCell cell, long now) {
        return cell.word() == 0;
    }

    @Override
    public boolean retireIfFresh(PermitCell cell, long now) {
        return cell.word() == 0 && cell.waiters == 0 && cell.retire(0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Concurrency c && c.maxInFlight == maxInFlight && c.maxWait == maxWait;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxInFlight, maxWait);
    }

    @Override
    public String toString() {
        return "concurrency{maxInFlight=" + maxInFlight
                + (maxWait > 0 ? ", maxWait=" + Units.duration(maxWait) : "") + '}';
    }

    /** Builds a {@link Concurrency}. Not thread-safe. */
    public static final class Builder {
        private long maxInFlight;
        private long maxWait;

        private Builder() {
        }

        /**
         * Sets the permits a key may hold at once.
         *
         * @param maxInFlight {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if {@code maxInFlight < 1}
         */
        public Builder maxInFlight(long maxInFlight) {
            this.maxInFlight = Checks.between("maxInFlight", maxInFlight, 1, Long.MAX_VALUE - 1);
            return this;
        }

        /**
         * Sets how long an acquisition through a store may wait for a release. Default: zero, no
         * wait.
         *
         * @param maxWait {@code >= 0}, at most about 73 years
         * @return this builder
         * @throws IllegalArgumentException if {@code maxWait} is negative or too long
         * @throws NullPointerException if {@code maxWait} is null
         */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = Checks.nonNegativeNanos("maxWait", maxWait);
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if maxInFlight is missing
         */
        public Concurrency build() {
            if (maxInFlight == 0) {
                throw new IllegalStateException("maxInFlight must be set");
            }
            return new Concurrency(maxInFlight, maxWait);
        }
    }
}
