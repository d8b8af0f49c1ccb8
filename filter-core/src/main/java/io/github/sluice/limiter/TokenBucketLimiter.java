package io.github.sluice.limiter;

import io.github.sluice.internal.Units;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.StampedLock;

/**
 * A standalone token bucket with the API and semantics of Go's {@code golang.org/x/time/rate}
 * {@code Limiter}: a bucket of {@code burst} tokens, refilled at one token per interval, that
 * starts full. Its rate and burst are those of a {@link TokenBucket}:
 * <pre>{@code
 * TokenBucketLimiter limiter = TokenBucketLimiter.of(
 *         TokenBucket.builder().rate(Rate.perSecond(10)).burst(20).build());
 * }</pre>
 *
 * <ul>
 *   <li>{@link #allow(long)} ({@code AllowN}) takes {@code n} tokens now or refuses;
 *   <li>{@link #reserve(long)} ({@code ReserveN}) takes them now or in the future and returns a
 *       {@link Reservation} that says how long to wait and can be cancelled, giving tokens back as
 *       {@code CancelAt} does;
 *   <li>{@link #waitUntil(long, long)} ({@code WaitN}) reserves and sleeps, refusing at once
 *       (taking nothing) if the wait would pass the deadline;
 *   <li>{@link #setRate(Rate)} and {@link #setBurst(long)} ({@code SetLimitAt},
 *       {@code SetBurstAt}) change the bucket at runtime: the bucket is first advanced to now
 *       under the old settings, then changed, so tokens earned so far are kept;
 *   <li>{@code n > burst} is always refused, never waited for.
 * </ul>
 *
 * <h2>Arithmetic</h2>
 * Exact: the interval {@code period / permits} is kept as a fraction {@code P / N} in lowest terms
 * ({@code N <= 2^31 - 1}; a larger denominator rounds the interval up to the nanosecond), and the
 * bucket is the instant at which it would hold zero tokens, as whole nanoseconds plus a remainder
 * in {@code 1/N} ns. So {@code 7/1m} refills exactly 7 tokens per 60 s forever; x/time/rate's
 * float64 token count becomes exact fractions. Waits are rounded up to the nanosecond (never
 * early). A change of rate, and a cancellation, carry the tokens over rounded down to a
 * {@code 1/P} of a token. x/time/rate's {@link #INF} and a limit of 0 are accepted (see
 * {@link #setRate(double)}), and so are x/time/rate's tiny limits: a rate below one token per
 * about 73 years ({@link Checks#MAX_NANOS}, e.g. {@code 1e-10} per second) lets the burst be
 * spent and refills nothing, as a limit of 0 does ({@link #limit()} still reports the rate set):
 * x/time/rate's next token would come centuries later, a wait that does not fit in signed 64-bit
 * nanoseconds (x/time/rate's own float-to-{@code Duration} conversion overflows there). The clock is monotonic, so x/time/rate's handling of time going
 * backwards does not arise.
 *
 * <h2>Concurrency</h2>
 * The state (base, last event, interval, burst, mode) sits behind a {@link StampedLock} used as a
 * sequence lock. {@link #allow(long)} reads it optimistically; a refusal validates the read and
 * returns without writing; an admission converts the optimistic stamp into the write stamp, which
 * succeeds only if nothing was written since the read (one compare-and-set, like a CAS loop), then
 * writes two fields. Reservations, cancellations and runtime changes take the write stamp, so a
 * change of rate or burst is atomic with respect to every acquisition: an acquisition that read
 * the old settings fails its conversion and decides again under the new ones. {@link #allow}
 * allocates nothing; {@link #reserve} allocates its {@link Reservation}.
 *
 * <h2>Stale readings</h2>
 * A thread may read the clock, then wait (for the lock, or descheduled) while others change the
 * state at later readings. Every operation decides at its own reading or at the latest reading
 * the state already reflects, whichever is later: time never moves backwards inside the limiter,
 * so neither x/time/rate's {@code lastEvent} nor a cancellation ever sees an older time than one
 * already applied (otherwise a stale {@code allow} could move {@code lastEvent} back and make a
 * later cancellation restore more tokens than it reserved). With one thread and a monotonic clock
 * this changes nothing.
 *
 * <p>This is not strictly lock-free: an admission holds the write lock for the few instructions
 * that write the state, and a reader that overlaps a writer spins, then yields, until the writer
 * is done (a writer descheduled while holding the lock delays the others). Reservations,
 * cancellations, runtime changes and the accessors ({@link #tokens()}, {@link #burst()},
 * {@link #intervalNanos()}) block on the lock. The registry algorithm {@link TokenBucket} is the
 * lock-free one (a compare-and-set on one word).
 *
 * <p>Thread-safe.
 */
