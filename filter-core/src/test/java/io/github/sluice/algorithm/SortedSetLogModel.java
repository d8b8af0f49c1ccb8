package io.github.sluice.algorithm;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Reference model of the sliding log, written as the Redis sorted-set design of the seeds: drop
 * the timestamps at or before {@code now - window} ({@code ZREMRANGEBYSCORE}), count the rest
 * ({@code ZCARD}), and log one timestamp per admitted permit ({@code ZADD}). A refund removes the
 * refunded admission's own timestamps ({@code ZREM} of its members).
 */
final class SortedSetLogModel {

    private final long limit;
    private final long window;
    private final ArrayDeque<Long> log = new ArrayDeque<>();
    /** The newest stamp ever logged, refunded or not: stamps never go backwards. */
    private long latest = Long.MIN_VALUE;

    SortedSetLogModel(long limit, long window) {
        this.limit = limit;
        this.window = window;
    }

    private void removeExpired(long now) {
        while (!log.isEmpty() && log.peekFirst() <= now - window) {
            log.removeFirst();
        }
    }

    private long reset(long now) {
        return log.isEmpty() ? 0 : log.peekLast() + window - now;
    }

    Decision acquire(long cost, long now) {
        removeExpired(now);
        long used = log.size();
        if (cost > limit) {
            return new Decision(Outcome.DENIED, limit, limit - used, reset(now), Decision.NEVER, 0);
        }
        if (used + cost > limit) {
            // The (used + cost - limit)-th oldest timestamp must leave the window first.
            long k = used + cost - limit;
            Iterator<Long> it = log.iterator();
            long t = 0;
            for (long i = 0; i < k; i++) {
                t = it.next();
            }
            return new Decision(Outcome.DENIED, limit, limit - used, reset(now), t + window - now, 0);
        }
        if (cost > 0) {
            long stamp = Math.max(now, latest);
            latest = stamp;
            for (long i = 0; i < cost; i++) {
                log.addLast(stamp);
            }
        }
        return new Decision(Outcome.ALLOWED, limit, limit - log.size(), reset(now), 0, 0);
    }

    /** @return the stamp of the latest admission */
    long lastStamp() {
        return latest;
    }

    /**
     * Refunds an admission of {@code cost} stamped {@code stamp}: removes up to {@code cost}
     * timestamps equal to it (its own, or another admission's of the same instant: the same log),
     * never newer ones. Timestamps that left the window were removed already.
     */
    void refund(long cost, long stamp, long now) {
        removeExpired(now);
        long left = cost;
        for (Iterator<Long> it = log.descendingIterator(); it.hasNext() && left > 0; ) {
            if (it.next() == stamp) {
                it.remove();
                left--;
            }
        }
    }

    int size(long now) {
        removeExpired(now);
        return log.size();
    }
}
