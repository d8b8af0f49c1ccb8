package io.github.sluice.algorithm;

import io.github.sluice.internal.Units;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import io.github.sluice.internal.TokenMath;
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
 * The interval between tokens is {@code period / permits} rounded <em>up</em> to whole
 * nanoseconds, so the configured rate is never exceeded; the relative error is below
 * {@code 1 / interval} (one part in a billion for one token per second).
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
    private final long capacity;

    private TokenBucket(long interval, long burst) {
        this.interval = interval;
        this.burst = burst;
        this.capacity = Checks.product("burst * interval", burst, interval);
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

    /** @return nanoseconds between two tokens */
    public long intervalNanos() {
        return interval;
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
        return new Cell(now - capacity);
    }

    @Override
    public int acquire(Cell cell, long now, long cost, MutableDecision out) {
        while (true) {
            long base = cell.word();
            if (base == Cell.RETIRED) {
                return RETIRED;
            }
            long effective = TokenMath.effectiveBase(base, now, capacity);
            if (cost > burst) {
                if (out != null) {
                    out.deny(burst, TokenMath.wholeTokens(effective, now, interval),
                            TokenMath.resetNanos(effective, now, capacity), Decision.NEVER);
                }
                return DENIED;
            }
            long next = effective + cost * interval;
            if (next > now) {
                if (out != null) {
                    out.deny(burst, TokenMath.wholeTokens(effective, now, interval),
                            TokenMath.resetNanos(effective, now, capacity), next - now);
                }
                return DENIED;
            }
            if (cost == 0 || cell.casWord(base, next)) {
                if (out != null) {
                    out.allow(burst, TokenMath.wholeTokens(next, now, interval),
                            TokenMath.resetNanos(next, now, capacity));
                    if (cost > 0) {
                        out.receipt(now);
                    }
                }
                return ADMITTED;
            }
        }
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
        TimeWord.refund(cell, capacity, Math.min(cost, burst) * interval, receipt, clock);
    }

    @Override
    public boolean isFresh(Cell cell, long now) {
        return TimeWord.isFresh(cell, now - capacity);
    }

    @Override
    public boolean retireIfFresh(Cell cell, long now) {
        return TimeWord.retireIfFresh(cell, now - capacity);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenBucket t && t.interval == interval && t.burst == burst;
    }

    @Override
    public int hashCode() {
        return Objects.hash(interval, burst);
    }

    @Override
    public String toString() {
        return "token-bucket{interval=" + Units.duration(interval) + ", burst=" + burst + '}';
    }

    /** Builds a {@link TokenBucket}. Not thread-safe. */
    public static final class Builder {
        private long interval;
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
            this.interval = Checks.intervalNanos(rate.permits(), rate.periodNanos());
            this.permits = rate.permits();
            return this;
        }

        /**
         * Sets the refill rate in tokens per second; the {@link #burst} must then be set too.
         *
         * @param perSecond a finite rate {@code > 0}
         * @return this builder
         * @throws IllegalArgumentException if the rate is NaN, infinite, not positive or out of range
         */
        public Builder rate(double perSecond) {
            this.interval = Checks.intervalNanos("rate", perSecond);
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
            if (interval == 0) {
                throw new IllegalStateException("rate must be set");
            }
            long b = burst != 0 ? burst : permits;
            if (b == 0) {
                throw new IllegalStateException("burst must be set for a rate given per second");
            }
            return new TokenBucket(interval, b);
        }
    }
}
