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
 * The generic cell rate algorithm with the semantics of redis-cell's
 * {@code CL.THROTTLE key max_burst count period quantity}: {@code count} requests per
 * {@code period}, with bursts of {@code max_burst + 1} requests.
 *
 * <h2>Semantics</h2>
 * The state is the theoretical arrival time {@code tat} of the next request on an evenly spaced
 * schedule. With the emission interval {@code T = period / count} and the delay variation
 * tolerance {@code dvt = T * (burst + 1)}, a request of {@code quantity} at {@code now} computes
 * <pre>
 *   tat      = max(stored tat, now)          (a key never seen, or idle, starts at now)
 *   new_tat  = tat + T * quantity
 *   allow_at = new_tat - dvt
 * </pre>
 * and is refused if {@code now < allow_at}. The decision reports, exactly as redis-cell does:
 * <ul>
 *   <li>{@code limit = burst + 1};
 *   <li>{@code reset} ({@code reset_after}) {@code = new_tat - now} when admitted, {@code tat - now}
 *       when refused;
 *   <li>{@code remaining = (dvt - reset) / T} rounded down, or 0 when that is negative;
 *   <li>{@code retry-after} ({@code retry_after}) {@code = allow_at - now} on a refusal, or
 *       {@link Decision#NEVER} when {@code quantity > burst + 1} (redis-cell answers -1 then);
 *   <li>{@code quantity = 0} peeks without writing.
 * </ul>
 *
 * <h2>Precision, and the differences from redis-cell</h2>
 * The schedule is exact: the emission interval {@code period / count} is kept as a fraction (the
 * TAT in ticks of {@code 1/N} ns for the reduced denominator {@code N <= 1024}, see
 * {@code ExactInterval} in the source), so {@code 7/1m} admits exactly 7 per 60 s forever.
 * Durations in a {@link Decision} are rounded up to the nanosecond. redis-cell truncates the
 * emission interval to whole nanoseconds (a rate it cannot represent runs a little fast) and
 * computes {@code remaining} in microseconds; both agree whenever {@code period} is a multiple of
 * {@code count} nanoseconds and of the interval in microseconds. A denominator above 1024 uses the
 * interval rounded <em>up</em> (never faster than configured). redis-cell's reply is in whole
 * seconds; a {@link Decision} carries nanoseconds.
 *
 * <h2>State</h2>
 * One {@code long} per key, the TAT, updated by one compare-and-set; a refusal does not write. A
 * key is fresh (evictable without loss) once its TAT is not after {@code now}, which is when
 * redis-cell's key expires.
 *
 * <p>Immutable and thread-safe.
 */
public final class Gcra extends Algorithm<Cell> {

    private final long emission;
    private final long burst;
    private final long limit;
    private final long tolerance;
    private final ExactInterval exact;
    /** The emission interval in ticks. */
    private final long step;
    /** The tolerance in ticks. */
    private final long tolTicks;

    /** The rate as configured (equality compares the exact interval it stands for). */
    private final Rate rate;

    private Gcra(Rate rate, long burst) {
        this.rate = rate;
        this.burst = burst;
        this.limit = burst + 1;
        this.exact = ExactInterval.of(rate, limit, "emission interval * (burst + 1)");
        this.emission = exact.nanos;
        this.step = exact.step;
        this.tolTicks = exact.window;
        this.tolerance = exact.nanosCeil(tolTicks);
    }

    /**
     * @return a builder; {@code rate} must be set, {@code burst} defaults to the rate's permits
     *     less one
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The rate's permits at once, then the rate ({@code gcra 100/1m}): redis-cell's
     * {@code max_burst} is the permits less one, so that the limit is the permits.
     * {@code Gcra.of(Rate.perMinute(100))} is {@code CL.THROTTLE key 99 100 60}. For another
     * burst, use the {@link #builder()}.
     *
     * @param rate requests per period (redis-cell's {@code count} per {@code period})
     * @return the algorithm
     * @throws NullPointerException if {@code rate} is null
     * @throws IllegalArgumentException if the rate is above one request per nanosecond
     */
    public static Gcra of(Rate rate) {
        return builder().rate(rate).build();
    }

    /**
     * @return the emission interval in nanoseconds, rounded up: the time between two evenly spaced
     *     requests (the schedule itself is exact, see "Precision")
     */
    public long emissionIntervalNanos() {
        return emission;
    }

    /** @return redis-cell's {@code max_burst}; the limit is one more */
    public long burst() {
        return burst;
    }

    /** @return the delay variation tolerance {@code emission * (burst + 1)}, in nanoseconds */
    public long toleranceNanos() {
        return tolerance;
    }

    @Override
    public String kind() {
        return "gcra";
    }

    /** @return {@code burst + 1}, as redis-cell reports it */
    @Override
    public long limit() {
        return limit;
    }

    /** @return the delay variation tolerance: the time in which a full quota is restored */
    @Override
    public long windowNanos() {
        return tolerance;
    }

    /** @return 24: a plain {@link Cell} (header, the word, the access stamp) */
    @Override
    public long bytesPerKey() {
        return objectBytes(1, 1, 0);
    }

    @Override
    public Cell newCell(long now) {
        return new Cell(ExactInterval.word(exact.ticks(now)));
    }

    @Override
    public int acquire(Cell cell, long now, long cost, MutableDecision out) {
        long nowT = exact.ticks(now);
        while (true) {
            long stored = cell.word();
            if (stored == Cell.RETIRED) {
                return RETIRED;
            }
            // Wrapping difference (see ExactInterval): a TAT in the past, or so far ahead that the
            // word of an idle key wrapped around, is now.
            long ahead = stored - nowT;
            long tat = ahead > 0 && ahead <= tolTicks + ExactInterval.SLACK ? stored : nowT;
            long ttl = tat - nowT;
            if (cost > limit) {
                if (out != null) {
                    out.deny(limit, remaining(ttl), exact.nanosCeil(ttl), Decision.NEVER);
                }
                return DENIED;
            }
            // cost <= burst + 1, so the increment is at most the tolerance: no overflow.
            long newTat = tat + cost * step;
            long early = newTat - tolTicks - nowT;
            if (early > 0) {
                if (out != null) {
                    out.deny(limit, remaining(ttl), exact.nanosCeil(ttl), exact.nanosCeil(early));
                }
                return DENIED;
            }
            if (cost == 0 || cell.casWord(stored, ExactInterval.word(newTat))) {
                if (out != null) {
                    out.allow(limit, remaining(newTat - nowT), exact.nanosCeil(newTat - nowT));
                    if (cost > 0) {
                        out.receipt(now);
                    }
                }
                return ADMITTED;
            }
        }
    }

    /** redis-cell: {@code next = dvt - ttl; remaining = next / T if next > -T}, truncated (ticks). */
    private long remaining(long ttl) {
        long next = tolTicks - ttl;
        return next > 0 ? next / step : 0;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the admission's clock reading. The TAT moves back by the admission's
     * emission intervals less the time elapsed since that reading, never before now: a TAT that
     * became due meanwhile and was pushed again by later requests is theirs, not the
     * admission's.
     */
    @Override
    public void refund(Cell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0) {
            return;
        }
        TimeWord.refundTicks(cell, 0, Math.min(cost, limit) * step, receipt, clock, exact.den);
    }

    @Override
    public boolean isFresh(Cell cell, long now) {
        return TimeWord.isFreshTicks(cell, exact.ticks(now));
    }

    @Override
    public boolean retireIfFresh(Cell cell, long now) {
        return TimeWord.retireIfFreshTicks(cell, exact.ticks(now));
    }

    /**
     * @return the rate as configured; another rate with the same interval (e.g. {@code 14/2m}
     *     for {@code 7/1m}) makes an equal algorithm
     */
    public Rate rate() {
        return rate;
    }

    /** @return the exact schedule, for {@link RateChange} */
    ExactInterval exact() {
        return exact;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gcra g && g.exact.equals(exact) && g.burst == burst;
    }

    @Override
    public int hashCode() {
        return Objects.hash(exact, burst);
    }

    @Override
    public String toString() {
        return "gcra{emission=" + Units.duration(emission) + ", burst=" + burst + '}';
    }

    /** Builds a {@link Gcra}. Not thread-safe. */
    public static final class Builder {
        private Rate rate;
        /** The permits of the rate: the default burst is one less. */
        private long permits;
        private long burst = -1;

        private Builder() {
        }

        /**
         * Sets the rate (required): redis-cell's {@code count} requests per {@code period}.
         *
         * @param rate requests per period
         * @return this builder
         * @throws NullPointerException if {@code rate} is null
         * @throws IllegalArgumentException if the rate is above one request per nanosecond
         */
        public Builder rate(Rate rate) {
            Objects.requireNonNull(rate, "rate");
            Checks.intervalNanos(rate.permits(), rate.periodNanos());
            this.rate = rate;
            this.permits = rate.permits();
            return this;
        }

        /**
         * Sets redis-cell's {@code max_burst}: the limit is {@code burst + 1} requests at once. Zero
         * means requests must be spaced by the emission interval. Default: the rate's permits less
         * one, so that the limit is the rate's permits.
         *
         * @param burst {@code >= 0}
         * @return this builder
         * @throws IllegalArgumentException if {@code burst < 0}
         */
        public Builder burst(long burst) {
            this.burst = Checks.between("burst", burst, 0, Long.MAX_VALUE - 1);
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if the rate is missing
         * @throws IllegalArgumentException if {@code emission * (burst + 1)} overflows
         */
        public Gcra build() {
            if (rate == null) {
                throw new IllegalStateException("rate must be set");
            }
            return new Gcra(rate, burst >= 0 ? burst : permits - 1);
        }
    }
}
