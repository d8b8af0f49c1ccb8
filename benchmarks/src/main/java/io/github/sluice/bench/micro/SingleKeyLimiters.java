package io.github.sluice.bench.micro;

import com.google.common.util.concurrent.RateLimiter;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.limiter.Limiter;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * One key's limiters, Sluice's and the peers', all built from the same {@link Configs}. Shared by
 * every benchmark thread, so a two-thread run contends on one key.
 *
 * <p>Setup and checks touch only the limiter of the benchmark being run: calling every Sluice
 * algorithm through {@link Limiter} would make its call site megamorphic in every fork and
 * measure a deployment that mixes four algorithms on one call site, not the one limiter under
 * test (a peer's call site is monomorphic either way).
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
    private final Map<String, BooleanSupplier> byBenchmark;

    SingleKeyLimiters(Configs c) {
        tokenBucket = Limiter.of(c.tokenBucket());
        gcra = Limiter.of(c.gcra());
        fixedWindow = Limiter.of(c.fixedWindow());
        slidingWindow = Limiter.of(c.slidingWindow());
        bucket4jLockFree = c.bucket4j(SynchronizationStrategy.LOCK_FREE);
        bucket4jSynchronized = c.bucket4j(SynchronizationStrategy.SYNCHRONIZED);
        guava = c.guava();
        resilience4j = c.resilience4j();
        MutableDecision out = new MutableDecision();
        byBenchmark = Map.of(
                "sluiceTokenBucket", tokenBucket::tryAcquire,
                "sluiceTokenBucketDecision", () -> tokenBucket.acquire(1, out),
                "sluiceGcra", gcra::tryAcquire,
                "sluiceFixedWindow", fixedWindow::tryAcquire,
                "sluiceSlidingWindow", slidingWindow::tryAcquire,
                "bucket4jLockFree", () -> bucket4jLockFree.tryConsume(1),
                "bucket4jSynchronized", () -> bucket4jSynchronized.tryConsume(1),
                "guava", guava::tryAcquire,
                "resilience4j", resilience4j::acquirePermission);
    }

    /**
     * Takes every permit the benchmark's limiter has, so that its next request is denied.
     *
     * @param benchmark the benchmark method's name
     */
    void drain(String benchmark) {
        BooleanSupplier l = byBenchmark.get(benchmark);
        while (l != null && l.getAsBoolean()) {
            // keep taking
        }
    }

    /**
     * Checks that the benchmark's limiter still gives the answer the benchmark claims to measure,
     * so a misconfigured limiter cannot silently measure the other path.
     *
     * @param benchmark the benchmark method's name
     * @param expected {@code true} for the allowed-path benchmarks
     * @throws IllegalStateException naming the limiter that answers otherwise
     */
    void check(String benchmark, boolean expected) {
        BooleanSupplier l = byBenchmark.get(benchmark);
        if (l != null && l.getAsBoolean() != expected) {
            throw new IllegalStateException(benchmark + " answered " + !expected + " on the "
                    + (expected ? "allowed" : "denied") + " path");
        }
    }

    /**
     * @param fullName JMH's benchmark name, {@code package.Class.method}
     * @return the method name
     */
    static String method(String fullName) {
        return fullName.substring(fullName.lastIndexOf('.') + 1);
    }
}
