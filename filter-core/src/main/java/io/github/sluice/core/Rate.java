package io.github.sluice.core;

import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Units;
import java.time.Duration;
import java.util.Objects;

/**
 * A speed: a whole number of permits per period, such as 100 per minute. The argument that every
 * algorithm which refills, leaks or spaces permits takes as its {@code rate}:
 * <pre>{@code
 * TokenBucket perIp = TokenBucket.of(Rate.perMinute(100));
 * ShapingLeakyBucket paced = ShapingLeakyBucket.builder().rate(Rate.of(10, Duration.ofSeconds(1)))
 *         .maxDelay(Duration.ofMillis(500)).build();
 * }</pre>
 * It is the policy language's {@code permits/period} ({@code 100/1m}) as a value, so that a rate
 * cannot be passed where a count (a burst, a capacity) is expected, nor the other way round.
 *
 * <h2>Exact</h2>
 * A rate keeps the two whole numbers it was given, the permits and the period (to the
 * nanosecond), never a floating-point quotient: {@code Rate.of(1, Duration.ofSeconds(3))} is one
 * permit per three seconds, not 0.333... per second. Each algorithm turns it into the nanoseconds
 * between two permits, rounded so that the rate is never exceeded (see the algorithm), which
 * allows at most one permit per nanosecond.
 *
 * <h2>Equality</h2>
 * Two rates are {@link #equals equal} when their permits and periods are: {@code 100/1m} and
 * {@code 200/2m} are the same speed but not equal, because the permits are also the default
 * burst or capacity of the algorithms built from a rate ({@code TokenBucket.of(Rate)}).
 *
 * <h2>Why a type</h2>
 * Bucket4j writes a refill as tokens and a period next to a capacity, Guava and Go's
 * {@code x/time/rate} a {@code double} per second next to a burst ({@code NewLimiter(r, b)}):
 * numbers a caller can swap. Here the rate is one typed argument, and an algorithm's
 * {@code of(...)} never takes a count next to it: {@code TokenBucket.of(rate)} holds the rate's
 * permits at once, and another burst is set by name, {@code builder().rate(rate).burst(20)}.
 * Every builder names this argument {@code rate}; a rate in events per second as a
 * {@code double} is an overload of that setter ({@code TokenBucket.Builder.rate(double)}), and
 * one permit per interval ({@code x/time/rate}'s {@code Every}) is a factory of this class, so
 * both keep the one word. {@code docs/algorithms.md} ("In code") has the whole vocabulary.
 *
 * <p>Immutable and thread-safe.
 */
public final class Rate {

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Duration HOUR = Duration.ofHours(1);
    private static final Duration DAY = Duration.ofDays(1);

    private final long permits;
    private final long periodNanos;

    private Rate(long permits, long periodNanos) {
        this.permits = permits;
        this.periodNanos = periodNanos;
    }

    /**
     * Returns {@code permits} per {@code period}, e.g. {@code Rate.of(100, Duration.ofMinutes(1))}.
     *
     * @param permits permits per period, {@code >= 1}
     * @param period the period, {@code > 0} and at most about 73 years
     * @return the rate
     * @throws NullPointerException if {@code period} is null
     * @throws IllegalArgumentException if {@code permits < 1}, or the period is zero, negative or
     *     longer than about 73 years
     */
    public static Rate of(long permits, Duration period) {
        Checks.atLeast("permits", permits, 1);
        return new Rate(permits, Checks.positiveNanos("period", period));
    }

    /**
     * @param permits permits per second, {@code >= 1}
     * @return {@code permits} per second
     * @throws IllegalArgumentException if {@code permits < 1}
     */
    public static Rate perSecond(long permits) {
        return of(permits, SECOND);
    }

    /**
     * Returns a rate given in permits per second as a {@code double}, as Guava's
     * {@code permitsPerSecond} and x/time/rate's {@code Limit} take it, read as the exact fraction
     * it stands for: the simplest fraction {@code permits / seconds} that rounds to the same double
     * (its first such continued-fraction convergent), so {@code perSecond(7 / 60.0)} equals
     * {@code perMinute(7)} as a speed ({@code 7/60s}), {@code perSecond(0.5)} is {@code 1/2s} and
     * {@code perSecond(1 / 3.0)} is {@code 1/3s}. A double with no such fraction whose period
     * fits in about 73 years is read as the closest convergent below it (never faster).
     *
     * <p>Rates so small that one permit takes longer than about 73 years (such as {@code 1e-10},
     * one per 317 years) are refused: intervals and bursts are signed 64-bit nanoseconds. x/time/rate's
     * {@code Inf} and a limit of 0 are not rates; {@code TokenBucketLimiter} takes them.
     *
     * @param permitsPerSecond a finite rate, {@code > 0} and at most {@code 1e9}
     * @return the rate
     * @throws IllegalArgumentException if the rate is NaN, infinite, not positive, above one per
     *     nanosecond, or below one per about 73 years
     */
    public static Rate perSecond(double permitsPerSecond) {
        long[] fraction = Checks.perSecondFraction("permitsPerSecond", permitsPerSecond);
        return new Rate(fraction[0], fraction[1]);
    }

    /**
     * Returns one permit per {@code interval}: x/time/rate's {@code Every}.
     * {@code Rate.every(Duration.ofMillis(100))} is {@code 1/100ms}, ten per second. x/time/rate
     * maps an interval of zero to {@code Inf}, which is not a rate: use
     * {@code TokenBucketLimiter.Builder.every(Duration)}, which accepts it.
     *
     * @param interval the time between two permits, {@code > 0} and at most about 73 years
     * @return the rate
     * @throws NullPointerException if {@code interval} is null
     * @throws IllegalArgumentException if {@code interval} is zero, negative or too long
     */
    public static Rate every(Duration interval) {
        return new Rate(1, Checks.positiveNanos("interval", interval));
    }

    /**
     * @param permits permits per minute, {@code >= 1}
     * @return {@code permits} per minute
     * @throws IllegalArgumentException if {@code permits < 1}
     */
    public static Rate perMinute(long permits) {
        return of(permits, MINUTE);
    }

    /**
     * @param permits permits per hour, {@code >= 1}
     * @return {@code permits} per hour
     * @throws IllegalArgumentException if {@code permits < 1}
     */
    public static Rate perHour(long permits) {
        return of(permits, HOUR);
    }

    /**
     * @param permits permits per day, {@code >= 1}
     * @return {@code permits} per day
     * @throws IllegalArgumentException if {@code permits < 1}
     */
    public static Rate perDay(long permits) {
        return of(permits, DAY);
    }

    /** @return the permits per {@link #period()}, {@code >= 1} */
    public long permits() {
        return permits;
    }

    /** @return the period, {@code > 0} */
    public Duration period() {
        return Duration.ofNanos(periodNanos);
    }

    /** @return the period in nanoseconds, {@code >= 1} */
    public long periodNanos() {
        return periodNanos;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Rate r && r.permits == permits && r.periodNanos == periodNanos;
    }

    @Override
    public int hashCode() {
        return Objects.hash(permits, periodNanos);
    }

    /** @return the rate as the policy language writes it, e.g. {@code 100/1m} */
    @Override
    public String toString() {
        return permits + "/" + Units.duration(periodNanos);
    }
}
