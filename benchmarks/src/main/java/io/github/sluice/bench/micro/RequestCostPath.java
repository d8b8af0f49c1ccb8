package io.github.sluice.bench.micro;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.RequestCost;
import io.github.sluice.request.HeaderSink;
import io.github.sluice.request.RequestView;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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
 * The allowed path of {@link EnforcerPath#allowed()} with a cost of 3 permits: a constant
 * ({@code cost=3}), read from a header ({@code cost=header:X-Cost}, the request carrying
 * {@code X-Cost: 3}), and from the declared body size ({@code cost=body}, {@code Content-Length:
 * 3000}). The target: a cost read from the request costs no measurably more than a constant one.
 * The request view holds its header lines in lists, as the JAX-RS adapter reads them, so the
 * iterator a header read asks for is counted ({@code -prof gc}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RequestCostPath {

    private Enforcer constant;
    private Enforcer header;
    private Enforcer body;
    private final RequestView request = new Request(Map.of("x-cost", List.of("3"), "content-length",
            List.of("3000")));
    private HeaderSink sink;

    /** @param bh consumes the header values the benchmarks write */
    @Setup(Level.Trial)
    public void setUp(Blackhole bh) {
        sink = (name, value) -> bh.consume(value);
        constant = enforcer(RequestCost.of(3));
        header = enforcer(RequestCost.header("X-Cost"));
        body = enforcer(RequestCost.body(RequestCost.DEFAULT_BODY_UNIT));
    }

    private static Enforcer enforcer(RequestCost cost) {
        return Enforcer.builder().listener(EnforcementListener.NONE)
                .policy(Policy.builder("per-ip").algorithm(Configs.OPEN.tokenBucket()).key(KeyResolvers.ip())
                        .cost(cost).build())
                .build();
    }

    /** Fails the run if an enforcer refused, or charged another cost. */
    @TearDown(Level.Iteration)
    public void check() {
        for (Enforcer e : new Enforcer[] {constant, header, body}) {
            Verdict v = e.enforce(request);
            if (!v.admitted() || v.cost(0) != 3) {
                throw new IllegalStateException("an enforcer left its path: " + v);
            }
        }
    }

    /** Closes the enforcers. */
    @TearDown(Level.Trial)
    public void close() {
        constant.close();
        header.close();
        body.close();
    }

    /** @return the verdict of an admitted request of the constant cost 3 */
    @Benchmark
    public Verdict constantCost() {
        Verdict v = constant.enforce(request);
        v.writeHeaders(sink);
        return v;
    }

    /** @return the verdict of an admitted request whose {@code X-Cost: 3} is read and checked */
    @Benchmark
    public Verdict headerCost() {
        Verdict v = header.enforce(request);
        v.writeHeaders(sink);
        return v;
    }

    /** @return the verdict of an admitted request charged by its {@code Content-Length: 3000} */
    @Benchmark
    public Verdict bodyCost() {
        Verdict v = body.enforce(request);
        v.writeHeaders(sink);
        return v;
    }

    /** A GET from 192.0.2.33 with fixed header lines, keyed by lower-case name. */
    record Request(Map<String, List<String>> lines) implements RequestView {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/hello";
        }

        @Override
        public Iterator<String> headers(String name) {
            List<String> l = lines.get(name.equalsIgnoreCase("X-Cost") ? "x-cost"
                    : name.equalsIgnoreCase("Content-Length") ? "content-length" : name);
            return l == null ? Collections.emptyIterator() : l.iterator();
        }

        /** As the adapters do: the first line without an iterator. */
        @Override
        public String header(String name) {
            List<String> l = lines.get(name.equalsIgnoreCase("X-Cost") ? "x-cost"
                    : name.equalsIgnoreCase("Content-Length") ? "content-length" : name);
            return l == null ? null : l.get(0);
        }

        @Override
        public String peerAddress() {
            return "192.0.2.33";
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
