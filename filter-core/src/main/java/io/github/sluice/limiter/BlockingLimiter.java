package io.github.sluice.limiter;

import io.github.sluice.algorithm.RateChange;
import io.github.sluice.algorithm.Reservable;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.WarmUp;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

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
 * <h2>Changing the rate</h2>
 * {@link #setRate(Rate)} and {@link #setRate(double)} (Guava's {@code setRate}) change the rate of
 * a live limiter with the reference's rule: the state is advanced to now under the old rate, then
 * the new rate applies ({@code smooth-bursty} and {@code warm-up} rescale the stored permits as
 * Guava's {@code doSetRate} does; token bucket, GCRA and leaky bucket keep the tokens held, resp.
 * what was consumed, as x/time/rate's {@code SetLimit}; {@code shaping} keeps its next slot;
 * {@code fixed-window} keeps the count taken in the current window, {@code sliding-window} and
 * {@code sliding-log} the counts, resp. timestamps, in the sliding window, under the new limit).
 * See {@link RateChange} and "Changing the rate" in {@code docs/algorithms.md}.
 *
 * <h2>Unlimited and tiny rates</h2>
 * Guava accepts {@code create(Double.POSITIVE_INFINITY)} and {@code setRate(+Inf)}: every request
 * is admitted at once, whatever its size; so do {@link #create(double)} and
 * {@link #setRate(double)} with {@link #INF}, on any algorithm. A debt left by the previous rate
 * ("pay for the previous request": a next free ticket in the future) is still waited for by the
 * next requests, as in Guava. Guava also accepts rates too small for any refill to matter,
 * {@code create(Double.MIN_VALUE)}: the first request is admitted (if due), and no later one
 * ever is ({@code tryAcquire} is {@code false}, {@code acquire} waits until interrupted). So do
 * {@link #create(double)} and {@link #setRate(double)} for {@code smooth-bursty} and
 * {@code warm-up} with a rate below one permit per about 73 years, which no {@link Rate} holds.
 * A later finite rate resumes with Guava's {@code doSetRate} rule ({@link RateChange#resume}):
 * after an unlimited rate a full burst (smooth bursty) or a warm key (warm-up), the ticket still
 * owed kept.
 *
 * <p>Thread-safe. No lock on the acquire path: a reservation is the algorithm's compare-and-set
 * on the state the limiter currently holds, an immutable (algorithm, state) pair read from one
 * volatile field. A rate change (serialized with other rate changes by a lock that acquirers never
 * take) publishes a new pair; where the state must be converted, the old state is retired by one
 * compare-and-set from the value converted, so an acquirer that comes after it finds it retired
 * and retries on the new pair: no admission is lost, and none is decided twice. An acquirer that
 * read the old pair just before the change may still be decided under the old rate. Each waiting
 * call allocates one decision holder (the blocking path is not the hot path; for that, use
 * {@link Limiter}).
 *
 * @param <S> the algorithm's state type
 */
public final class BlockingLimiter<S extends Cell> {

    private final Clock clock;
    private final TokenBucketLimiter.Sleeper sleeper;
    /** Serializes rate changes; acquirers never take it. */
    private final Object rateChange = new Object();
    /** The algorithm and the state it decides on, replaced as a whole by a rate change. */
    private volatile Binding<S> binding;

    /**
     * Guava's unlimited rate ({@code Double.POSITIVE_INFINITY}), for {@link #create(double)} and
     * {@link #setRate(double)}: every request is admitted at once, whatever its size.
     */
    public static final double INF = Double.POSITIVE_INFINITY;

    /** A frozen binding's ticket once its one permit is taken. */
    private static final long NEVER = Long.MAX_VALUE;

    /**
     * An immutable (algorithm, state) pair. {@code perSecond} is 0 for a finite rate (the
     * algorithm's), or the unlimited ({@link #INF}) or tiny rate set; then {@code cell} is unused,
     * the algorithm holds the other parameters for a later finite rate, and {@code ticket} is the
     * instant the limiter is next free ({@link #NEVER} once a tiny rate's one permit is taken).
     */
    private record Binding<S extends Cell>(Algorithm<S> algorithm, Reservable<S> reservable, S cell,
            double perSecond, AtomicLong ticket) {

        @SuppressWarnings("unchecked")
        static <S extends Cell> Binding<S> of(Algorithm<S> algorithm, S cell) {
            return new Binding<>(algorithm, algorithm instanceof Reservable<?> r ? (Reservable<S>) r : null, cell,
                    0, null);
        }

        static <S extends Cell> Binding<S> special(Algorithm<S> algorithm, double perSecond, long ticket) {
            return new Binding<>(algorithm, null, null, perSecond, new AtomicLong(ticket));
        }

        boolean special() {
            return perSecond != 0;
        }

        boolean unlimited() {
            return perSecond == INF;
        }
    }

    private BlockingLimiter(Algorithm<S> algorithm, Clock clock, TokenBucketLimiter.Sleeper sleeper) {
        this(algorithm, clock, sleeper, 0);
    }

    private BlockingLimiter(Algorithm<S> algorithm, Clock clock, TokenBucketLimiter.Sleeper sleeper,
            double specialRate) {
        Objects.requireNonNull(algorithm, "algorithm");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        if (algorithm.concurrency()) {
            throw new IllegalArgumentException("algorithm must be a rate algorithm but was " + algorithm
                    + " (a concurrency limit holds permits while work runs: use ConcurrencyLimiter)");
        }
        this.binding = specialRate != 0 ? Binding.special(algorithm, specialRate, clock.nanos())
                : Binding.of(algorithm, Objects.requireNonNull(algorithm.newCell(clock.nanos()), "newCell"));
    }

    /**
     * Guava's {@code RateLimiter.create(permitsPerSecond)}, on the system clock: smooth bursty with
     * one second of the rate storable. {@link #INF} is unlimited, and a rate below one permit per
     * about 73 years admits its first request only (see "Unlimited and tiny rates").
     *
     * @param permitsPerSecond the rate, {@code > 0}, or {@link #INF}
     * @return a fresh limiter, nothing stored
     * @throws IllegalArgumentException if the rate is not positive, is NaN, or is above one per
     *     nanosecond (Guava: "rate must be positive")
     */
    public static BlockingLimiter<Cell> create(double permitsPerSecond) {
        return create(permitsPerSecond, Clock.system(), TokenBucketLimiter.Sleeper.system());
    }

    /**
     * As {@link #create(double)}, on the given clock and sleeper.
     *
     * @param permitsPerSecond the rate, {@code > 0}, or {@link #INF}
     * @param clock the source of time
     * @param sleeper how waits are slept, in nanoseconds of {@code clock}
     * @return a fresh limiter
     * @throws NullPointerException if {@code clock} or {@code sleeper} is null
     * @throws IllegalArgumentException as {@link #create(double)}
     */
    public static BlockingLimiter<Cell> create(double permitsPerSecond, Clock clock, TokenBucketLimiter.Sleeper sleeper) {
        checkRate(permitsPerSecond);
        boolean special = isSpecial(permitsPerSecond);
        SmoothBursty algorithm = SmoothBursty.of(special ? Rate.perSecond(1) : Rate.perSecond(permitsPerSecond));
        return new BlockingLimiter<>(algorithm, clock, sleeper, special ? permitsPerSecond : 0);
    }

    /**
     * Guava's {@code RateLimiter.create(permitsPerSecond, warmupPeriod, unit)}, on the system
     * clock: warm-up with Guava's cold factor of 3, starting cold. A warm-up of zero is accepted,
     * as in Guava (nothing is ever stored); {@link #INF} and tiny rates as for
     * {@link #create(double)}.
     *
     * @param permitsPerSecond the stable rate, {@code > 0}, or {@link #INF}
     * @param warmUp the warm-up period, {@code >= 0} and at most {@link WarmUp#MAX_WARM_UP}
     * @return a fresh limiter, cold
     * @throws NullPointerException if {@code warmUp} is null
     * @throws IllegalArgumentException if the rate is not positive, is NaN, or is above one per
     *     nanosecond, or the warm-up is out of range
     */
    public static BlockingLimiter<?> create(double permitsPerSecond, Duration warmUp) {
        return create(permitsPerSecond, warmUp, Clock.system(), TokenBucketLimiter.Sleeper.system());
    }

    /**
     * As {@link #create(double, Duration)}, on the given clock and sleeper.
     *
     * @param permitsPerSecond the stable rate, {@code > 0}, or {@link #INF}
     * @param warmUp the warm-up period, {@code >= 0} and at most {@link WarmUp#MAX_WARM_UP}
     * @param clock the source of time
     * @param sleeper how waits are slept, in nanoseconds of {@code clock}
     * @return a fresh limiter, cold
     * @throws NullPointerException if an object argument is null
     * @throws IllegalArgumentException as {@link #create(double, Duration)}
     */
    public static BlockingLimiter<?> create(double permitsPerSecond, Duration warmUp, Clock clock,
            TokenBucketLimiter.Sleeper sleeper) {
        checkRate(permitsPerSecond);
        boolean special = isSpecial(permitsPerSecond);
        WarmUp algorithm = WarmUp.of(special ? Rate.perSecond(1) : Rate.perSecond(permitsPerSecond), warmUp);
        return new BlockingLimiter<>(algorithm, clock, sleeper, special ? permitsPerSecond : 0);
    }

    private static void checkRate(double permitsPerSecond) {
        if (!(permitsPerSecond > 0)) {
            throw new IllegalArgumentException("permitsPerSecond must be > 0 (or INF) but was "
                    + permitsPerSecond + " (Guava: 'rate must be positive')");
        }
    }

    private static boolean isSpecial(double permitsPerSecond) {
        return permitsPerSecond == INF || Checks.belowMinimumRate(permitsPerSecond);
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

    /**
     * @return the algorithm, with the rate last set by {@link #setRate(Rate)}; while the rate is
     *     unlimited or tiny ({@link #unlimited()}, {@link #getRate()}), the algorithm whose other
     *     parameters apply once a finite rate is set again (its own rate is then not in force)
     */
    public Algorithm<S> algorithm() {
        return binding.algorithm();
    }

    /**
     * Changes the rate from now on, keeping the limiter's state with the algorithm's rule (see
     * "Changing the rate" in the class documentation): the state is first advanced to now under
     * the old rate, then the new rate applies. Every other parameter (max burst, warm-up period,
     * cold factor, burst, capacity, slack, max delay, alignment, number of slots) is unchanged.
     * For a window algorithm the rate's permits are the limit and its period the window. Callers
     * already waiting keep the wait they were given (as in Guava); later calls are decided under
     * the new rate.
     *
     * <p>Thread-safe: concurrent acquirers never block on it; concurrent rate changes take effect
     * one after the other.
     *
     * @param rate the new rate
     * @throws NullPointerException if {@code rate} is null
     * @throws UnsupportedOperationException if the algorithm is not one of this library's
     *     ({@link RateChange#supports} is false: a subclass of {@code Algorithm} defined elsewhere)
     * @throws IllegalArgumentException if the new rate is out of the algorithm's range (the
     *     message names the parameter and the value); the rate is then unchanged
     */
    public void setRate(Rate rate) {
        Objects.requireNonNull(rate, "rate");
        synchronized (rateChange) {
            Binding<S> old = binding;
            Algorithm<S> next = RateChange.withRate(old.algorithm(), rate);
            if (old.special()) {
                long now = clock.nanos();
                binding = Binding.of(next, RateChange.resume(next, old.ticket().get(), old.unlimited(), now));
                return;
            }
            while (true) {
                S cell = RateChange.carry(old.algorithm(), old.cell(), next, clock.nanos());
                if (cell != null) {
                    binding = Binding.of(next, cell);
                    return;
                }
                if (old.cell().retired()) {
                    throw new IllegalStateException("the limiter's state was retired");
                }
                // An admission changed the state meanwhile: convert the new state.
            }
        }
    }

    /**
     * Changes the rate, in permits per second, as Guava's {@code setRate(permitsPerSecond)}: see
     * {@link #setRate(Rate)}. The double is read as the fraction it stands for
     * ({@link Rate#perSecond(double)}). A window algorithm ({@code fixed-window},
     * {@code sliding-window}, {@code sliding-log}) keeps its window length and takes
     * {@code floor(permitsPerSecond x window)} as its limit ({@link RateChange#perSecond}):
     * {@code setRate(2.5)} on a one-minute window is 150 per minute.
     *
     * <p>{@link #INF} makes the limiter unlimited (any algorithm), and a rate below one permit
     * per about 73 years makes it admit one more due request and then none
     * ({@code smooth-bursty} and {@code warm-up}, as Guava's): see "Unlimited and tiny rates".
     * The next free ticket already owed is kept either way.
     *
     * @param permitsPerSecond the new rate, {@code > 0}, or {@link #INF}
     * @throws IllegalArgumentException if {@code permitsPerSecond} is not positive or is NaN,
     *     gives less than one permit over a window, is tiny for an algorithm other than
     *     {@code smooth-bursty} and {@code warm-up}, or is out of the algorithm's range
     *     (Guava: "rate must be positive")
     * @throws UnsupportedOperationException as {@link #setRate(Rate)}
     */
    public void setRate(double permitsPerSecond) {
        checkRate(permitsPerSecond);
        synchronized (rateChange) { // the window read is the one the change applies to
            Binding<S> old = binding;
            if (!isSpecial(permitsPerSecond)) {
                setRate(RateChange.perSecond(old.algorithm(), permitsPerSecond));
                return;
            }
            if (permitsPerSecond != INF && !(old.algorithm() instanceof SmoothBursty || old.algorithm() instanceof WarmUp)) {
                RateChange.perSecond(old.algorithm(), permitsPerSecond); // throws, naming the rate
            }
            long ticket = old.special() ? old.ticket().get()
                    : RateChange.nextFree(old.algorithm(), old.cell(), clock.nanos());
            binding = Binding.special(old.algorithm(), permitsPerSecond, ticket);
        }
    }

    /**
     * Whether the rate is unlimited ({@link #INF}, Guava's {@code Double.POSITIVE_INFINITY}).
     *
     * @return {@code true} after {@code create(INF)} or {@code setRate(INF)}, until a finite rate
     *     is set
     */
    public boolean unlimited() {
        return binding.unlimited();
    }

    /**
     * Returns the current rate as configured: the one the limiter was built with, or the last
     * {@link #setRate(Rate)}. For {@code shaping}, one request per interval; for a window
     * algorithm, the limit per window.
     *
     * @return the rate
     * @throws UnsupportedOperationException as {@link #setRate(Rate)}
     * @throws IllegalStateException while the rate is unlimited or tiny, which no {@link Rate}
     *     holds ({@link #getRate()} reports it)
     */
    public Rate rate() {
        Binding<S> b = binding;
        if (b.special()) {
            throw new IllegalStateException("rate: the limiter runs at " + b.perSecond()
                    + " permits per second, which no Rate holds; getRate() reports it");
        }
        return RateChange.rateOf(b.algorithm());
    }

    /**
     * Returns the current rate in permits per second, as Guava's {@code getRate()}.
     *
     * @return permits per second, {@code > 0}; {@link #INF} when unlimited, or the tiny rate set
     * @throws UnsupportedOperationException as {@link #setRate(Rate)}
     */
    public double getRate() {
        Binding<S> b = binding;
        if (b.special()) {
            return b.perSecond();
        }
        Rate rate = rate();
        return rate.permits() * 1e9 / rate.periodNanos();
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
            Binding<S> b = binding;
            long now = clock.nanos();
            if (b.special()) {
                long waited = special(b, now, Checks.MAX_NANOS);
                if (waited >= 0) {
                    return now + waited;
                }
                continue;
            }
            int r = b.reservable() != null
                    ? b.reservable().reserve(b.cell(), now, permits, Checks.MAX_NANOS, out)
                    : b.algorithm().acquire(b.cell(), now, permits, out);
            if (r == Algorithm.RETIRED) {
                awaitRebind(b);
                continue;
            }
            if (r == Algorithm.ADMITTED) {
                long delay = out.outcome() == Outcome.SHAPED ? out.delayNanos() : 0;
                if (delay > 0) {
                    sleepOrRefund(b, delay, permits, out.receipt());
                }
                return now + delay;
            }
            long retry = out.retryAfterNanos();
            if (retry == Decision.NEVER) {
                refuse(b, permits, true, retry);
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
        while (true) {
            Binding<S> b = binding;
            MutableDecision out = null;
            int r;
            if (b.special()) {
                return trySpecial(b, clock.nanos(), 0) == 0;
            } else if (b.algorithm() instanceof ShapingLeakyBucket) {
                // A shaped admission must be waited for; without waiting, only an immediate one counts.
                out = new MutableDecision();
                r = b.algorithm().acquire(b.cell(), clock.nanos(), permits, out);
                if (r == Algorithm.ADMITTED && out.outcome() == Outcome.SHAPED) {
                    b.algorithm().refund(b.cell(), permits, out.receipt(), clock);
                    return false;
                }
            } else {
                r = b.algorithm().acquire(b.cell(), clock.nanos(), permits, out);
            }
            if (r != Algorithm.RETIRED) {
                return r == Algorithm.ADMITTED;
            }
            awaitRebind(b);
        }
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
        Binding<S> b = binding;
        if (b.special() && (b.algorithm() instanceof SmoothBursty || b.algorithm() instanceof WarmUp)) {
            return b.unlimited() ? INF : 0;
        }
        if (b.reservable() == null) {
            throw new UnsupportedOperationException("storedPermits: algorithm " + b.algorithm().kind()
                    + " stores no permits (smooth-bursty and warm-up do)");
        }
        return b.reservable().storedPermits(b.cell(), clock.nanos());
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
            Binding<S> b = binding;
            long now = clock.nanos();
            long budget = Math.max(0, maxWait - Math.max(0, now - start));
            if (b.special()) {
                long w = must ? special(b, now, budget) : trySpecial(b, now, budget);
                if (w >= 0) {
                    if (!must && w > 0) { // special() has slept already
                        sleepOrGiveBack(b, w, now + w);
                    }
                    return waited + w;
                }
                if (!must) {
                    return -1;
                }
                continue;
            }
            int r = b.reservable() != null
                    ? b.reservable().reserve(b.cell(), now, permits, budget, out)
                    : b.algorithm().acquire(b.cell(), now, permits, out);
            if (r == Algorithm.RETIRED) {
                awaitRebind(b);
                continue;
            }
            if (r == Algorithm.ADMITTED) {
                if (out.outcome() == Outcome.SHAPED) {
                    long delay = out.delayNanos();
                    if (delay > budget) {
                        b.algorithm().refund(b.cell(), permits, out.receipt(), clock);
                        return refuse(b, permits, must, Decision.NEVER);
                    }
                    sleepOrRefund(b, delay, permits, out.receipt());
                    waited += delay;
                }
                return waited;
            }
            long retry = out.retryAfterNanos();
            if (retry == Decision.NEVER || (b.reservable() != null && !must)) {
                return refuse(b, permits, must, retry);
            }
            if (retry > budget) {
                return refuse(b, permits, must, retry);
            }
            sleeper.sleep(retry);
            waited += retry;
        }
    }

    /**
     * An unlimited or tiny-rate binding, without waiting beyond {@code budget}: the wait until the
     * ticket (0 if due), the ticket taken for good under a tiny rate; -1 if it is not due within
     * the budget, nothing taken.
     */
    private static long trySpecial(Binding<?> b, long now, long budget) {
        AtomicLong ticket = b.ticket();
        while (true) {
            long t = ticket.get();
            long wait = Math.max(0, t - now);
            if (t == NEVER || wait > budget) {
                return -1;
            }
            if (b.unlimited() || ticket.compareAndSet(t, NEVER)) {
                return wait;
            }
        }
    }

    /**
     * As {@link #trySpecial} for a caller that must wait: -1 (retry on the binding then current)
     * after sleeping a long time when a tiny rate's one permit is gone, as Guava's caller sleeps
     * for ever; interruptible.
     */
    private long special(Binding<S> b, long now, long budget) throws InterruptedException {
        long w = trySpecial(b, now, budget);
        if (w < 0) {
            long t = b.ticket().get();
            sleeper.sleep(t == NEVER ? Checks.MAX_NANOS : Math.max(1, t - now));
        } else if (w > 0) {
            sleepOrGiveBack(b, w, now + w);
            return w;
        }
        return w;
    }

    /** Sleeps; interrupted, gives a tiny rate's ticket back (an unlimited one was never taken). */
    private void sleepOrGiveBack(Binding<S> b, long nanos, long ticket) throws InterruptedException {
        try {
            sleeper.sleep(nanos);
        } catch (InterruptedException e) {
            if (!b.unlimited()) {
                b.ticket().compareAndSet(NEVER, ticket);
            }
            throw e;
        }
    }

    private static long refuse(Binding<?> b, long permits, boolean must, long retry) {
        if (must) {
            throw new IllegalArgumentException("permits must be at most what " + b.algorithm()
                    + " can ever admit at once but was " + permits);
        }
        return -1;
    }

    /**
     * Waits for the rate change that retired {@code b}'s state to publish the new pair: it does so
     * right after the retiring compare-and-set, with nothing in between that can fail.
     */
    private void awaitRebind(Binding<S> b) {
        for (int spins = 0; binding == b; spins++) {
            if (spins < 64) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /**
     * Sleeps; interrupted, gives the reservation back to the state it was taken from (after a
     * rate change that converted the state, that state is retired and the refund gives nothing
     * back: the limiter errs towards refusing).
     */
    private void sleepOrRefund(Binding<S> b, long nanos, long permits, long receipt) throws InterruptedException {
        try {
            sleeper.sleep(nanos);
        } catch (InterruptedException e) {
            b.algorithm().refund(b.cell(), permits, receipt, clock);
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
        Binding<S> b = binding;
        return "BlockingLimiter{" + (b.special() ? "rate=" + b.perSecond() + "/s, then " : "") + b.algorithm() + '}';
    }
}
