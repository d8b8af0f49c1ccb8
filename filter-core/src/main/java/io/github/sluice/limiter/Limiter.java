package io.github.sluice.limiter;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import java.util.Objects;

/**
 * One algorithm applied to one key: the standalone limiter, for code that limits a single
 * resource without the registry (the equivalent of a Guava {@code RateLimiter} or a Bucket4j
 * bucket).
 *
 * <pre>{@code
 * Limiter<?> limiter = Limiter.of(TokenBucket.builder().rate(Rate.perSecond(100)).burst(20).build());
 * if (limiter.tryAcquire()) { ... }
 * }</pre>
 *
 * <p>Thread-safe and lock-free; {@link #tryAcquire(long)} and {@link #acquire(long,
 * MutableDecision)} allocate nothing.
 *
 * @param <S> the algorithm's state type
 */
public final class Limiter<S extends Cell> {

    private final Algorithm<S> algorithm;
    private final Clock clock;
    private final S cell;

    private Limiter(Algorithm<S> algorithm, Clock clock) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.cell = Objects.requireNonNull(algorithm.newCell(clock.nanos()), "newCell");
    }

    /**
     * Creates a limiter on the system clock.
     *
     * @param algorithm the algorithm and its configuration
     * @param <S> the state type
     * @return a fresh limiter
     * @throws NullPointerException if {@code algorithm} is null
     */
    public static <S extends Cell> Limiter<S> of(Algorithm<S> algorithm) {
        return new Limiter<>(algorithm, Clock.system());
    }

    /**
     * Creates a limiter on the given clock.
     *
     * @param algorithm the algorithm and its configuration
     * @param clock the source of time
     * @param <S> the state type
     * @return a fresh limiter
     * @throws NullPointerException if an argument is null
     */
    public static <S extends Cell> Limiter<S> of(Algorithm<S> algorithm, Clock clock) {
        return new Limiter<>(algorithm, clock);
    }

    /** @return the algorithm */
    public Algorithm<S> algorithm() {
        return algorithm;
    }

    /**
     * Tries to take one permit.
     *
     * @return {@code true} if admitted (for a shaping algorithm: admitted after a delay that this
     *     method does not report; use {@link #acquire(long)} to learn it)
     */
    public boolean tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * Tries to take {@code permits} permits.
     *
     * @param permits permits requested, {@code >= 0}
     * @return {@code true} if admitted
     * @throws IllegalArgumentException if {@code permits < 0}
     */
    public boolean tryAcquire(long permits) {
        checkPermits(permits);
        return algorithm.acquire(cell, clock.nanos(), permits, null) == Algorithm.ADMITTED;
    }

    /**
     * Decides a request of {@code permits} permits.
     *
     * @param permits permits requested, {@code >= 0}
     * @return the decision, never {@code null}
     * @throws IllegalArgumentException if {@code permits < 0}
     */
    public Decision acquire(long permits) {
        MutableDecision out = new MutableDecision();
        acquire(permits, out);
        return out.toDecision();
    }

    /**
     * Decides a request of {@code permits} permits into a reusable holder.
     *
     * @param permits permits requested, {@code >= 0}
     * @param out the holder to fill
     * @return {@code true} if admitted
     * @throws IllegalArgumentException if {@code permits < 0}
     * @throws NullPointerException if {@code out} is null
     */
    public boolean acquire(long permits, MutableDecision out) {
        checkPermits(permits);
        Objects.requireNonNull(out, "out");
        return algorithm.acquire(cell, clock.nanos(), permits, out) == Algorithm.ADMITTED;
    }

    /**
     * Gives back the permits of a request that has ended, for a concurrency limit (see
     * {@link Algorithm#release}); a rate limit holds nothing while a request runs, so this does
     * nothing for it: undo a rate-limit admission with {@link #refund}.
     *
     * @param permits permits to give back, {@code >= 0}
     * @throws IllegalArgumentException if {@code permits < 0}
     */
    public void release(long permits) {
        checkPermits(permits);
        algorithm.release(cell, clock.nanos(), permits);
    }

    /**
     * Undoes one admission made by {@link #acquire(long, MutableDecision)}: gives back what it
     * took, as far as the state still holds it (see {@link Algorithm#refund} for the rules).
     * <pre>{@code
     * MutableDecision d = new MutableDecision();
     * if (limiter.acquire(3, d) && !otherCheckPasses()) {
     *     limiter.refund(3, d.receipt());
     * }
     * }</pre>
     *
     * @param permits the admission's cost, {@code >= 0}
     * @param receipt the admission's {@link MutableDecision#receipt()}
     * @throws IllegalArgumentException if {@code permits < 0}
     */
    public void refund(long permits, long receipt) {
        checkPermits(permits);
        algorithm.refund(cell, permits, receipt, clock);
    }

    private static void checkPermits(long permits) {
        if (permits < 0) {
            throw new IllegalArgumentException("permits must be >= 0 but was " + permits);
        }
    }

    @Override
    public String toString() {
        return "Limiter{" + algorithm + '}';
    }
}
