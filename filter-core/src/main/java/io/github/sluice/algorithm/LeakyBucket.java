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
 * Leaky bucket used as a meter ("policing"): the Funnel of the Redis designs. Each admitted permit
 * pours one unit of water into a bucket of {@code capacity} units; the bucket leaks at a constant
 * {@code rate}; a request whose water would overflow the bucket is refused, whole, and pours
 * nothing. A request of more than {@code capacity} permits can never fit and is refused with
 * {@link Decision#NEVER} as retry-after. New keys start with an empty bucket.
 *
 * <h2>Reference semantics</h2>
 * The Funnel keeps {@code left_quota} (free space) and {@code leaking_ts}, refills the free space by
 * {@code elapsed * leaking_rate} (never above the capacity) before each pour, and admits a pour of
 * {@code q} if {@code left_quota >= q}. This class computes the same thing with exact, continuous
 * leaking; the Funnel's shortcut of skipping leaks smaller than one unit only saves a write in
 * Redis and is not reproduced (it would refuse some pours that fit by a fraction of a unit).
 *
 * <h2>State</h2>
 * One {@code long} per key: the instant at which the bucket would be empty ("emptyAt"). The water
 * at {@code now} is {@code max(0, emptyAt - now) / interval} units; pouring {@code n} units moves
 * {@code emptyAt} to {@code max(emptyAt, now) + n * interval}, which must stay within
 * {@code capacity * interval} of {@code now}. A decision is one compare-and-set; a refusal and a
 * peek (cost zero) only read.
 *
 * <p>As a meter, a leaky bucket admits exactly the sequences that a {@link TokenBucket} with
 * {@code burst = capacity} and the same rate admits (the water is the complement of the tokens);
 * it is offered under its own name because its reports speak of free space and drain time.
 *
 * <h2>Precision</h2>
 * The leak is exact: the interval {@code period / permits} is kept as a fraction (the instant the
 * bucket is empty, in ticks of {@code 1/N} ns for the reduced denominator {@code N <= 1024}; see
 * {@code ExactInterval} in the source), so {@code 7/1m} leaks exactly 7 units per 60 s forever.
 * Denominators above 1024 use the interval rounded <em>up</em> to whole nanoseconds, so the
 * configured leak rate is never exceeded; the relative error is then below {@code 1 / interval}.
 *
 * <h2>Headers</h2>
 * {@code limit} is the capacity; the window announced is the time a full bucket takes to drain
 * ({@code capacity * interval}); {@code remaining} is the free space in whole units after the
 * decision; {@code reset} is the time until the bucket is empty.
 *
 * <p>Immutable and thread-safe.
 */
public final class LeakyBucket extends Algorithm<Cell> {

    private final long interval;
    private final long capacity;
    /** {@code capacity * interval}: the most water the bucket holds, in nanoseconds of leaking (rounded up). */
    private final long depth;
    private final ExactInterval exact;
    /** The leak interval in ticks. */
    private final long step;
    /** The depth in ticks. */
    private final long depthTicks;

    /** The rate as configured (equality compares the exact interval it stands for). */
    private final Rate rate;

    private LeakyBucket(Rate rate, long capacity) {
        this.rate = rate;
        this.capacity = capacity;
        this.exact = ExactInterval.of(rate, capacity, "capacity * interval");
        this.interval = exact.nanos;
        this.step = exact.step;
        this.depthTicks = exact.window;
        this.depth = exact.nanosCeil(depthTicks);
    }

    /**
     * @return a builder; {@code rate} must be set, {@code capacity} defaults to the rate's permits
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A bucket of the rate's permits that leaks at the rate ({@code leaky-bucket 10/1s}):
     * {@code LeakyBucket.of(Rate.perSecond(10))} holds 10 units and drains 10 a second. For another
     * capacity, use the {@link #builder()}.
     *
     * @param rate the leak rate; its permits are the capacity
     * @return the algorithm
     * @throws NullPointerException if {@code rate} is null
     * @throws IllegalArgumentException if the rate is above one unit per nanosecond
     */
    public static LeakyBucket of(Rate rate) {
        return builder().rate(rate).build();
    }

    /** @return nanoseconds it takes one unit of water to leak out */
    public long intervalNanos() {
        return interval;
    }

    /** @return the bucket's capacity in permits */
    public long capacity() {
        return capacity;
    }

    @Override
    public String kind() {
        return "leaky-bucket";
    }

    @Override
    public long limit() {
        return capacity;
    }

    @Override
    public long windowNanos() {
        return depth;
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
            long emptyAt = cell.word();
            if (emptyAt == Cell.RETIRED) {
                return RETIRED;
            }
            // Wrapping difference (see ExactInterval): empty in the past, or so far ahead that the
            // word of an idle key wrapped around, is an empty bucket.
            long ahead = emptyAt - nowT;
            long level = ahead > 0 && ahead <= depthTicks + ExactInterval.SLACK ? ahead : 0;
            if (cost > capacity) {
                if (out != null) {
                    out.deny(capacity, free(level), exact.nanosCeil(level), Decision.NEVER);
                }
                return DENIED;
            }
            long after = level + cost * step;
            if (after > depthTicks) {
                if (out != null) {
                    out.deny(capacity, free(level), exact.nanosCeil(level), exact.nanosCeil(after - depthTicks));
                }
                return DENIED;
            }
            if (cost == 0 || cell.casWord(emptyAt, ExactInterval.word(nowT + after))) {
                if (out != null) {
                    out.allow(capacity, free(after), exact.nanosCeil(after));
                    if (cost > 0) {
                        out.receipt(now);
                    }
                }
                return ADMITTED;
            }
        }
    }

    /** Whole units of room left above a level in ticks. */
    private long free(long level) {
        long room = depthTicks - level;
        return room > 0 ? room / step : 0;
    }

    @Override
    public void refund(Cell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0) {
            return;
        }
        TimeWord.refundTicks(cell, 0, Math.min(cost, capacity) * step, receipt, clock, exact.den);
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
        return o instanceof LeakyBucket b && b.exact.equals(exact) && b.capacity == capacity;
    }

    @Override
    public int hashCode() {
        return Objects.hash(exact, capacity);
    }

    @Override
    public String toString() {
        return "leaky-bucket{capacity=" + capacity + ", interval=" + Units.duration(interval) + '}';
    }

    /** Builds a {@link LeakyBucket}. Not thread-safe. */
    public static final class Builder {
        private Rate rate;
        /** The permits of the rate, the default capacity. */
        private long permits;
        private long capacity;

        private Builder() {
        }

        /**
         * Sets the leak rate (required): units of water leaked per period.
         *
         * @param rate units per period
         * @return this builder
         * @throws NullPointerException if {@code rate} is null
         * @throws IllegalArgumentException if the rate is above one unit per nanosecond
         */
        public Builder rate(Rate rate) {
            Objects.requireNonNull(rate, "rate");
            Checks.intervalNanos(rate.permits(), rate.periodNanos());
            this.rate = rate;
            this.permits = rate.permits();
            return this;
        }

        /**
         * Sets how many permits the bucket holds. Default: the permits of the {@link #rate rate}.
         *
         * @param capacity permits, {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if {@code capacity < 1}
         */
        public Builder capacity(long capacity) {
            this.capacity = Checks.atLeast("capacity", capacity, 1);
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if the rate is missing
         * @throws IllegalArgumentException if {@code capacity * interval} exceeds about 73 years
         */
        public LeakyBucket build() {
            if (rate == null) {
                throw new IllegalStateException("rate must be set");
            }
            return new LeakyBucket(rate, capacity != 0 ? capacity : permits);
        }
    }
}
