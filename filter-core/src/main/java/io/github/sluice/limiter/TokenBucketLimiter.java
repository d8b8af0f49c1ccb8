package io.github.sluice.limiter;

import io.github.sluice.internal.Units;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import io.github.sluice.internal.TokenMath;
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
 * Integer nanoseconds, shared with the registry algorithm {@link TokenBucket}: the bucket is the
 * instant at which it would hold zero tokens, and the interval is the configured period divided by
 * the permits, rounded up. x/time/rate's floating-point token count becomes exact nanoseconds of
 * credit. A change of rate converts the fraction of a token held to the new interval rounded down
 * to the nanosecond. Waits longer than about 73 years ({@link Checks#MAX_NANOS}) are refused. The
 * clock is monotonic, so x/time/rate's handling of time going backwards does not arise.
 *
 * <h2>Concurrency</h2>
 * The state (base, last event, interval, burst) sits behind a {@link StampedLock} used as a
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

    private static final int SPINS_BEFORE_YIELD = 64;

    private final Clock clock;
    private final Sleeper sleeper;
    private final StampedLock lock = new StampedLock();

    // Written only under the write stamp; read under a validated optimistic stamp or the write one.
    private long interval;
    private long burst;
    private long capacity;
    private long base;
    /** x/time/rate's lastEvent: the time to act of the latest reservation (allow included). */
    private long lastEvent;
    /** The latest clock reading the state reflects; an older one is taken as this one. */
    private long latest;

    private TokenBucketLimiter(long interval, long burst, Clock clock, Sleeper sleeper) {
        this.clock = clock;
        this.sleeper = sleeper;
        this.interval = interval;
        this.burst = burst;
        this.capacity = Checks.product("burst * interval", burst, interval);
        long now = clock.nanos();
        this.base = now - capacity;
        this.lastEvent = now - capacity;
        this.latest = now;
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
        return new TokenBucketLimiter(bucket.intervalNanos(), bucket.burst(),
                Objects.requireNonNull(clock, "clock"), Objects.requireNonNull(sleeper, "sleeper"));
    }

    /** @return the clock */
    public Clock clock() {
        return clock;
    }

    /** @return the current interval between tokens, in nanoseconds */
    public long intervalNanos() {
        long stamp = lock.readLock();
        try {
            return interval;
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

    /** @return the whole tokens in the bucket now; 0 while reservations hold it in debt */
    public long tokens() {
        long now = clock.nanos();
        long stamp = lock.readLock();
        try {
            return TokenMath.wholeTokens(TokenMath.effectiveBase(base, now, capacity), now, interval);
        } finally {
            lock.unlockRead(stamp);
        }
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
     * nothing; {@code n = 0} succeeds unless reservations hold the bucket in debt. Allocates
     * nothing.
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
            long b = base;
            long iv = interval;
            long bu = burst;
            long cap = capacity;
            long l = latest;
            if (!lock.validate(stamp)) {
                continue;
            }
            long now = Math.max(reading, l);
            if (n > bu) {
                return false;
            }
            long next = TokenMath.effectiveBase(b, now, cap) + n * iv;
            if (next > now) {
                return false;
            }
            long write = lock.tryConvertToWriteLock(stamp);
            if (write == 0) {
                backOff(attempt);
                continue;
            }
            base = next;
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
            if (n > burst) {
                return new Reservation(this, false, n, 0, interval);
            }
            long next = TokenMath.effectiveBase(base, now, capacity) + n * interval;
            long wait = Math.max(0, next - now);
            if (wait > maxWait) {
                return new Reservation(this, false, n, 0, interval);
            }
            base = next;
            lastEvent = now + wait;
            return new Reservation(this, true, n, lastEvent, interval);
        } finally {
            lock.unlockWrite(write);
        }
    }

    /**
     * Takes {@code n} tokens, sleeping until they are available ({@code WaitN} with a deadline).
     * Refuses at once, taking nothing, if {@code n > burst} or if the tokens would only be
     * available after {@code deadline}. If interrupted while sleeping, the reservation is cancelled
     * before the exception is thrown.
     *
     * @param n tokens, {@code >= 0}
     * @param deadlineNanos a reading of the limiter's clock
     * @return {@code true} once the tokens are taken and their time has come; {@code false} if
     *     refused
     * @throws InterruptedException if interrupted while sleeping
     * @throws IllegalArgumentException if {@code n < 0}
     */
    public boolean waitUntil(long n, long deadlineNanos) throws InterruptedException {
        checkTokens(n);
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
     * @throws InterruptedException if interrupted while sleeping
     * @throws IllegalArgumentException if {@code n < 0} or {@code timeout} is negative or too long
     * @throws NullPointerException if {@code timeout} is null
     */
    public boolean waitFor(long n, Duration timeout) throws InterruptedException {
        long nanos = Checks.nonNegativeNanos("timeout", timeout);
        return waitUntil(n, clock.nanos() + nanos);
    }

    /**
     * Changes the rate ({@code SetLimitAt(now)}): tokens earned so far at the old rate are kept
     * (the fraction of a token converted to the new interval, rounded down to the nanosecond),
     * then the new rate applies. Reservations already made keep their time to act. The burst is
     * unchanged.
     *
     * @param rate tokens per period
     * @throws IllegalArgumentException if the rate is above one token per nanosecond, or
     *     {@code burst * interval} would overflow
     * @throws NullPointerException if {@code rate} is null
     */
    public void setRate(Rate rate) {
        Objects.requireNonNull(rate, "rate");
        setInterval(Checks.intervalNanos(rate.permits(), rate.periodNanos()));
    }

    /**
     * Changes the rate, in tokens per second (see {@link #setRate(Rate)}).
     *
     * @param perSecond a finite rate {@code > 0}
     * @throws IllegalArgumentException if the rate is NaN, infinite, not positive or out of range
     */
    public void setRate(double perSecond) {
        setInterval(Checks.intervalNanos("rate", perSecond));
    }

    private void setInterval(long newInterval) {
        long reading = clock.nanos();
        long write = lock.writeLock();
        try {
            long now = advanceTo(reading);
            long newCapacity = Checks.product("burst * interval", burst, newInterval);
            long credit = now - TokenMath.effectiveBase(base, now, capacity);
            base = now - TokenMath.rescale(credit, interval, newInterval);
            interval = newInterval;
            capacity = newCapacity;
        } finally {
            lock.unlockWrite(write);
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
        long reading = clock.nanos();
        long write = lock.writeLock();
        try {
            long now = advanceTo(reading);
            long newCapacity = Checks.product("burst * interval", newBurst, interval);
            base = TokenMath.effectiveBase(base, now, capacity);
            burst = newBurst;
            capacity = newCapacity;
        } finally {
            lock.unlockWrite(write);
        }
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
            if (r.rawTokens() == 0 || act < now) {
                return;
            }
            // Tokens reserved after r were scheduled behind it and are not given back.
            long reserved = r.rawTokens() * r.interval();
            long restore = reserved - (lastEvent - act);
            if (restore <= 0) {
                return;
            }
            long effective = TokenMath.effectiveBase(base, now, capacity);
            base = Math.max(effective - TokenMath.rescale(restore, r.interval(), interval),
                    now - capacity);
            if (act == lastEvent) {
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
        return "TokenBucketLimiter{interval=" + Units.duration(intervalNanos())
                + ", burst=" + burst() + ", tokens=" + tokens() + '}';
    }
}
