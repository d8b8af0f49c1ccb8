package io.github.sluice.bench.micro;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.RequestView;
import java.util.Collections;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the enforcer's own counting ({@code Enforcer.metrics()}, the numbers behind JMX and
 * Micrometer) costs a request: the same decisions with counting on and off
 * ({@code Enforcer.Builder.metrics(boolean)}), with no listener behind it, so that the difference is
 * the counting alone. {@code -prof gc} should show the same B/op for both; with threads, the
 * difference shows the contention on the counters (striped {@code LongAdder}s; for the concurrency
 * policy one atomic in-flight word, next to the store's own compare-and-set on the same key).
 *
 * <pre>{@code
 * benchmarks/run.sh quick 'io.github.sluice.bench.micro.MetricsCost'
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class MetricsCost {

    /** Whether the enforcer counts its decisions. */
    @Param({"on", "off"})
    public String metrics;

    private Enforcer open;
    private Enforcer shut;
    private Enforcer slots;
    private final RequestView request = new Request("GET", "/hello", "192.0.2.33");

    /** Builds an enforcer that always admits, one that always refuses, and one concurrency limit. */
    @Setup(Level.Trial)
    public void setUp() {
        boolean on = switch (metrics) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("metrics must be on or off but was " + metrics);
        };
        open = build(Policy.builder("per-ip").algorithm(Configs.OPEN.tokenBucket()).key(KeyResolvers.ip()).build(), on);
        shut = build(Policy.builder("per-ip").algorithm(Configs.SHUT.tokenBucket()).key(KeyResolvers.ip()).build(), on);
        slots = build(Policy.parse("slots = concurrency 1000000 key=global"), on);
        while (shut.enforce(request).admitted()) {
            // drain the one permit
        }
    }

    private static Enforcer build(Policy policy, boolean metrics) {
        return Enforcer.builder().policy(policy).listener(EnforcementListener.NONE).metrics(metrics).build();
    }

    /** Fails the run if an enforcer answered the other way, or counting was not as asked. */
    @TearDown(Level.Iteration)
    public void check() {
        if (!open.enforce(request).admitted() || shut.enforce(request).admitted()) {
            throw new IllegalStateException("an enforcer left its path");
        }
        if ((open.metrics().policy("per-ip").allowed() > 0) != metrics.equals("on")) {
            throw new IllegalStateException("counting is not " + metrics);
        }
    }

    /** Closes the enforcers. */
    @TearDown(Level.Trial)
    public void close() {
        open.close();
        shut.close();
        slots.close();
    }

    /** @return an admitted request's verdict (one allowed count) */
    @Benchmark
    public Verdict allowed() {
        return open.enforce(request);
    }

    /** @return a refused request's verdict (one denied count) */
    @Benchmark
    public Verdict denied() {
        return shut.enforce(request);
    }

    /** @return a concurrency permit taken and given back (in flight up, released and in flight down) */
    @Benchmark
    public Verdict heldAndReleased() {
        Verdict v = slots.enforce(request);
        v.release();
        return v;
    }

    /** A fixed request with no header fields. */
    private record Request(String method, String path, String peerAddress) implements RequestView {
        @Override
        public Iterator<String> headers(String name) {
            return Collections.emptyIterator();
        }

        @Override
        public String principal() {
            return null;
        }

        @Override
        public Object attribute(String name) {
            return null;
        }
    }
}