public final class TokenBucketLimiter {

    /**
     * How {@link #waitUntil} sleeps: tests inject one that advances a fake clock.
     */
    @FunctionalInterface
    public interface Sleeper {

        /**
         * Sleeps for {@code nanos} nanoseconds of the limiter's clock.
         *
         * @param nanos {@code > 0}
         * @throws InterruptedException if interrupted
         */
        void sleep(long nanos) throws InterruptedException;

        /** @return a sleeper for the system clock: {@link TimeUnit#sleep} */
        static Sleeper system() {
            return TimeUnit.NANOSECONDS::sleep;
        }
    }

    /**
     * x/time/rate's {@code Inf}, for {@link #setRate(double)} and {@link Builder#rate(double)}:
     * every request is allowed at once, whatever its size (the burst is ignored).
     */
    public static final double INF = Double.POSITIVE_INFINITY;

    private static final int SPINS_BEFORE_YIELD = 64;
    private static final int FINITE = 0;
    private static final int INFINITE = 1;
    private static final int ZERO = 2;
    /** The largest reduced denominator kept exact: products of two stay below 2^62. */
    private static final long MAX_DENOMINATOR = (1L << 31) - 1;

    private final Clock clock;
    private final Sleeper sleeper;
    private final StampedLock lock = new StampedLock();

    // Written only under the write stamp; read under a validated optimistic stamp or the write one.
    /** FINITE, INFINITE (x/time/rate's Inf) or ZERO (a limit of 0: the bucket's time stands still). */
    private int mode;
    /** The interval is exactly {@code period / permits} ns (reduced): {@code iq + ir / permits}. */
    private long period;
    private long permits;
    private long iq;
    private long ir;
    private long burst;
    /** The capacity {@code burst * interval}, exactly: {@code capQ + capR / permits} ns. */
    private long capQ;
    private long capR;
    /** The instant the bucket would hold zero tokens, exactly: {@code baseNs + baseRem / permits}. */
    private long baseNs;
    private long baseRem;
    /** ZERO with a tiny positive rate (below one per {@link Checks#MAX_NANOS}): the rate set, for {@link #limit()}. */
    private double tiny;
    /** ZERO: the reading at which refills stopped; the bucket is evaluated there. */
    private long frozen;
    /** x/time/rate's lastEvent: the time to act of the latest reservation (allow included). */
    private long lastEvent;
    /** The latest clock reading the state reflects; an older one is taken as this one. */
    private long latest;

    private TokenBucketLimiter(double limit, Rate rate, long burst, Clock clock, Sleeper sleeper) {
        this.clock = clock;
        this.sleeper = sleeper;
        this.burst = burst;
        long now = clock.nanos();
        this.latest = now;
        this.frozen = now;
        this.period = 1;
        this.permits = 1;
        this.iq = 1;
        this.ir = 0;
        this.mode = limit == INF ? INFINITE : limit == 0 || Checks.belowMinimumRate(limit) ? ZERO : FINITE;
        this.tiny = mode == ZERO ? limit : 0;
        if (rate != null) {
            setInterval(rate);
        } else {
            setCapacity();
        }
        this.baseNs = floorNs(now);
        this.baseRem = floorRem();
        this.lastEvent = baseNs;
    }

    /**
     * Creates a full limiter with the rate and burst of a {@link TokenBucket}, on the system clock.
     * <pre>{@code
     * TokenBucketLimiter limiter = TokenBucketLimiter.of(TokenBucket.of(Rate.perSecond(10)));
     * }</pre>
     *
     * @param bucket the rate and burst
     * @return the limiter
     * @throws NullPointerException if {@code bucket} is null
     */
    public static TokenBucketLimiter of(TokenBucket bucket) {
        return of(bucket, Clock.system(), Sleeper.system());
    }

    /**
     * Creates a full limiter with the rate and burst of a {@link TokenBucket}, on the given clock;
     * {@link #waitUntil} sleeps in real time.
     *
     * @param bucket the rate and burst
     * @param clock the source of time
     * @return the limiter
     * @throws NullPointerException if an argument is null
     */
    public static TokenBucketLimiter of(TokenBucket bucket, Clock clock) {
        return of(bucket, clock, Sleeper.system());
    }

