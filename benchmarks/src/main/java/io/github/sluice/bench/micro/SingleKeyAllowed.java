package io.github.sluice.bench.micro;

import io.github.sluice.core.MutableDecision;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * One key, every request admitted: Sluice's algorithms against the peers and the floor. Limits
 * are {@link Configs#OPEN}, so no limiter ever runs out during a run (checked after each
 * iteration).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SingleKeyAllowed {

    private SingleKeyLimiters l;

    /** Builds the limiters; all start full. */
    @Setup(Level.Trial)
    public void setUp() {
        l = new SingleKeyLimiters(Configs.OPEN);
    }

    /**
     * Fails the run if the limiter under test has started to deny.
     *
     * @param params names the benchmark
     */
    @TearDown(Level.Iteration)
    public void stillAllowed(BenchmarkParams params) {
        l.check(SingleKeyLimiters.method(params.getBenchmark()), true);
    }

    /** A per-thread decision holder, reused as the filter reuses one per request. */
    @State(Scope.Thread)
    public static class Holder {
        /** The reused holder. */
        public final MutableDecision out = new MutableDecision();
    }

    /** @return whether the floor's CAS won */
    @Benchmark
    public boolean floor() {
        return l.floor.tick();
    }

    /** @return admitted */
    @Benchmark
    public boolean sluiceTokenBucket() {
        return l.tokenBucket.tryAcquire();
    }

    /**
     * The token bucket with the full decision (limit, remaining, reset) written to a reused holder.
     *
     * @param h the holder
     * @return admitted
     */
    @Benchmark
    public boolean sluiceTokenBucketDecision(Holder h) {
        return l.tokenBucket.acquire(1, h.out);
    }

    /** @return admitted */
    @Benchmark
    public boolean sluiceGcra() {
        return l.gcra.tryAcquire();
    }

    /** @return admitted */
    @Benchmark
    public boolean sluiceFixedWindow() {
        return l.fixedWindow.tryAcquire();
    }

    /** @return admitted */
    @Benchmark
    public boolean sluiceSlidingWindow() {
        return l.slidingWindow.tryAcquire();
    }

    /** @return admitted */
    @Benchmark
    public boolean bucket4jLockFree() {
        return l.bucket4jLockFree.tryConsume(1);
    }

    /** @return admitted */
    @Benchmark
    public boolean bucket4jSynchronized() {
        return l.bucket4jSynchronized.tryConsume(1);
    }

    /** @return admitted */
    @Benchmark
    public boolean guava() {
        return l.guava.tryAcquire();
    }

    /** @return admitted */
    @Benchmark
    public boolean resilience4j() {
        return l.resilience4j.acquirePermission();
    }
}
