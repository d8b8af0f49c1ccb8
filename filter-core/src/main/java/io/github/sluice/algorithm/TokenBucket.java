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
 * Token bucket with the semantics of Go's {@code golang.org/x/time/rate}: a bucket of
 * {@code burst} tokens, refilled continuously at {@code rate}, that starts full. A request of
 * {@code n} tokens is admitted if {@code n} tokens are there; {@code n > burst} is always refused
 * (with {@link Decision#NEVER} as retry-after), never waited for.
 *
 * <h2>State</h2>
 * One {@code long} per key: the instant at which the bucket would hold zero tokens ("base").
 * Tokens at {@code now} are {@code min(burst, (now - base) / interval)}; taking {@code n} tokens
 * adds {@code n * interval} to the base. This is the x/time/rate model (tokens plus last update)
 * folded into one word, so a decision is one compare-and-set.
 *
 * <h2>Precision</h2>
 * The schedule is exact: the interval {@code period / permits} is kept as a fraction, so
 * {@code 7/1m} refills exactly 7 tokens per 60 s forever, never losing a fraction of a
 * nanosecond per token to rounding. The base is held in ticks of {@code 1/N} ns, where
 * {@code N} is the reduced denominator ({@code N = 1}, plain nanoseconds, whenever the period is
 * a multiple of the permits, e.g. {@code 100/1m}); see {@code ExactInterval} in the source for
 * how that fits in one word. Denominators above 1024 (a count of permits with a large prime
 * factor, such as {@code 1031/1h}) use the interval rounded <em>up</em> to the nanosecond, so
 * the rate is never exceeded; the relative error is then below {@code 1 / interval}.
 *
 * <h2>Headers</h2>
 * {@code limit} is the burst; the window announced is the time to refill a full bucket
 * ({@code burst * interval}); {@code remaining} is the whole tokens left; {@code reset} is the
 * time until the bucket is full again.
 *
 * <h2>Refunds</h2>
 * {@link #refund} gives an admission's tokens back, less what the bucket refilled since the
 * admission's clock reading (its receipt): all of them when the refund follows at once, nothing
 * once the bucket could have refilled them; never above a full bucket.
 *
 * <p>Immutable and thread-safe. The standalone limiter with reservations, waits and runtime
 * changes of rate and burst is {@link io.github.sluice.limiter.TokenBucketLimiter}.
 */
public final class TokenBucket extends Algorithm<Cell> {

    private final long interval;
    private final long burst;
    /** The window in nanoseconds, rounded up, for headers. */
    private final long capacity;
    private final Rate rate;
    private final ExactInterval exact;
    /** {@code burst * step}: the capacity in ticks. */
    private final long capTicks;
    private final long step;

    private TokenBucket(Rate rate, long burst) {
        this.rate = rate;
        this.exact = ExactInterval.of(rate, burst, "burst * interval");
        this.interval = exact.nanos;
        this.burst = burst;
        this.step = exact.step;
        this.capTicks = exact.window;
        this.capacity = exact.nanosCeil(capTicks);
    }

    /**
     * @return a builder; {@code rate} must be set, {@code burst} defaults to the rate's permits
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A bucket of the rate's permits, refilled at the rate ({@code token-bucket 100/1m}):
     * {@code TokenBucket.of(Rate.perMinute(100))} admits 100 at once, then 100 a minute. For
     * another burst, use the {@link #builder()}.
     *
     * @param rate the refill rate; its permits are the burst
     * @return the algorithm
     * @throws NullPointerException if {@code rate} is null
     * @throws IllegalArgumentException if the rate is above one token per nanosecond
     */
    public static TokenBucket of(Rate rate) {
        return builder().rate(rate).build();
    }

    /**
     * @return nanoseconds between two tokens, rounded up; the schedule itself is exact (see
     *     "Precision")
     */
    public long intervalNanos() {
        return interval;
    }

    /**
     * @return the refill rate exactly as configured (a rate given per second as the fraction it
     *     stands for, see {@link Rate#perSecond(double)}); {@link io.github.sluice.limiter.TokenBucketLimiter} schedules
     *     with it exactly, this algorithm with {@link #intervalNanos()}
     */
    public Rate rate() {
        return rate;
    }

    /** @return the bucket's capacity in tokens */
    public long burst() {
        return burst;
    }

    @Override
    public String kind() {
        return "token-bucket";
    }

    @Override
    public long limit() {
        return burst;
    }

    @Override
    public long windowNanos() {
        return capacity;
    }

    /** @return 24: a plain {@link Cell} (header, the word, the access stamp) */
    @Override
    public long bytesPerKey() {
        return objectBytes(1, 1, 0);
    }

    @Override
    public Cell newCell(long now) {
        return new Cell(ExactInterval.word(exact.ticks(now) - capTicks));
    }

    @Override
    public int acquire(Cell cell, long now, long cost, MutableDecision out) {
        long nowT = exact.ticks(now);
        long floor = nowT - capTicks;
        while (true) {
            long base = cell.word();
            if (base == Cell.RETIRED) {
                return RETIRED;
            }
            // Wrapping differences (see ExactInterval): a full bucket, or a key idle so long that
            // its word wrapped around, starts from the floor; a base after a stale reading stays.
            long credit = nowT - base;
            long effective = credit > capTicks || credit < -ExactInterval.SLACK ? floor : base;
            if (cost > burst) {
                if (out != null) {
                    out.deny(burst, whole(nowT - effective), exact.nanosCeil(effective - floor), Decision.NEVER);
                }
                return DENIED;
            }
            long next = effective + cost * step;
            if (next - nowT > 0) {
                if (out != null) {
                    out.deny(burst, whole(nowT - effective), exact.nanosCeil(effective - floor),
                            exact.nanosCeil(next - nowT));
                }
                return DENIED;
            }
            if (cost == 0 || cell.casWord(base, ExactInterval.word(next))) {
                if (out != null) {
                    out.allow(burst, whole(nowT - next), exact.nanosCeil(next - floor));
                    if (cost > 0) {
                        out.receipt(now);
                    }
                }
                return ADMITTED;
            }
        }
    }

    /** Whole tokens in a credit of ticks; none for a debt. */
    private long whole(long creditTicks) {
        return creditTicks <= 0 ? 0 : creditTicks / step;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the admission's clock reading. The base moves back by the admission's
     * tokens less the refill since that reading (nothing once a token interval per token has
     * passed), never below a full bucket: see {@code TimeWord} in the source for why that much is
     * provably the admission's own.
     */
    @Override
    public void refund(Cell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0) {
            return;
        }
        TimeWord.refundTicks(cell, capTicks, Math.min(cost, burst) * step, receipt, clock, exact.den);
    }

    @Override
    public boolean isFresh(Cell cell, long now) {
        return TimeWord.isFreshTicks(cell, exact.ticks(now) - capTicks);
    }

    @Override
    public boolean retireIfFresh(Cell cell, long now) {
        return TimeWord.retireIfFreshTicks(cell, exact.ticks(now) - capTicks);
    }

    /** @return the exact schedule, for {@link RateChange} */
    ExactInterval exact() {
        return exact;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenBucket t && t.exact.equals(exact) && t.burst == burst;
    }

    @Override
    public int hashCode() {
        return Objects.hash(exact, burst);
    }

    @Override
    public String toString() {
        return "token-bucket{interval=" + Units.duration(interval) + ", burst=" + burst + '}';
    }

    /** Builds a {@link TokenBucket}. Not thread-safe. */
    public static final class Builder {
        private Rate rate;
        /** The permits of the rate, the default burst; 0 for a rate given per second. */
        private long permits;
        private long burst;

        private Builder() {
        }

        /**
         * Sets the refill rate (required).
         *
         * @param rate tokens per period
         * @return this builder
         * @throws NullPointerException if {@code rate} is null
         * @throws IllegalArgumentException if the rate is above one token per nanosecond
         */
        public Builder rate(Rate rate) {
            Objects.requireNonNull(rate, "rate");
            Checks.intervalNanos(rate.permits(), rate.periodNanos());
            this.permits = rate.permits();
            this.rate = rate;
            return this;
        }

        /**
         * Sets the refill rate in tokens per second; the {@link #burst} must then be set too. The
         * double is read as the exact fraction it stands for ({@link Rate#perSecond(double)}).
         *
         * @param perSecond a finite rate {@code > 0}
         * @return this builder
         * @throws IllegalArgumentException if the rate is NaN, infinite, not positive, above one per
         *     nanosecond or below one per about 73 years
         */
        public Builder rate(double perSecond) {
            long[] fraction = Checks.perSecondFraction("rate", perSecond);
            this.rate = Rate.of(fraction[0], Duration.ofNanos(fraction[1]));
            this.permits = 0;
            return this;
        }

        /**
         * Sets the capacity. Default: the permits of the {@link #rate(Rate) rate}.
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
         * @return the algorithm
         * @throws IllegalStateException if the rate is missing, or the burst is missing for a rate
         *     given per second
         * @throws IllegalArgumentException if {@code burst * interval} overflows
         */
        public TokenBucket build() {
            if (rate == null) {
                throw new IllegalStateException("rate must be set");
            }
            long b = burst != 0 ? burst : permits;
            if (b == 0) {
                throw new IllegalStateException("burst must be set for a rate given per second");
            }
            return new TokenBucket(rate, b);
        }
    }
}
