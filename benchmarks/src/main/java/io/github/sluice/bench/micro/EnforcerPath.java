package io.github.sluice.bench.micro;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.HeaderSink;
import io.github.sluice.request.RequestView;
import java.util.Collections;
import java.util.Iterator;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The whole HTTP-layer decision for one request, without a container: a request view with an IPv4
 * peer, key resolution (the peer address), one token-bucket policy (or fixed-window, for
 * {@link #allowedDraining()}) on the in-memory registry, and the formatting of the RateLimit header
 * fields. This is what the servlet filter adds to a request
 * besides the container's own header writes. The sink takes each value as the servlet adapter
 * does (a {@code String} handed to the container), so every string a response needs is counted.
 *
 * <p>{@link #floor()} is {@link Floor} measured in the same fork, so that "cost vs floor" (the
 * target: within 4x) is a ratio of one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EnforcerPath {

    private Enforcer open;
    private Enforcer draining;
    private Enforcer shut;
    private final RequestView request = new Request("GET", "/hello", "192.0.2.33");
    private HeaderSink sink;
    private final Floor floor = new Floor();

    /**
     * Builds two enforcers that always admit (a token bucket, a fixed window) and one that always
     * refuses.
     *
     * @param bh consumes the header values the benchmarks write
     */
    @Setup(Level.Trial)
    public void setUp(Blackhole bh) {
        setUp((HeaderSink) (name, value) -> bh.consume(value));
    }

    /**
     * Builds the enforcers, writing header values to {@code sink} (for {@link CpuPerOp}, which runs
     * without JMH).
     *
     * @param sink where the benchmarks write header values
     */
    void setUp(HeaderSink sink) {
        this.sink = sink;
        open = Enforcer.builder().policy(policy(Configs.OPEN)).build();
        draining = Enforcer.builder().policy(Policy.builder("per-ip").algorithm(Configs.OPEN.fixedWindow())
                .key(KeyResolvers.ip()).build()).build();
        shut = Enforcer.builder().policy(policy(Configs.SHUT)).build();
        while (shut.enforce(request).admitted()) {
            // drain the one permit
        }
    }

    private static Policy policy(Configs c) {
        return Policy.builder("per-ip").algorithm(c.tokenBucket()).key(KeyResolvers.ip()).build();
    }

    /** Fails the run if either enforcer answered the other way. */
    @TearDown(Level.Iteration)
    public void check() {
        if (!open.enforce(request).admitted() || !draining.enforce(request).admitted()
                || shut.enforce(request).admitted()) {
            throw new IllegalStateException("an enforcer left its path");
        }
    }

    /** Closes the enforcers. */
    @TearDown(Level.Trial)
    public void close() {
        open.close();
        draining.close();
        shut.close();
    }

    /**
     * The floor: one clock read and one CAS, as in {@code SingleKeyAllowed.floor}.
     *
     * @return whether the CAS won
     */
    @Benchmark
    public boolean floor() {
        return floor.tick();
    }

    /**
     * An admitted request: decide, then write the RateLimit-Policy and RateLimit fields.
     *
     * @return the verdict
     */
    @Benchmark
    public Verdict allowed() {
        Verdict v = open.enforce(request);
        v.writeHeaders(sink);
        return v;
    }

    /**
     * {@link #allowed()} through {@link Enforcer#enforceAsync}, as a reactive adapter decides: the
     * in-memory store decides at once, so the difference is the completed stage returned.
     *
     * @return the verdict
     */
    @Benchmark
    public Verdict allowedAsync() {
        // A completed CompletableFuture is its own toCompletableFuture(): read without a copy
        Verdict v = open.enforceAsync(request).toCompletableFuture().getNow(null);
        v.writeHeaders(sink);
        return v;
    }

    /**
     * The decision of {@link #allowed()} without the header fields (for {@link CpuPerOp}'s parts).
     *
     * @return the verdict
     */
    Verdict allowedWithoutHeaders() {
        return open.enforce(request);
    }

    /**
     * An admitted request on a fixed window: its remaining count falls at every request, so the
     * {@code RateLimit} value is formatted anew each time (the token bucket of {@link #allowed()}
     * refills faster than one thread asks, so it is full at every request and its value repeats).
     *
     * @return the verdict
     */
    @Benchmark
    public Verdict allowedDraining() {
        Verdict v = draining.enforce(request);
        v.writeHeaders(sink);
        return v;
    }

    /**
     * A refused request: decide, then write the header fields, {@code Retry-After} included, as
     * the adapters do before the problem body (which is not measured here).
     *
     * @return the verdict
     */
    @Benchmark
    public Verdict denied() {
        Verdict v = shut.enforce(request);
        v.writeHeaders(sink);
        return v;
    }

    /** A fixed request with no header fields. */
    record Request(String method, String path, String peerAddress) implements RequestView {
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
