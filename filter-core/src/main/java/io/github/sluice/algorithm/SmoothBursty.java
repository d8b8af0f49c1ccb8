package io.github.sluice.algorithm;

import io.github.sluice.internal.Units;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * Smooth bursty: Guava's {@code RateLimiter.create(permitsPerSecond)} ({@code SmoothBursty}).
 * Permits are handed out at a steady rate; a request never waits for its <em>own</em> permits but
 * pays for them by pushing back the <em>next</em> request ("pay for the previous request"), and a
 * key that is idle saves up permits, up to {@code maxBurst} of the rate, which the next requests
 * spend without waiting.
 *
 * <h2>Reference semantics</h2>
 * Guava keeps {@code nextFreeTicket} and {@code storedPermits} ({@code 0..maxPermits},
 * {@code maxPermits = maxBurstSeconds * permitsPerSecond}). A request of {@code n} permits at
 * {@code now} first resyncs (if {@code now > nextFreeTicket}, the idle time since then is added to
 * the stored permits, capped, and {@code nextFreeTicket = now}), is due at {@code nextFreeTicket},
 * then spends {@code min(n, storedPermits)} stored permits for free and pushes
 * {@code nextFreeTicket} by the fresh rest times the stable interval. So:
 * <ul>
 *   <li>a new key has no stored permits and its first request is admitted at once, whatever its
 *       weight; the next one waits for it (5 per second: {@code acquire()} sleeps 0, 0.2, 0.2 s);
 *   <li>after idleness, up to {@code maxBurst * rate} permits go at once, then the steady rate;
 *   <li>{@link #acquire} (Guava's {@code tryAcquire(n, 0, unit)}) admits a request iff the next
 *       free ticket is not in the future, and otherwise {@linkplain Decision denies} it with
 *       {@code retryAfter = nextFreeTicket - now}, changing nothing;
 *   <li>{@link #reserve} (Guava's {@code acquire(n)} / {@code tryAcquire(n, timeout)}) also
 *       takes a ticket in the future when the wait fits, and reports the wait, measured
 *       <em>before</em> the request's own permits are charged, as Guava does;
 *   <li>a cost of 0 is a peek (the {@link Algorithm} contract); Guava's
 *       {@code acquire(0)} throws, and so does the blocking facade built on this class.
 * </ul>
 *
 * <h2>State: one word</h2>
 * Guava's pair is held as one instant, {@code z = nextFreeTicket - storedPermits * I}, with the
 * stable interval {@code I = ceil(period / permits)} nanoseconds: the moment at which the stored
 * permits would have been zero. The pair never needs more, because stored permits remain only
 * when the request that left them was not charged any fresh permits, so then
 * {@code nextFreeTicket} was the request's own {@code now}. In that form Guava's resync and
 * charge become
 * <pre>
 *   due        iff z &lt;= now                (nextFreeTicket is not in the future)
 *   wait       = max(0, z - now)
 *   z'         = max(z, now - B) + n I      (B = maxBurst: the stored permits' cap as time)
 *   stored     = min(B, now - z) / I  when z &lt;= now, else 0
 * </pre>
 * updated by one compare-and-set; a refusal does not write. Integer nanoseconds throughout: no
 * floating point decides.
 *
 * <h2>Precision</h2>
 * The interval is rounded up to the nanosecond, so a request costs up to {@code n} nanoseconds
 * more than Guava's exact interval: every wait is at least Guava's (evaluated exactly) and at most
 * one nanosecond per permit charged since the key last stored a full burst longer. Guava itself
 * truncates to whole microseconds, which sometimes admits up to a microsecond earlier than its
 * own exact arithmetic; Sluice does not follow it there (deviations err on the side of waiting).
 * The tests compare this class with a double-precision transcription of Guava in nanoseconds:
 * within 1 microsecond, never shorter.
 *
 * <h2>Headers</h2>
 * {@code limit} and the window are the configured rate; {@code remaining} is how many one-permit
 * requests would be admitted now ({@code 1 +} whole stored permits while nothing is owed, capped
 * at the limit; 0 while a ticket is in the future); {@code reset} is the time until a full burst
 * is stored again, {@code z + B - now}.
 *
 * <h2>Eviction and refunds</h2>
 * A key is fresh (evictable) once it stores a full burst ({@code z <= now - B}). It comes back as
 * a new Guava limiter does, with no stored permits, so eviction can only make it stricter, never
 * more permissive. A refund (receipt: the admission's clock reading) moves {@code z} back by the
 * admission's {@code n I} less the time elapsed since, never below {@code now - B}: see the
 * time-word rules shared with the token bucket; on a frozen clock it restores the state exactly.
 *
 * <p>Immutable and thread-safe. Clock readings must lie in {@code [0, 2^62)} (until the year 2116).
 */
public final class SmoothBursty extends Algorithm<Cell> implements Reservable<Cell> {

    /** Guava's default: one second of the rate can be stored. */
    public static final Duration DEFAULT_MAX_BURST = Duration.ofSeconds(1);

    private final long permits;
    private final long period;
    private final long maxBurst;
    private final long interval;

    private SmoothBursty(long permits, long period, long maxBurst) {
        this.permits = permits;
        this.period = period;
        this.maxBurst = maxBurst;
        this.interval = Checks.intervalNanos(permits, period);
    }

    /** @return a builder; {@code rate} must be set */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Guava's {@code RateLimiter.create(permitsPerSecond)}: the rate, with one second of it
     * storable ({@code smooth-bursty 5/1s}): {@code SmoothBursty.of(Rate.perSecond(5))}.
     *
     * @param rate the stable rate
     * @return the algorithm
     * @throws NullPointerException if {@code rate} is null
     * @throws IllegalArgumentException if the rate is above one permit per nanosecond
     */
    public static SmoothBursty of(Rate rate) {
        return builder().rate(rate).build();
    }

    /** @return the permits of the rate this algorithm was built with, e.g. 10 for {@code 10/1s} */
    public long permits() {
        return permits;
    }

    /** @return the period of the rate this algorithm was built with, in nanoseconds */
    public long periodNanos() {
        return period;
    }

    /** @return nanoseconds between two permits ({@code ceil(period / permits)}) */
    public long intervalNanos() {
        return interval;
    }

    /** @return the most idle time that is stored as permits, nanoseconds */
    public long maxBurstNanos() {
        return maxBurst;
    }

    /** @return Guava's {@code maxPermits}: {@code maxBurst * rate}, in permits */
    public double maxPermits() {
        return (double) maxBurst * permits / period;
    }

    @Override
    public String kind() {
        return "smooth-bursty";
    }

    @Override
    public long limit() {
        return permits;
    }

    @Override
    public long windowNanos() {
        return period;
    }

    /** @return 24: a plain {@link Cell} (header, the word, the access stamp) */
    @Override
    public long bytesPerKey() {
        return objectBytes(1, 1, 0);
    }

    /** A new key, like a new Guava limiter: nothing stored, due now. */
    @Override
    public Cell newCell(long now) {
        return new Cell(now);
    }

    @Override
    public int acquire(Cell cell, long now, long cost, MutableDecision out) {
        return reserve(cell, now, cost, 0, out);
    }

    @Override
    public int reserve(Cell cell, long now, long cost, long maxWaitNanos, MutableDecision out) {
        long maxWait = Math.min(Math.max(0, maxWaitNanos), Checks.MAX_NANOS);
        while (true) {
            long z = cell.word();
            if (z == Cell.RETIRED) {
                return RETIRED;
            }
            long wait = Math.max(0, z - now);
            if (cost == 0) {
                if (out != null) {
                    out.allow(permits, remaining(z, now), reset(z, now));
                }
                return ADMITTED;
            }
            if (cost > Checks.MAX_NANOS / interval) {
                deny(out, z, now, Decision.NEVER);
                return DENIED;
            }
            if (wait > maxWait) {
                deny(out, z, now, wait - maxWait);
                return DENIED;
            }
            // z <= now + MAX_NANOS and the charge <= MAX_NANOS: below 2^63 for now < 2^62.
            long next = Math.max(z, now - maxBurst) + cost * interval;
            if (cell.casWord(z, next)) {
                if (out != null) {
                    if (wait == 0) {
                        out.allow(permits, remaining(next, now), reset(next, now));
                    } else {
                        out.shape(permits, remaining(next, now), reset(next, now), wait);
                    }
                    out.receipt(now);
                }
                return ADMITTED;
            }
        }
    }

    @Override
    public double storedPermits(Cell cell, long now) {
        long z = cell.word();
        if (z == Cell.RETIRED || z >= now) {
            return 0;
        }
        return (double) Math.min(maxBurst, now - z) * permits / period;
    }

    private long remaining(long z, long now) {
        if (z > now) {
            return 0;
        }
        long stored = Math.min(maxBurst, now - z) / interval;
        return Math.min(permits, 1 + stored);
    }

    private long reset(long z, long now) {
        return Math.max(0, z - now + maxBurst);
    }

    private void deny(MutableDecision out, long z, long now, long retryAfter) {
        if (out != null) {
            out.deny(permits, remaining(z, now), reset(z, now), retryAfter);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the admission's clock reading; {@code z} moves back by the admission's
     * charge less the time elapsed since that reading, never below {@code now - maxBurst}.
     */
    @Override
    public void refund(Cell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0 || cost > Checks.MAX_NANOS / interval) {
            return;
        }
        TimeWord.refund(cell, maxBurst, cost * interval, receipt, clock);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Also a key that stores nothing and owes nothing at {@code now} ({@code z == now}), as a
     * new cell is: a key starts at its first admission, so a peek on a new key (the one made for
     * a request another policy refused) is not kept and does not start its stored-permit clock,
     * exactly as in the Redis store, where a peek writes nothing.
     */
    @Override
    public boolean isFresh(Cell cell, long now) {
        return TimeWord.isFresh(cell, now - maxBurst) || cell.word() == now;
    }

    @Override
    public boolean retireIfFresh(Cell cell, long now) {
        return TimeWord.retireIfFresh(cell, now - maxBurst) || cell.retire(now);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SmoothBursty s && s.permits == permits && s.period == period
                && s.maxBurst == maxBurst;
    }

    @Override
    public int hashCode() {
        return Objects.hash(permits, period, maxBurst);
    }

    @Override
    public String toString() {
        return "smooth-bursty{rate=" + permits + "/" + Units.duration(period) + ", maxBurst="
                + Units.duration(maxBurst) + '}';
    }

    /** Builds a {@link SmoothBursty}. Not thread-safe. */
    public static final class Builder {
        private long permits;
        private long period;
        private long maxBurst = DEFAULT_MAX_BURST.toNanos();

        private Builder() {
        }

        /**
         * Sets the stable rate (required).
         *
         * @param rate permits per period
         * @return this builder
         * @throws NullPointerException if {@code rate} is null
         * @throws IllegalArgumentException if the rate is above one permit per nanosecond
         */
        public Builder rate(Rate rate) {
            Objects.requireNonNull(rate, "rate");
            Checks.intervalNanos(rate.permits(), rate.periodNanos());
            this.permits = rate.permits();
            this.period = rate.periodNanos();
            return this;
        }

        /**
         * Sets how much idle time is stored as permits (Guava's {@code maxBurstSeconds}, as a
         * duration): a key idle that long may spend {@code maxBurst * rate} permits at once.
         * Default {@link SmoothBursty#DEFAULT_MAX_BURST} (one second, as in Guava); zero stores
         * nothing.
         *
         * @param maxBurst a duration {@code >= 0}, at most about 73 years
         * @return this builder
         * @throws NullPointerException if {@code maxBurst} is null
         * @throws IllegalArgumentException if it is negative or too long
         */
        public Builder maxBurst(Duration maxBurst) {
            this.maxBurst = Checks.nonNegativeNanos("maxBurst", maxBurst);
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if the rate is missing
         */
        public SmoothBursty build() {
            if (permits == 0) {
                throw new IllegalStateException("rate must be set");
            }
            return new SmoothBursty(permits, period, maxBurst);
        }
    }
}