    /**
     * Creates a full limiter with the rate and burst of a {@link TokenBucket}, on the given clock,
     * whose {@link #waitUntil} sleeps with {@code sleeper} (tests advance a fake clock).
     *
     * @param bucket the rate and burst
     * @param clock the source of time
     * @param sleeper how {@link #waitUntil} sleeps, in nanoseconds of {@code clock}
     * @return the limiter
     * @throws NullPointerException if an argument is null
     */
    public static TokenBucketLimiter of(TokenBucket bucket, Clock clock, Sleeper sleeper) {
        Objects.requireNonNull(bucket, "bucket");
        return new TokenBucketLimiter(1, bucket.rate(), bucket.burst(),
                Objects.requireNonNull(clock, "clock"), Objects.requireNonNull(sleeper, "sleeper"));
    }

    /**
     * @return a builder for x/time/rate's {@code NewLimiter(r, b)}: a rate (also {@link #INF} or
     *     0) and a burst; the system clock unless another is set
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the clock */
    public Clock clock() {
        return clock;
    }

    /**
     * @return the current interval between tokens in nanoseconds, rounded up (the schedule itself
     *     is exact, see "Arithmetic"); {@link Long#MAX_VALUE} for a limit of 0, 0 for {@link #INF}
     */
    public long intervalNanos() {
        long stamp = lock.readLock();
        try {
            return mode == ZERO ? Long.MAX_VALUE : mode == INFINITE ? 0 : iq + (ir > 0 ? 1 : 0);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * x/time/rate's {@code Limit()}: the current rate in tokens per second.
     *
     * @return the rate, {@link #INF} or 0; a tiny rate as it was set (nothing is refilled under it)
     */
    public double limit() {
        long stamp = lock.readLock();
        try {
            return mode == ZERO ? tiny : mode == INFINITE ? INF : permits * 1e9 / period;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** @return the current burst (capacity), in tokens */
    public long burst() {
        long stamp = lock.readLock();
        try {
            return burst;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * @return the whole tokens in the bucket now; 0 while reservations hold it in debt; the burst
     *     for {@link #INF}
     */
    public long tokens() {
        long now = clock.nanos();
        long stamp = lock.readLock();
        try {
            if (mode == INFINITE) {
                return burst;
            }
            BigInteger credit = creditTicks(Math.max(now, latest));
            return credit.signum() <= 0 ? 0 : credit.divide(BigInteger.valueOf(period)).longValueExact();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * x/time/rate's {@code Tokens()}: the tokens available now, with their fraction; negative while
     * reservations hold the bucket in debt.
     *
     * @return tokens, {@code <= burst}
     */
    public double tokensNow() {
        return tokensAt(clock.nanos());
    }

    /**
     * x/time/rate's {@code TokensAt(t)}: the tokens available at the reading {@code t}, with their
     * fraction; negative while reservations hold the bucket in debt (the debt is paid off at the
     * rate). A reading older than one the limiter has already applied is taken as that one (the
     * state never moves back). Under a limit of 0 the tokens do not change with time; under
     * {@link #INF} this is the burst (x/time/rate reports a meaningless value there).
     *
     * @param t a reading of the limiter's clock, nanoseconds
     * @return tokens, {@code <= burst}; exact to the precision of a {@code double}
     */
    public double tokensAt(long t) {
        long stamp = lock.readLock();
        try {
            if (mode == INFINITE) {
                return burst;
            }
            BigInteger credit = creditTicks(Math.max(t, latest));
            return new BigDecimal(credit).divide(new BigDecimal(period),
                    MathContext.DECIMAL64).doubleValue();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * Credit at the bucket time of {@code t}, in ticks of {@code 1 / permits} ns: tokens times
     * {@code period}. Holding a lock.
     */
    private BigInteger creditTicks(long t) {
        long bt = mode == ZERO ? frozen : t;
        long fq = floorNs(bt);
        long fr = floorRem();
        long q = baseNs;
        long r = baseRem;
        if (fq > q || fq == q && fr > r) {
            q = fq;
            r = fr;
        }
        return BigInteger.valueOf(bt).subtract(BigInteger.valueOf(q)).multiply(BigInteger.valueOf(permits))
                .subtract(BigInteger.valueOf(r));
    }

    /** Whole ns of {@code t - capacity}, rounded down. Holding a lock. */
    private long floorNs(long t) {
        return t - capQ - (capR > 0 ? 1 : 0);
    }

    /** The fraction (in 1/permits ns) of {@code t - capacity}. Holding a lock. */
    private long floorRem() {
        return capR > 0 ? permits - capR : 0;
    }

    /**
     * Takes one token if it is there now ({@code Allow}).
     *
     * @return {@code true} if taken
     */
    public boolean allow() {
        return allow(1);
    }

    /**
     * Takes {@code n} tokens if they are all there now ({@code AllowN}). A refusal changes
     * nothing; {@code n = 0} succeeds unless reservations hold the bucket in debt. Under
     * {@link #INF} every {@code n} succeeds; under a limit of 0, what is left of the initial burst
     * can be taken. Allocates nothing.
     *
     * @param n tokens, {@code >= 0}
     * @return {@code true} if taken
     * @throws IllegalArgumentException if {@code n < 0}
     */
    public boolean allow(long n) {
        checkTokens(n);
        long reading = clock.nanos();
        for (int attempt = 0; ; attempt++) {
            long stamp = lock.tryOptimisticRead();
            if (stamp == 0) {
                backOff(attempt);
                continue;
            }
            int m = mode;
            long den = permits;
            long q = iq;
            long r = ir;
            long bu = burst;
            long cq = capQ;
            long cr = capR;
            long bq = baseNs;
            long br = baseRem;
            long fz = frozen;
            long l = latest;
            if (!lock.validate(stamp)) {
                continue;
            }
            if (m == INFINITE) {
                return true;
            }
            if (n > bu) {
                return false;
            }
            long now = Math.max(reading, l);
            long bt = m == ZERO ? fz : now;
            // The effective base: max(base, bt - capacity), exactly.
            long fq = bt - cq - (cr > 0 ? 1 : 0);
            long fr = cr > 0 ? den - cr : 0;
            if (fq > bq || fq == bq && fr > br) {
                bq = fq;
                br = fr;
            }
            // base + n * interval, exactly: n * (q + r / den) split so that no product overflows.
            long t = (n % den) * r + br;
            long nextNs = bq + n * q + (n / den) * r + t / den;
            long nextRem = t % den;
            if (nextNs > bt || nextNs == bt && nextRem > 0) {
                return false;
            }
            long write = lock.tryConvertToWriteLock(stamp);
            if (write == 0) {
                backOff(attempt);
                continue;
            }
            baseNs = nextNs;
            baseRem = nextRem;
            lastEvent = now;
            latest = now;
            lock.unlockWrite(write);
            return true;
        }
    }

    /** Waits politely for a writer that holds the state for a few instructions. */
    private static void backOff(int attempt) {
        if (attempt < SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    /**
     * Reserves one token ({@code Reserve}).
     *
     * @return the reservation, refused only if the wait would exceed about 73 years
     */
    public Reservation reserve() {
        return reserve(1);
    }

    /**
     * Reserves {@code n} tokens, now or in the future ({@code ReserveN}). The caller waits
     * {@link Reservation#delayNanos()} before acting, or {@linkplain Reservation#cancel() cancels}.
     *
     * @param n tokens, {@code >= 0}
     * @return the reservation; refused if {@code n > burst}
     * @throws IllegalArgumentException if {@code n < 0}
     */
    public Reservation reserve(long n) {
        checkTokens(n);
        return reserve(clock.nanos(), n, Checks.MAX_NANOS);
    }

    /**
     * Reserves {@code n} tokens if they are available within {@code maxWait}.
     *
     * @param n tokens, {@code >= 0}
     * @param maxWait the longest acceptable delay, {@code >= 0}
     * @return the reservation; refused (taking nothing) if {@code n > burst} or the delay would
     *     exceed {@code maxWait}
     * @throws IllegalArgumentException if {@code n < 0} or {@code maxWait} is negative or too long
     * @throws NullPointerException if {@code maxWait} is null
     */
    public Reservation reserve(long n, Duration maxWait) {
        checkTokens(n);
        return reserve(clock.nanos(), n, Checks.nonNegativeNanos("maxWait", maxWait));
    }

    private Reservation reserve(long reading, long n, long maxWait) {
        long write = lock.writeLock();
        try {
            long now = advanceTo(reading);
            if (mode == INFINITE) {
                // x/time/rate: ok at once, the state untouched, the reservation carries no limit.
                return new Reservation(this, true, n, now, 1, 0);
            }
            if (n > burst) {
                return new Reservation(this, false, n, 0, 1, 0);
            }
            long bt = mode == ZERO ? frozen : now;
            effectiveAt(bt);
            long t = (n % permits) * ir + baseRem;
            long nextNs = baseNs + n * iq + (n / permits) * ir + t / permits;
            long nextRem = t % permits;
            // Rounded up to the nanosecond: a reservation never acts before its tokens are there.
            long wait = nextNs > bt || nextNs == bt && nextRem > 0 ? nextNs - bt + (nextRem > 0 ? 1 : 0) : 0;
            if (wait > maxWait || mode == ZERO && wait > 0) {
                return new Reservation(this, false, n, 0, 1, 0);
            }
            baseNs = nextNs;
            baseRem = nextRem;
            lastEvent = now + wait;
            return mode == ZERO ? new Reservation(this, true, n, lastEvent, 1, 0)
                    : new Reservation(this, true, n, lastEvent, period, permits);
        } finally {
            lock.unlockWrite(write);
        }
    }

    /** Moves the base up to {@code bt - capacity} if it is older (refills up to a full bucket). */
    private void effectiveAt(long bt) {
        long fq = floorNs(bt);
        long fr = floorRem();
        if (fq > baseNs || fq == baseNs && fr > baseRem) {
            baseNs = fq;
            baseRem = fr;
        }
    }

    /**
     * Takes {@code n} tokens, sleeping until they are available ({@code WaitN} with a deadline).
     * Refuses at once, taking nothing, if {@code n > burst} or if the tokens would only be
     * available after {@code deadline}. A thread already interrupted takes nothing, even when no
     * wait would be needed (x/time/rate's {@code WaitN} on a context already done). If interrupted
     * while sleeping, the reservation is cancelled before the exception is thrown. Either way the
     * interrupt flag is consumed, as {@link java.util.concurrent.Semaphore} does.
     *
     * @param n tokens, {@code >= 0}
     * @param deadlineNanos a reading of the limiter's clock
     * @return {@code true} once the tokens are taken and their time has come; {@code false} if
     *     refused
     * @throws InterruptedException if interrupted on entry (nothing taken) or while sleeping (the
     *     reservation cancelled)
     * @throws IllegalArgumentException if {@code n < 0}
     */
    public boolean waitUntil(long n, long deadlineNanos) throws InterruptedException {
        checkTokens(n);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for " + n + " tokens");
        }
        long now = clock.nanos();
        if (deadlineNanos < now) {
            return false;
        }
        Reservation r = reserve(now, n, Math.min(deadlineNanos - now, Checks.MAX_NANOS));
        if (!r.ok()) {
            return false;
        }
        long delay = r.rawTimeToAct() - now;
        if (delay > 0) {
            try {
                sleeper.sleep(delay);
            } catch (InterruptedException e) {
                r.cancel();
                throw e;
            }
        }
        return true;
    }

    /**
     * Same as {@link #waitUntil(long, long)} with a deadline {@code timeout} from now.
     *
     * @param n tokens, {@code >= 0}
     * @param timeout the longest wait, {@code >= 0}
     * @return {@code true} once the tokens are taken; {@code false} if refused
     * @throws InterruptedException if interrupted on entry (nothing taken) or while sleeping (the
     *     reservation cancelled)
     * @throws IllegalArgumentException if {@code n < 0} or {@code timeout} is negative or too long
     * @throws NullPointerException if {@code timeout} is null
     */
    public boolean waitFor(long n, Duration timeout) throws InterruptedException {
        long nanos = Checks.nonNegativeNanos("timeout", timeout);
        return waitUntil(n, clock.nanos() + nanos);
    }

    /**
     * Changes the rate ({@code SetLimitAt(now)}): tokens earned so far at the old rate are kept
     * (the fraction of a token converted to the new rate, rounded down to a tick of the new
     * schedule), then the new rate applies. Reservations already made keep their time to act. The
     * burst is unchanged.
     *
     * @param rate tokens per period
     * @throws IllegalArgumentException if the rate is above one token per nanosecond, or
     *     {@code burst * interval} would overflow
     * @throws NullPointerException if {@code rate} is null
     */
    public void setRate(Rate rate) {
        Objects.requireNonNull(rate, "rate");
        Checks.intervalNanos(rate.permits(), rate.periodNanos());
        change(FINITE, rate, burst);
    }

    /**
     * Changes the rate, in tokens per second (see {@link #setRate(Rate)}), as x/time/rate's
     * {@code SetLimit} does: {@link #INF} allows everything from now on (switching back starts
     * from a full bucket, as x/time/rate's does), 0 stops refilling (the tokens held, fraction
     * included, stay until spent; switching back resumes from them). A finite double is read as the
     * fraction it stands for ({@link Rate#perSecond(double)}).
     *
     * @param perSecond a rate {@code >= 0}, or {@link #INF}
     * @throws IllegalArgumentException if the rate is NaN, negative, above one per nanosecond, or
     *     {@code burst * interval} would overflow (a rate below one per about 73 years is accepted
     *     and refills nothing, see "Arithmetic")
     */
    public void setRate(double perSecond) {
        if (perSecond == INF) {
            change(INFINITE, null, burst);
        } else if (perSecond == 0 || Checks.belowMinimumRate(perSecond)) {
            change(ZERO, null, burst, perSecond);
        } else {
            change(FINITE, perSecond("rate", checkLimit("rate", perSecond)), burst);
        }
    }

    /**
     * Changes the burst ({@code SetBurstAt(now)}): the bucket is advanced to now under the old
     * burst, then may hold up to the new one. A smaller burst caps the tokens held at once.
     *
     * @param newBurst tokens, {@code >= 1}
     * @throws IllegalArgumentException if {@code newBurst < 1} or {@code newBurst * interval}
     *     would overflow
     */
    public void setBurst(long newBurst) {
        Checks.atLeast("burst", newBurst, 1);
        change(-1, null, newBurst);
    }

    /**
     * Advances the bucket to now under the old settings, then applies the new ones
     * ({@code newMode < 0}: keep the rate). Exact: the credit is carried over in rationals.
     */
    private void change(int newMode, Rate rate, long newBurst) {
        change(newMode, rate, newBurst, 0);
    }

    /** As above; {@code tinyRate} is the rate reported by {@link #limit()} in ZERO mode. */
    private void change(int newMode, Rate rate, long newBurst, double tinyRate) {
        long reading = clock.nanos();
        long write = lock.writeLock();
        try {
            long now = advanceTo(reading);
            int oldMode = mode;
            long bt = oldMode == ZERO ? frozen : now;
            // Tokens held, as the fraction credit / period (credit in ticks of 1/permits ns).
            BigInteger credit = creditTicks(now);
            BigInteger oldPeriod = BigInteger.valueOf(period);
            if (oldMode == INFINITE) {
                // x/time/rate advances an Inf limiter to a full bucket.
                credit = BigInteger.valueOf(burst).multiply(oldPeriod);
            }
            long oldBurst = burst;
            double oldTiny = tiny;
            burst = newBurst;
            if (newMode >= 0) {
                mode = newMode;
                tiny = tinyRate;
            }
            try {
                if (rate != null) {
                    setInterval(rate);
                } else {
                    setCapacity();
                }
            } catch (IllegalArgumentException e) {
                // A refused change changes nothing (setInterval restored the interval itself).
                burst = oldBurst;
                mode = oldMode;
                tiny = oldTiny;
                throw e;
            }
            long at = mode == ZERO ? (oldMode == ZERO ? bt : now) : now;
            frozen = at;
            // Tokens held, at most the (new) burst, as ticks of the new schedule, rounded down.
            BigInteger held = credit.multiply(BigInteger.valueOf(period));
            BigInteger cap = BigInteger.valueOf(burst).multiply(BigInteger.valueOf(period)).multiply(oldPeriod);
            if (held.compareTo(cap) > 0) {
                held = cap;
            }
            BigInteger ticks = floorDiv(held, oldPeriod);
            BigInteger base = BigInteger.valueOf(at).multiply(BigInteger.valueOf(permits)).subtract(ticks);
            BigInteger[] qr = floorDivMod(base, BigInteger.valueOf(permits));
            baseNs = qr[0].longValueExact();
            baseRem = qr[1].longValueExact();
        } finally {
            lock.unlockWrite(write);
        }
    }

    /** Sets the exact interval of {@code rate} and the capacity. Holding the write lock. */
    private void setInterval(Rate rate) {
        long p = rate.periodNanos();
        long n = rate.permits();
        long g = BigInteger.valueOf(p).gcd(BigInteger.valueOf(n)).longValueExact();
        p /= g;
        n /= g;
        long oldPeriod = period;
        long oldPermits = permits;
        long oldIq = iq;
        long oldIr = ir;
        if (n > MAX_DENOMINATOR) {
            // A reduced denominator this large (a huge prime count of permits) keeps the schedule
            // exact only with products past 64 bits: the interval is rounded up to the nanosecond.
            p = Checks.intervalNanos(rate.permits(), rate.periodNanos());
            n = 1;
        }
        period = p;
        permits = n;
        iq = p / n;
        ir = p % n;
        try {
            setCapacity();
        } catch (IllegalArgumentException e) {
            period = oldPeriod;
            permits = oldPermits;
            iq = oldIq;
            ir = oldIr;
            throw e;
        }
    }

    /** Recomputes {@code burst * interval} exactly, failing past {@link Checks#MAX_NANOS}. */
    private void setCapacity() {
        BigInteger[] qr = BigInteger.valueOf(burst).multiply(BigInteger.valueOf(period))
                .divideAndRemainder(BigInteger.valueOf(permits));
        if (qr[0].compareTo(BigInteger.valueOf(Checks.MAX_NANOS)) > 0) {
            // Throws, naming the product as every other bucket does.
            Checks.product("burst * interval", burst, period / permits + (period % permits > 0 ? 1 : 0));
        }
        capQ = qr[0].longValueExact();
        capR = qr[1].longValueExact();
    }

    private static BigInteger floorDiv(BigInteger a, BigInteger b) {
        return floorDivMod(a, b)[0];
    }

    private static BigInteger[] floorDivMod(BigInteger a, BigInteger b) {
        BigInteger[] qr = a.divideAndRemainder(b);
        if (qr[1].signum() < 0) {
            qr[0] = qr[0].subtract(BigInteger.ONE);
            qr[1] = qr[1].add(b);
        }
        return qr;
    }

    private static Rate perSecond(String name, double perSecond) {
        long[] fraction = Checks.perSecondFraction(name, perSecond);
        return Rate.of(fraction[0], Duration.ofNanos(fraction[1]));
    }

    private static double checkLimit(String name, double perSecond) {
        if (!(perSecond >= 0)) {
            throw new IllegalArgumentException(name + " must be >= 0 (or INF) but was " + perSecond);
        }
        return perSecond;
    }

    /**
     * The reading to decide at, holding the write lock: {@code reading}, or the latest reading the
     * state already reflects if that is later (the caller's thread read the clock, then waited),
     * so that time never moves backwards inside the limiter.
     */
    private long advanceTo(long reading) {
        if (reading > latest) {
            latest = reading;
        }
        return latest;
    }

    /**
     * x/time/rate's {@code CancelAt}, at a clock reading taken once the lock is held: a reading
     * taken before it could be older than the state by the time the state is changed, and the
     * reservation's time to act would then seem not yet passed. Called once per granted
     * reservation.
     */
    void cancel(Reservation r) {
        long write = lock.writeLock();
        try {
            long now = advanceTo(clock.nanos());
            long act = r.rawTimeToAct();
            if (mode == INFINITE || r.rawTokens() == 0 || act < now) {
                return;
            }
            // Tokens reserved after r were scheduled behind it and are not given back:
            // restore = n - (lastEvent - act) / interval_r, as a fraction over period_r.
            BigInteger n = BigInteger.valueOf(r.rawTokens());
            BigInteger pr = BigInteger.valueOf(r.period());
            BigInteger restore = n.multiply(pr).subtract(
                    BigInteger.valueOf(lastEvent - act).multiply(BigInteger.valueOf(r.permits())));
            if (restore.signum() <= 0) {
                return;
            }
            long bt = mode == ZERO ? frozen : now;
            effectiveAt(bt);
            // In ticks of the current schedule, rounded down (never give back more than reserved).
            BigInteger ticks = floorDiv(restore.multiply(BigInteger.valueOf(period)), pr);
            BigInteger base = BigInteger.valueOf(baseNs).multiply(BigInteger.valueOf(permits))
                    .add(BigInteger.valueOf(baseRem)).subtract(ticks);
            BigInteger floor = BigInteger.valueOf(floorNs(bt)).multiply(BigInteger.valueOf(permits))
                    .add(BigInteger.valueOf(floorRem()));
            BigInteger[] qr = floorDivMod(base.max(floor), BigInteger.valueOf(permits));
            baseNs = qr[0].longValueExact();
            baseRem = qr[1].longValueExact();
            if (act == lastEvent && r.permits() > 0) {
                // x/time/rate truncates the duration of the reserved tokens: rounded up here.
                long reserved = BigInteger.valueOf(r.rawTokens()).multiply(pr)
                        .divide(BigInteger.valueOf(r.permits())).min(BigInteger.valueOf(Checks.MAX_NANOS))
                        .longValueExact();
                long previous = act - reserved;
                if (previous >= now) {
                    lastEvent = previous;
                }
            }
        } finally {
            lock.unlockWrite(write);
        }
    }

    private static void checkTokens(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0 but was " + n);
        }
    }

    @Override
    public String toString() {
        return "TokenBucketLimiter{limit=" + limit() + "/s, burst=" + burst() + ", tokens=" + tokensNow() + '}';
    }

    /**
     * Builds a {@link TokenBucketLimiter}: x/time/rate's {@code NewLimiter(r, b)}. Not thread-safe.
     * <pre>{@code
     * TokenBucketLimiter limiter = TokenBucketLimiter.builder().rate(Rate.every(Duration.ofMillis(100))).burst(3).build();
     * }</pre>
     */
    public static final class Builder {
        private double limit = -1;
        private Rate rate;
        private long burst;
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.system();

        private Builder() {
        }

        /**
         * Sets the rate (this or another {@code rate}/{@code every} is required).
         *
         * @param rate tokens per period
         * @return this builder
         * @throws NullPointerException if {@code rate} is null
         * @throws IllegalArgumentException if the rate is above one token per nanosecond
         */
        public Builder rate(Rate rate) {
            Objects.requireNonNull(rate, "rate");
            Checks.intervalNanos(rate.permits(), rate.periodNanos());
            this.rate = rate;
            this.limit = 1;
            return this;
        }

        /**
         * Sets the rate in tokens per second, x/time/rate's {@code Limit}: {@link #INF} allows
         * everything, 0 lets the initial burst be spent and never refills it; a finite double is
         * read as the fraction it stands for ({@link Rate#perSecond(double)}).
         *
         * @param perSecond a rate {@code >= 0}, or {@link #INF}
         * @return this builder
         * @throws IllegalArgumentException if the rate is NaN, negative or above one per nanosecond
         *     (a rate below one per about 73 years is accepted and refills nothing, see the class
         *     documentation, "Arithmetic")
         */
        public Builder rate(double perSecond) {
            checkLimit("rate", perSecond);
            boolean special = perSecond == INF || perSecond == 0 || Checks.belowMinimumRate(perSecond);
            this.rate = special ? null : perSecond("rate", perSecond);
            this.limit = special ? perSecond : 1;
            return this;
        }

        /**
         * Sets one token per {@code interval}, x/time/rate's {@code Every}: an interval of zero is
         * {@link #INF}, as there. A negative interval, which x/time/rate also reads as {@code Inf},
         * is refused: it is a caller's arithmetic gone wrong, and would open the gate silently. An
         * interval longer than about 73 years is a tiny rate, as x/time/rate's {@code Every} of it
         * is: the burst can be spent, and nothing is refilled.
         *
         * @param interval the time between two tokens, {@code >= 0}
         * @return this builder
         * @throws NullPointerException if {@code interval} is null
         * @throws IllegalArgumentException if {@code interval} is negative
         */
        public Builder every(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.compareTo(Duration.ofNanos(Checks.MAX_NANOS)) > 0) {
                return rate(1 / (interval.getSeconds() + interval.getNano() / 1e9));
            }
            long nanos = Checks.nonNegativeNanos("interval", interval);
            if (nanos == 0) {
                this.rate = null;
                this.limit = INF;
            } else {
                this.rate = Rate.every(interval);
                this.limit = 1;
            }
            return this;
        }

        /**
         * Sets the burst (required): the capacity, and the tokens held at the start.
         *
         * @param burst tokens, {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if {@code burst < 1}
         */
        public Builder burst(long burst) {
            this.burst = Checks.atLeast("burst", burst, 1);
            return this;
        }

        /**
         * Sets the clock. Default: {@link Clock#system()}.
         *
         * @param clock the source of time
         * @return this builder
         * @throws NullPointerException if {@code clock} is null
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Sets how {@link #waitUntil} sleeps. Default: {@link Sleeper#system()}.
         *
         * @param sleeper sleeps in nanoseconds of the clock
         * @return this builder
         * @throws NullPointerException if {@code sleeper} is null
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * @return the limiter, full
         * @throws IllegalStateException if the rate or the burst is missing
         * @throws IllegalArgumentException if {@code burst * interval} overflows
         */
        public TokenBucketLimiter build() {
            if (limit < 0) {
                throw new IllegalStateException("rate must be set");
            }
            if (burst == 0) {
                throw new IllegalStateException("burst must be set");
            }
            return new TokenBucketLimiter(limit, rate, burst, clock, sleeper);
        }
    }
}
