package io.github.sluice.bench.micro;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.TopClients;
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
 * What keeping the heavy hitters ({@code top-clients}, {@link TopClients}) adds to a request: the
 * same decisions with the summaries off ({@code top-clients=0}), on for refusals only (the
 * default) and on for admissions too. The targets: at most +10 % on the denied path
 * and +2 % on the allowed path, with the default. {@code deniedFlood} refuses a different key each
 * time (a flood of distinct keys: every refusal takes over the summary's smallest counter, the
 * summary's worst case). {@code benchmarks/run.sh} prints the comparison.
 *
 * <pre>{@code
 * benchmarks/run.sh quick 'io.github.sluice.bench.micro.TopClientsCost'
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TopClientsCost {

    /** {@code off}: top-clients=0; {@code denied}: the default; {@code admitted}: also admissions. */
    @Param({"off", "denied", "admitted"})
    public String top;

    private Enforcer open;
    private Enforcer shut;
    private final RequestView request = new Request("192.0.2.33");
    private final RequestView[] flood = new RequestView[4096];
    private int next;

    /** Builds an enforcer that always admits and one that always refuses. */
    @Setup(Level.Trial)
    public void setUp() {
        open = build(Policy.builder("per-ip").algorithm(Configs.OPEN.tokenBucket()).key(KeyResolvers.ip()).build());
        shut = build(Policy.builder("per-ip").algorithm(Configs.SHUT.tokenBucket()).key(KeyResolvers.global()).build());
        for (int i = 0; i < flood.length; i++) {
            flood[i] = new Request(KeyPool.address(i));
        }
        while (shut.enforce(request).admitted()) {
            // drain the one permit (key=global: every flood key is refused too)
        }
    }

    private Enforcer build(Policy policy) {
        Enforcer.Builder b = Enforcer.builder().policy(policy).listener(EnforcementListener.NONE);
        return switch (top) {
            case "off" -> b.topClients(0).build();
            case "denied" -> b.build();
            case "admitted" -> b.topClientsAdmitted(true).build();
            default -> throw new IllegalArgumentException("top must be off, denied or admitted but was " + top);
        };
    }

    /** Fails the run if an enforcer answered the other way. */
    @TearDown(Level.Iteration)
    public void check() {
        if (!open.enforce(request).admitted() || shut.enforce(request).admitted()) {
            throw new IllegalStateException("an enforcer left its path");
        }
    }

    /** Closes the enforcers. */
    @TearDown(Level.Trial)
    public void close() {
        open.close();
        shut.close();
    }

    /** @return an admitted request's verdict, its headers written (as EnforcerPath: what an adapter does) */
    @Benchmark
    public Verdict allowed() {
        Verdict v = open.enforce(request);
        v.writeHeaders(sink);
        return v;
    }

    /** @return a refused request's verdict, headers written, always the same client (a key the summary holds) */
    @Benchmark
    public Verdict denied() {
        Verdict v = shut.enforce(request);
        v.writeHeaders(sink);
        return v;
    }

    /** @return a refused request's verdict, headers written, a different client each time (4,096 in turn) */
    @Benchmark
    public Verdict deniedFlood() {
        Verdict v = shut.enforce(flood[next++ & (flood.length - 1)]);
        v.writeHeaders(sink);
        return v;
    }

    /** Keeps the header values, as a container does. */
    private final Sink sink = new Sink();

    private static final class Sink implements io.github.sluice.request.HeaderSink {
        String last;

        @Override
        public void header(String name, String value) {
            last = value;
        }
    }

    /** A fixed GET with no header fields from one address. */
    private record Request(String peerAddress) implements RequestView {
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
