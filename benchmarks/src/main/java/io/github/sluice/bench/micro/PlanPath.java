package io.github.sluice.bench.micro;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
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
 * Issue 26's target: a decision on a plan with a cached override costs at most 1.2x a fixed
 * policy's decision, with no more allocation per request. Both enforcers have one token-bucket
 * policy keyed by {@code X-Api-Key} that always admits, and write the RateLimit fields:
 * <ul>
 *   <li>{@link #fixed()}: the policy's own limit;
 *   <li>{@link #plan()}: the same limit as plan {@code pro} of three, found by a {@code bean:}
 *       resolver, with {@code override=bean:} whose answer for the key (no contract) is cached;
 *   <li>{@link #override()}: a key whose cached contract decides.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PlanPath {

    private Enforcer fixed;
    private Enforcer planned;
    private final RequestView customer = new KeyRequest("key-1");
    private final RequestView partner = new KeyRequest("partner-1");
    private HeaderSink sink;

    /**
     * Builds the two enforcers and caches the override answers of the two keys.
     *
     * @param bh consumes the header values
     * @throws InterruptedException if interrupted while the lookups complete
     */
    @Setup(Level.Trial)
    public void setUp(Blackhole bh) throws InterruptedException {
        sink = (name, value) -> bh.consume(value);
        String limit = "1000000000/1s";
        fixed = Enforcer.builder().policies("api = token-bucket " + limit + " key=header:X-Api-Key").build();
        planned = Enforcer.builder()
                .policies("api = token-bucket key=header:X-Api-Key plan=bean:planOf plans=free:1000/1s,pro:" + limit
                        + ",team:2000/1s default-plan=free override=bean:contractOf override-ttl=1d")
                .keyResolver("planOf", r -> "pro")
                .overrideLookup("contractOf", k -> k.equals("partner-1") ? "999999999/1s" : null)
                .build();
        for (int i = 0; i < 100 && !"\"api.override\";q=999999999;w=1".equals(policyOf(partner)); i++) {
            Thread.sleep(10); // the lookups complete on the enforcer's threads
        }
        if (!policyOf(customer).startsWith("\"api.pro\"") || !policyOf(partner).startsWith("\"api.override\"")) {
            throw new IllegalStateException("the plan or the contract did not decide: " + policyOf(customer) + ", "
                    + policyOf(partner));
        }
    }

    private String policyOf(RequestView r) {
        String[] seen = new String[1];
        planned.enforce(r).writeHeaders((name, value) -> {
            if (name.equals("RateLimit-Policy")) {
                seen[0] = value;
            }
        });
        return String.valueOf(seen[0]);
    }

    /** Fails the run if an enforcer refused. */
    @TearDown(Level.Iteration)
    public void check() {
        if (!fixed.enforce(customer).admitted() || !planned.enforce(customer).admitted()
                || !planned.enforce(partner).admitted()) {
            throw new IllegalStateException("an enforcer left its path");
        }
    }

    /** Closes the enforcers. */
    @TearDown(Level.Trial)
    public void close() {
        fixed.close();
        planned.close();
    }

    /** @return a fixed policy's verdict, headers written */
    @Benchmark
    public Verdict fixed() {
        Verdict v = fixed.enforce(customer);
        v.writeHeaders(sink);
        return v;
    }

    /** @return the verdict of a key on plan pro, its (empty) override answer cached, headers written */
    @Benchmark
    public Verdict plan() {
        Verdict v = planned.enforce(customer);
        v.writeHeaders(sink);
        return v;
    }

    /** @return the verdict of a key whose cached contract decides, headers written */
    @Benchmark
    public Verdict override() {
        Verdict v = planned.enforce(partner);
        v.writeHeaders(sink);
        return v;
    }

    /** A GET with one {@code X-Api-Key}; allocates nothing per call but the header iterator. */
    private static final class KeyRequest implements RequestView {
        private final String key;

        KeyRequest(String key) {
            this.key = key;
        }

        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/api";
        }

        @Override
        public Iterator<String> headers(String name) {
            return name.equalsIgnoreCase("X-Api-Key") ? Collections.singleton(key).iterator()
                    : Collections.emptyIterator();
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
