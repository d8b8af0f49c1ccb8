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
 * peer, key resolution (the peer address), one token-bucket policy on the in-memory registry, and
 * the formatting of the RateLimit header fields. This is what the servlet filter adds to a request
 * besides the container's own header writes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EnforcerPath {

    private Enforcer open;
    private Enforcer shut;
    private final RequestView request = new Request("GET", "/hello", "192.0.2.33");
    private HeaderSink sink;

    /**
     * Builds one enforcer that always admits and one that always refuses.
     *
     * @param bh consumes the header values the benchmarks write
     */
    @Setup(Level.Trial)
    public void setUp(Blackhole bh) {
        sink = (name, value) -> bh.consume(value);
        open = Enforcer.builder().policy(policy(Configs.OPEN)).build();
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
        if (!open.enforce(request).admitted() || shut.enforce(request).admitted()) {
            throw new IllegalStateException("an enforcer left its path");
        }
    }

    /** Closes both enforcers. */
    @TearDown(Level.Trial)
    public void close() {
        open.close();
        shut.close();
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
     * A refused request: decide, then write the header fields and compute Retry-After.
     *
     * @return the retry-after seconds
     */
    @Benchmark
    public long denied() {
        Verdict v = shut.enforce(request);
        v.writeHeaders(sink);
        return v.retryAfterSeconds();
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
