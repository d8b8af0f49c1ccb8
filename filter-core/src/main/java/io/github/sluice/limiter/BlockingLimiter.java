package io.github.sluice.limiter;

import io.github.sluice.algorithm.Reservable;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * Blocking use of a rate algorithm on one resource, as Guava's {@code RateLimiter} and uber-go's
 * {@code ratelimit} are used: {@link #acquire(long)} waits until the permits are granted and
 * returns the time it waited; {@link #tryAcquire(long, Duration)} waits only if the wait fits the
 * timeout, and otherwise takes nothing.
 * <pre>{@code
 * BlockingLimiter<?> limiter = BlockingLimiter.of(SmoothBursty.of(Rate.perSecond(5)));
 * limiter.acquire();                 // Guava: rateLimiter.acquire()
 * if (limiter.tryAcquire(1, Duration.ofMillis(100))) { ... }
 * }</pre>
 *
 * <h2>How it waits</h2>
 * With an algorithm that can {@linkplain Reservable reserve} ({@code smooth-bursty},
 * {@code warm-up}) the permits are reserved by the key's one compare-and-set and the caller
 * sleeps the wait the reservation reports, as Guava does: concurrent callers queue in the order
 * they reserved, and {@code tryAcquire} succeeds iff the next free moment is within the timeout.
 * With any other rate algorithm (token bucket, GCRA, leaky buckets, windows) nothing can be held
 * in advance: the caller sleeps the refusal's retry-after and asks again, so it may be overtaken
 * by a caller that asked later, but never admitted beyond the limit; {@code tryAcquire} sleeps
 * only while the retry-after still fits the remaining timeout. A shaping algorithm's admission is
 * slept as its delay.
 *
 * <h2>Permits and interruption</h2>
 * Every method takes {@code permits >= 1}: Guava throws for {@code acquire(0)} and
 * {@code tryAcquire(0)}, and so does this class (for a peek use {@link Limiter#acquire(long)}
 * with 0). A request that the algorithm can never admit (more than its burst) makes
 * {@link #acquire(long)} throw rather than wait forever, and {@code tryAcquire} return
 * {@code false}. A method that can wait checks the thread's interrupt flag on entry, as
 * {@link java.util.concurrent.Semaphore#acquire()} does, and throws {@link InterruptedException}
 * without taking anything; interrupted while it sleeps, it gives back exactly what it reserved
 * (the algorithm's receipt-based refund) before throwing. Guava's waits cannot be interrupted.
 *
 * <p>Thread-safe. No lock: a reservation is the algorithm's compare-and-set. Each waiting call
 * allocates one decision holder (the blocking path is not the hot path; for that, use
 * {@link Limiter}).
 *
 * @param <S> the algorithm's state type
 */
public final class BlockingLimiter<S extends Cell> {

    private final Algorithm<S> algorithm;
    private final Reservable<S> reservable;
    private final Clock clock;
    private final TokenBucketLimiter.Sleeper sleeper;
    private final S cell;

    @SuppressWarnings("unchecked")
    private BlockingLimiter(Algorithm<S> algorithm, Clock clock, TokenBucketLimiter.Sleeper sleeper) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        if (algorithm.concurrency()) {
            throw new IllegalArgumentException("algorithm must be a rate algorithm but was " + algorithm
                    + " (a concurrency limit holds permits while work runs: use ConcurrencyLimiter)");
        }
        this.reservable = algorithm instanceof Reservable<?> r ? (Reservable<S>) r : null;
        this.cell = Objects.requireNonNull(algorithm.newCell(clock.nanos()), "newCell");
    }

    /**
     * Creates a limiter on the system clock that sleeps in real time.
     *
     * @param algorithm a rate algorithm and its configuration
     * @param <S> the state type
     * @return a fresh limiter (for {@code smooth-bursty}: nothing stored, like a new Guava limiter)
     * @throws NullPointerException if {@code algorithm} is null
     * @throws IllegalArgumentException if {@code algorithm} is a concurrency limit
     */
    public static <S extends Cell> BlockingLimiter<S> of(Algorithm<S> algorithm) {
        return new BlockingLimiter<>(algorithm, Clock.system(), TokenBucketLimiter.Sleeper.system());
    }

    /**
     * Creates a limiter on the given clock that sleeps with {@code sleeper} (tests pass one that
     * advances a fake clock).
     *
     * @param algorithm a rate algorithm and its configuration
     * @param clock the source of time
     * @param sleeper how waits are slept, in nanoseconds of {@code clock}
     * @param <S> the state type
     * @return a fresh limiter
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code algorithm} is a concurrency limit
     */
    public static <S extends Cell> BlockingLimiter<S> of(Algorithm<S> algorithm, Clock clock,
            TokenBucketLimiter.Sleeper sleeper) {
        return new BlockingLimiter<>(algorithm, clock, sleeper);
    }

    /** @return the algorithm */
    public Algorithm<S> algorithm() {
        return algorithm;
    }

    /**
     * Takes one permit, waiting as long as needed (Guava's {@code acquire()}).
     *
     * @return the time waited, {@link Duration#ZERO} if none
     * @throws InterruptedException if interrupted on entry (nothing taken) or while waiting (the
     *     reservation given back)
     * @throws IllegalArgumentException if the algorithm can never admit one permit
     */
    public Duration acquire() throws InterruptedException {
        return acquire(1);
    }

    /**
     * Takes {@code permits} permits, waiting as long as needed (Guava's {@code acquire(permits)}).
     *
     * @param permits permits, {@code >= 1}
     * @return the time waited, {@link Duration#ZERO} if none
     * @throws IllegalArgumentException if {@code permits < 1}, or the algorithm can never admit
     *     that many at once (more than its burst)
     * @throws InterruptedException if interrupted on entry (nothing taken) or while waiting (the
     *     reservation given back)
     */
    public Duration acquire(long permits) throws InterruptedException {
        checkPermits(permits);
        long waited = take(permits, Checks.MAX_NANOS, true);
        return waited == 0 ? Duration.ZERO : Duration.ofNanos(waited);
    }

    /**
     * Takes one permit, waiting as long as needed, and returns the instant it was allowed:
     * uber-go/ratelimit's {@code Take()}. With a {@code shaping} algorithm of the default
     * {@link io.github.sluice.algorithm.ShapingLeakyBucket.Start#EMPTY start}, back-to-back calls
     * on a new limiter return {@code t, t + interval, t + 2 * interval, ...}, and calls after a
     * pause return at once until the slack earned is spent, exactly as uber-go's; many threads
     * calling together are each given their own slot. uber-go never refuses: give the shaper a
     * {@code maxDelay} longer than the longest queue you expect (a request whose delay exceeds it
     * sleeps its retry-after and asks again, and may then be overtaken).
     *
     * @return the instant the permit was allowed, in nanoseconds of this limiter's clock: the
     *     clock's reading when it was decided plus the delay it was given (uber-go too returns its
     *     slot, not the moment its sleep ended)
     * @throws InterruptedException if interrupted on entry (nothing taken) or while waiting (the
     *     reservation given back)
     * @throws IllegalArgumentException if the algorithm can never admit one permit
     */
    public long take() throws InterruptedException {
        return take(1);
    }

    /**
     * Takes {@code permits} permits, waiting as long as needed, and returns the instant they were
     * allowed (see {@link #take()}); with {@code shaping}, they occupy {@code permits} consecutive
     * slots, the first at the instant returned. Like {@link #acquire(long)}, {@code permits} must
     * be at least 1 (uber-go's {@code Take} always takes one).
     *
     * @param permits permits, {@code >= 1}
     * @return the instant they were allowed, in nanoseconds of this limiter's clock
     * @throws IllegalArgumentException if {@code permits < 1}, or the algorithm can never admit
     *     that many at once
     * @throws InterruptedException if interrupted on entry (nothing taken) or while waiting (the
     *     reservation given back)
     */
    public long take(long permits) throws InterruptedException {
        checkPermits(permits);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before taking " + permits + " permits");
        }
        MutableDecision out = new MutableDecision();
        while (true) {
            long now = clock.nanos();
            int r = reservable != null
                    ? reservable.reserve(cell, now, permits, Checks.MAX_NANOS, out)
                    : algorithm.acquire(cell, now, permits, out);
            if (r == Algorithm.RETIRED) {
                throw new IllegalStateException("the limiter's state was retired");
            }
            if (r == Algorithm.ADMITTED) {
                long delay = out.outcome() == Outcome.SHAPED ? out.delayNanos() : 0;
                if (delay > 0) {
                    sleepOrRefund(delay, permits, out.receipt());
                }
                return now + delay;
            }
            long retry = out.retryAfterNanos();
            if (retry == Decision.NEVER) {
                refuse(permits, true, retry);
            }
            sleeper.sleep(retry);
        }
    }

    /**
     * Takes one permit if it is available now, without waiting (Guava's {@code tryAcquire()}).
     * For {@code smooth-bursty} and {@code warm-up}: if the next free moment is not in the future.
     *
     * @return {@code true} if taken
     */
    public boolean tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * Takes {@code permits} permits if they are available now, without waiting.
     *
     * @param permits permits, {@code >= 1}
     * @return {@code true} if taken; {@code false} if not, nothing taken
     * @throws IllegalArgumentException if {@code permits < 1}
     */
    public boolean tryAcquire(long permits) {
        checkPermits(permits);
        MutableDecision out = null;
        if (algorithm instanceof ShapingLeakyBucket) {
            // A shaped admission must be waited for; without waiting, only an immediate one counts.
            out = new MutableDecision();
            int r = algorithm.acquire(cell, clock.nanos(), permits, out);
            if (r == Algorithm.ADMITTED && out.outcome() == Outcome.SHAPED) {
                algorithm.refund(cell, permits, out.receipt(), clock);
                return false;
            }
            return r == Algorithm.ADMITTED;
        }
        return algorithm.acquire(cell, clock.nanos(), permits, out) == Algorithm.ADMITTED;
    }

    /**
     * Takes {@code permits} permits if they can be had within {@code timeout}, waiting for them
     * (Guava's {@code tryAcquire(permits, timeout)}); if the wait would exceed the timeout,
     * returns {@code false} at once and takes nothing.
     *
     * @param permits permits, {@code >= 1}
     * @param timeout the longest wait, {@code >= 0} (negative counts as zero, as in Guava)
     * @return {@code true} if taken (after the wait); {@code false} if not, nothing taken
     * @throws IllegalArgumentException if {@code permits < 1}
     * @throws NullPointerException if {@code timeout} is null
     * @throws InterruptedException if interrupted on entry (nothing taken) or while waiting (the
     *     reservation given back)
     */
    public boolean tryAcquire(long permits, Duration timeout) throws InterruptedException {
        checkPermits(permits);
        Objects.requireNonNull(timeout, "timeout");
        long max = timeout.isNegative() ? 0
                : timeout.compareTo(Duration.ofNanos(Checks.MAX_NANOS)) > 0 ? Checks.MAX_NANOS : timeout.toNanos();
        return take(permits, max, false) >= 0;
    }

    /**
     * Returns Guava's {@code storedPermits}: the permits saved up by idleness, as of now.
     *
     * @return stored permits, {@code >= 0}
     * @throws UnsupportedOperationException if the algorithm does not store permits (only
     *     {@code smooth-bursty} and {@code warm-up} do)
     */
    public double storedPermits() {
        if (reservable == null) {
            throw new UnsupportedOperationException("storedPermits: algorithm " + algorithm.kind()
                    + " stores no permits (smooth-bursty and warm-up do)");
        }
        return reservable.storedPermits(cell, clock.nanos());
    }

    /**
     * Takes the permits within {@code maxWait}: returns the nanoseconds waited, or -1 (private:
     * never seen by users) if refused without taking anything.
     */
    private long take(long permits, long maxWait, boolean must) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + permits + " permits");
        }
        MutableDecision out = new MutableDecision();
        long start = clock.nanos();
        long waited = 0;
        while (true) {
            long now = clock.nanos();
            long budget = Math.max(0, maxWait - Math.max(0, now - start));
            int r = reservable != null
                    ? reservable.reserve(cell, now, permits, budget, out)
                    : algorithm.acquire(cell, now, permits, out);
            if (r == Algorithm.RETIRED) {
                throw new IllegalStateException("the limiter's state was retired");
            }
            if (r == Algorithm.ADMITTED) {
                if (out.outcome() == Outcome.SHAPED) {
                    long delay = out.delayNanos();
                    if (delay > budget) {
                        algorithm.refund(cell, permits, out.receipt(), clock);
                        return refuse(permits, must, Decision.NEVER);
                    }
                    sleepOrRefund(delay, permits, out.receipt());
                    waited += delay;
                }
                return waited;
            }
            long retry = out.retryAfterNanos();
            if (retry == Decision.NEVER || (reservable != null && !must)) {
                return refuse(permits, must, retry);
            }
            if (retry > budget) {
                return refuse(permits, must, retry);
            }
            sleeper.sleep(retry);
            waited += retry;
        }
    }

    private long refuse(long permits, boolean must, long retry) {
        if (must) {
            throw new IllegalArgumentException("permits must be at most what " + algorithm
                    + " can ever admit at once but was " + permits);
        }
        return -1;
    }

    private void sleepOrRefund(long nanos, long permits, long receipt) throws InterruptedException {
        try {
            sleeper.sleep(nanos);
        } catch (InterruptedException e) {
            algorithm.refund(cell, permits, receipt, clock);
            throw e;
        }
    }

    private static void checkPermits(long permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be >= 1 but was " + permits
                    + " (Guava: 'Requested permits (" + permits + ") must be positive')");
        }
    }

    @Override
    public String toString() {
        return "BlockingLimiter{" + algorithm + '}';
    }
}
