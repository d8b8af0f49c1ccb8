package io.github.sluice.algorithm;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Reference model of the sliding log, written as the Redis sorted-set design of the seeds: drop
 * the timestamps at or before {@code now - window} ({@code ZREMRANGEBYSCORE}), count the rest
 * ({@code ZCARD}), and log one timestamp per admitted permit ({@code ZADD}). A refund removes the
 * newest timestamps.
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

    void refund(long cost, long now) {
        removeExpired(now);
        for (long i = 0; i < cost && !log.isEmpty(); i++) {
            log.removeLast();
        }
    }

    int size(long now) {
        removeExpired(now);
        return log.size();
    }
}
