package io.github.sluice.limiter;

import io.github.sluice.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A standalone concurrency limiter: a {@link Semaphore} of {@code maxInFlight} permits whose
 * acquisitions return {@link Permit} handles (seed 003: "acquire before, release after; two at a
 * time"). For per-key concurrency limits inside a store, use the {@link io.github.sluice.algorithm.Concurrency} algorithm.
 *
 * <pre>{@code
 * ConcurrencyLimiter limiter = ConcurrencyLimiter.of(2);
 * try (Permit permit = limiter.tryAcquire()) {
 *     if (permit.granted()) { ... }
 * }
 * }</pre>
 *
 * <p>A refusal is a {@link Permit} whose {@link Permit#granted()} is {@code false}, never
 * {@code null}. Each granted permit is freed exactly once, whatever the number of
 * {@link Permit#release()} calls. {@link #tryAcquire(Duration)} waits like
 * {@link Semaphore#tryAcquire(long, TimeUnit)}, in real time (the semaphore's own timing).
 *
 * <p>Thread-safe.
 */
public final class ConcurrencyLimiter {

    private final int maxInFlight;
    private final Semaphore semaphore;

    private ConcurrencyLimiter(int maxInFlight, boolean fair) {
        this.maxInFlight = maxInFlight;
        this.semaphore = new Semaphore(maxInFlight, fair);
    }

    /**
     * Creates a non-fair limiter (waiters are not served in arrival order; the fastest choice).
     *
     * @param maxInFlight permits held at once, {@code >= 1}
     * @return the limiter
     * @throws IllegalArgumentException if {@code maxInFlight < 1}
     */
    public static ConcurrencyLimiter of(int maxInFlight) {
        return of(maxInFlight, false);
    }

    /**
     * Creates a limiter.
     *
     * @param maxInFlight permits held at once, {@code >= 1}
     * @param fair {@code true} to serve waiters in arrival order
     * @return the limiter
     * @throws IllegalArgumentException if {@code maxInFlight < 1}
     */
    public static ConcurrencyLimiter of(int maxInFlight, boolean fair) {
        return new ConcurrencyLimiter((int) Checks.atLeast("maxInFlight", maxInFlight, 1), fair);
    }

    /**
     * Takes one permit if one is free now.
     *
     * @return a granted permit, or the refused one; never {@code null}
     */
    public Permit tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * Takes {@code permits} permits if they are free now.
     *
     * @param permits {@code >= 1}
     * @return a granted permit, or the refused one (also when {@code permits > maxInFlight})
     * @throws IllegalArgumentException if {@code permits < 1}
     */
    public Permit tryAcquire(int permits) {
        Checks.atLeast("permits", permits, 1);
        return semaphore.tryAcquire(permits) ? new Permit(semaphore, permits) : Permit.REFUSED;
    }

    /**
     * Takes one permit, waiting up to {@code timeout} for one to be released.
     *
     * @param timeout the longest wait, {@code >= 0}
     * @return a granted permit, or the refused one if none was freed in time
     * @throws InterruptedException if interrupted on entry or while waiting (nothing is held then;
     *     the flag is consumed)
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is negative or too long
     */
    public Permit tryAcquire(Duration timeout) throws InterruptedException {
        return tryAcquire(1, timeout);
    }

    /**
     * Takes {@code permits} permits, waiting up to {@code timeout} for them to be released.
     *
     * @param permits {@code >= 1}
     * @param timeout the longest wait, {@code >= 0}
     * @return a granted permit, or the refused one if not freed in time (at once when
     *     {@code permits > maxInFlight}: never waited for)
     * @throws InterruptedException if interrupted on entry or while waiting (nothing is held then;
     *     the flag is consumed)
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if an argument is out of range
     */
    public Permit tryAcquire(int permits, Duration timeout) throws InterruptedException {
        Checks.atLeast("permits", permits, 1);
        long nanos = Checks.nonNegativeNanos("timeout", Objects.requireNonNull(timeout, "timeout"));
        if (permits > maxInFlight) {
            return Permit.REFUSED;
        }
        return semaphore.tryAcquire(permits, nanos, TimeUnit.NANOSECONDS)
                ? new Permit(semaphore, permits) : Permit.REFUSED;
    }

    /** @return the permits that may be held at once */
    public int maxInFlight() {
        return maxInFlight;
    }

    /** @return the permits held now (a snapshot) */
    public int inFlight() {
        return maxInFlight - semaphore.availablePermits();
    }

    /** @return the permits free now (a snapshot) */
    public int available() {
        return semaphore.availablePermits();
    }

    @Override
    public String toString() {
        return "ConcurrencyLimiter{maxInFlight=" + maxInFlight + ", inFlight=" + inFlight() + '}';
    }
}
