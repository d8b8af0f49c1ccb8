package io.github.sluice.bench.micro;

import com.google.common.util.concurrent.RateLimiter;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Limiter;

/**
 * One key's limiters, Sluice's and the peers', all built from the same {@link Configs}. Shared by
 * every benchmark thread, so a two-thread run contends on one key.
 */
final class SingleKeyLimiters {

    final Floor floor = new Floor();
    final Limiter<Cell> tokenBucket;
    final Limiter<Cell> gcra;
    final Limiter<FixedWindow.WindowCell> fixedWindow;
    final Limiter<SlidingWindow.SlotCell> slidingWindow;
    final Bucket bucket4jLockFree;
    final Bucket bucket4jSynchronized;
    final RateLimiter guava;
    final AtomicRateLimiter resilience4j;

    SingleKeyLimiters(Configs c) {
        tokenBucket = Limiter.of(c.tokenBucket());
        gcra = Limiter.of(c.gcra());
        fixedWindow = Limiter.of(c.fixedWindow());
        slidingWindow = Limiter.of(c.slidingWindow());
        bucket4jLockFree = c.bucket4j(SynchronizationStrategy.LOCK_FREE);
        bucket4jSynchronized = c.bucket4j(SynchronizationStrategy.SYNCHRONIZED);
        guava = c.guava();
        resilience4j = c.resilience4j();
    }

    /** Takes every permit there is, so that the next request of each limiter is denied. */
    void drain() {
        while (tokenBucket.tryAcquire()) { }
        while (gcra.tryAcquire()) { }
        while (fixedWindow.tryAcquire()) { }
        while (slidingWindow.tryAcquire()) { }
        while (bucket4jLockFree.tryConsume(1)) { }
        while (bucket4jSynchronized.tryConsume(1)) { }
        while (guava.tryAcquire()) { }
        while (resilience4j.acquirePermission()) { }
    }

    /**
     * Checks that every limiter still gives the answer the benchmark claims to measure, so a
     * misconfigured peer cannot silently measure the other path.
     *
     * @param expected {@code true} for the allowed-path benchmarks
     * @throws IllegalStateException naming the limiter that answers otherwise
     */
    void check(boolean expected) {
        expect("sluice token bucket", tokenBucket.tryAcquire(), expected);
        expect("sluice gcra", gcra.tryAcquire(), expected);
        expect("sluice fixed window", fixedWindow.tryAcquire(), expected);
        expect("sluice sliding window", slidingWindow.tryAcquire(), expected);
        expect("bucket4j lock-free", bucket4jLockFree.tryConsume(1), expected);
        expect("bucket4j synchronized", bucket4jSynchronized.tryConsume(1), expected);
        expect("guava", guava.tryAcquire(), expected);
        expect("resilience4j", resilience4j.acquirePermission(), expected);
    }

    private static void expect(String who, boolean actual, boolean expected) {
        if (actual != expected) {
            throw new IllegalStateException(who + " answered " + actual + " on the "
                    + (expected ? "allowed" : "denied") + " path");
        }
    }
}
