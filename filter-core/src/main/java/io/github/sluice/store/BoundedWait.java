package io.github.sluice.store;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The bounded wait of a concurrency limit ({@code maxWait}) without a thread that waits: the key
 * is asked again after 1 ms, then after twice as long each time up to 20 ms, until it admits or
 * the wait is over on the store's clock. A release does not wake a poll (the synchronous wait is
 * woken at once); the poll finds the permit within its pause. Each poll runs on
 * {@link java.util.concurrent.ForkJoinPool#commonPool()}, triggered by the JDK's delayed executor,
 * and the stage completes there. One object per waiting request.
 */
final class BoundedWait implements Runnable {

    private static final long MIN_PAUSE_NANOS = 1_000_000L;
    private static final long MAX_PAUSE_NANOS = 20_000_000L;

    private final KeySpace space;
    private final String key;
    private final int partition;
    private final long cost;
    private final MutableDecision out;
    private final long deadline;
    private final Clock clock;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private long pause = MIN_PAUSE_NANOS;

    private BoundedWait(KeySpace space, String key, int partition, long cost, MutableDecision out, long deadline,
            Clock clock) {
        this.space = space;
        this.key = key;
        this.partition = partition;
        this.cost = cost;
        this.out = out;
        this.deadline = deadline;
        this.clock = clock;
    }

    /**
     * Starts polling a key that has just denied.
     *
     * @param deadline when the wait is over, on {@code clock}
     * @return the decision, when taken
     */
    static CompletionStage<Boolean> poll(KeySpace space, String key, int partition, long cost, MutableDecision out,
            long deadline, Clock clock) {
        BoundedWait w = new BoundedWait(space, key, partition, cost, out, deadline, clock);
        w.next();
        return w.result;
    }

    private void next() {
        long left = deadline - clock.nanos();
        if (left <= 0) {
            result.complete(Boolean.FALSE); // the denial written by the last try stands
            return;
        }
        Executor later = CompletableFuture.delayedExecutor(Math.min(pause, left), TimeUnit.NANOSECONDS);
        pause = Math.min(2 * pause, MAX_PAUSE_NANOS);
        later.execute(this);
    }

    @Override
    public void run() {
        try {
            if (space.acquireNoWait(key, partition, cost, out)) {
                result.complete(Boolean.TRUE);
            } else {
                next();
            }
        } catch (RuntimeException | Error e) {
            result.completeExceptionally(e);
        }
    }
}
