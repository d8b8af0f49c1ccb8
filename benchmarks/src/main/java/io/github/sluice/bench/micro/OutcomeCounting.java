package io.github.sluice.bench.micro;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Charge;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.RequestView;
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

/**
 * What counting by outcome ({@code count=401}) adds to a request's decision and release, on the
 * in-memory registry, one fixed-window policy keyed by the peer address that never runs out:
 * <ul>
 *   <li>{@link #plain()}: the policy without {@code count=}: decide, release (a no-op: nothing
 *       held);
 *   <li>{@link #kept()}: the same policy with {@code count=401}, the request ends with 401: the
 *       verdict holds a reservation, and the release keeps it (one compare-and-set of the
 *       verdict's state, no store call);
 *   <li>{@link #refunded()}: ends with 200: the release refunds the reservation by its receipt
 *       (one refund: a compare-and-set of the key's window word).
 * </ul>
 * The targets: {@code kept} costs what {@code plain} costs, with the same allocation; {@code
 * refunded} costs at most one refund more, with the same allocation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OutcomeCounting {

    private Enforcer plain;
    private Enforcer counting;
    private final RequestView request = new EnforcerPath.Request("POST", "/login", "192.0.2.33");

    /** Builds the enforcers. */
    @Setup(Level.Trial)
    public void setUp() {
        plain = Enforcer.builder().policy(policy(Charge.ALWAYS)).build();
        counting = Enforcer.builder().policy(policy(Charge.count(401))).build();
    }

    private static Policy policy(Charge charge) {
        return Policy.builder("login").algorithm(Configs.OPEN.fixedWindow()).key(KeyResolvers.ip())
                .charge(charge).build();
    }

    /** Fails the run if a path was refused. */
    @TearDown(Level.Iteration)
    public void check() {
        if (!plain.enforce(request).admitted() || !counting.enforce(request).admitted()) {
            throw new IllegalStateException("an enforcer left its path");
        }
    }

    /** Closes the enforcers. */
    @TearDown(Level.Trial)
    public void close() {
        plain.close();
        counting.close();
    }

    /**
     * A request on a policy that charges every request.
     *
     * @return the verdict
     */
    @Benchmark
    public Verdict plain() {
        Verdict v = plain.enforce(request);
        v.release(401);
        return v;
    }

    /**
     * A failed login on a policy that counts only failures: the reservation is kept.
     *
     * @return the verdict
     */
    @Benchmark
    public Verdict kept() {
        Verdict v = counting.enforce(request);
        v.release(401);
        return v;
    }

    /**
     * A right login on a policy that counts only failures: the reservation is refunded.
     *
     * @return the verdict
     */
    @Benchmark
    public Verdict refunded() {
        Verdict v = counting.enforce(request);
        v.release(200);
        return v;
    }
}
