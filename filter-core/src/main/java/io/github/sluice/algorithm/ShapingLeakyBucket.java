package io.github.sluice.algorithm;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.core.Outcome;
import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Units;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Leaky bucket used as a shaper, with the semantics of Go's {@code go.uber.org/ratelimit}: requests
 * are <em>spaced</em> one interval ({@code 1 / rate}) apart instead of refused. Each admitted
 * request is given a slot on a schedule; a request whose slot is in the future is admitted with
 * outcome {@link Outcome#SHAPED} and a {@link Decision#delayNanos() delay} the caller must wait
 * before proceeding; a request whose slot is due is {@link Outcome#ALLOWED}. A request that would
 * have to wait longer than {@code maxDelay} is {@link Outcome#DENIED} instead, with the retry-after
 * after which it would be admitted within {@code maxDelay}, and takes no slot.
 *
 * <h2>Reference semantics</h2>
 * uber-go/ratelimit keeps the time of the last permission issued ({@code last}) and gives the next
 * {@code Take} the slot {@code max(last + interval, now - maxSlack)}: a quiet period lets slots
 * fall behind {@code now} by at most {@code maxSlack = slack * interval}, so up to {@code slack + 1}
 * requests after a pause proceed at once (a quiet period pays for a short burst), and after that
 * requests are spaced exactly one interval apart. A new uber-go limiter has issued nothing
 * (its state is zero): its first {@code Take} is given {@code now}, with no slack banked, so
 * back-to-back takes on a fresh limiter are spaced {@code 0, interval, 2 * interval, ...}, and slack
 * is earned only by idling. This class keeps {@code next = last + interval} instead (the earliest
 * slot of the next request) and decides a request of cost {@code n} as:
 * <pre>
 *   slot  = now                                 if the key has taken nothing yet ({@link Start#EMPTY})
 *         = max(next, now - slack * interval)   otherwise
 *   delay = max(0, slot - now)
 *   delay &gt; maxDelay  -&gt;  DENIED, retry-after = delay - maxDelay, nothing written
 *   otherwise         -&gt;  next = slot + n * interval; ALLOWED if delay == 0, else SHAPED(delay)
 * </pre>
 * A request of cost {@code n} occupies {@code n} consecutive intervals starting at its slot: it
 * proceeds at its slot and pushes the following request {@code n} intervals later (the
 * pre-consumption of Guava's {@code RateLimiter}), so a downstream sees its work evenly spread.
 * For {@code n = 1} this is exactly one {@code Take}. The one deliberate difference from
 * uber-go/ratelimit: uber-go never refuses, while {@code maxDelay} bounds how long a request may be
 * held (set it longer than any queue you expect, e.g. a day, for uber-go's unbounded queueing).
 *
 * <h2>How a new key starts, and idle eviction</h2>
 * {@link Start#EMPTY} (the default) is uber-go's {@code New}: a new key has no slack banked. A key
 * that has idled has, so the two differ, and an idle key with {@code slack > 0} is never equal to
 * a new one: the registry keeps it (idle eviction must not change answers) until the bound on keys
 * per policy makes room, evicting the keys with the most unused quota first. With
 * {@code slack = 0} the two starts are the same algorithm, and a key is fresh once its next slot
 * is due. {@link Start#EARNED} starts a new key as if it had been quiet for long, with its slack
 * already earned: a new key is then identical to an idle one, so idle keys are dropped without
 * loss as soon as their slack is earned back. Prefer it for per-client keys (many keys that come
 * and go); prefer the default for a few long-lived keys (one downstream, one tenant) and for code
 * ported from uber-go.
 *
 * <h2>State</h2>
 * One {@code long} per key, {@code next}, updated by compare-and-set; a new {@link Start#EMPTY}
 * key holds a sentinel that no clock reading equals. A refusal and a peek (cost zero) only read.
 *
 * <h2>Refunds</h2>
 * {@link #refund} moves {@code next} back to the refunded admission's slot, exactly undoing it,
 * when its slots are still the last ones issued (its receipt is the {@code next} it published), as
 * when another policy refuses the same request right away. (Refunding the first admission of an
 * {@link Start#EMPTY} key leaves the key as if one request had been taken an interval before it:
 * from then on it earns slack by idling.) If a later request took a slot after
 * it, the refund gives nothing back: that request was already told its delay, and moving
 * {@code next} back would schedule the one after it into an issued slot. Issued slots are
 * therefore never closer than one interval. Evaluate shaping policies after the policies that may
 * refuse, so that they are never refunded.
 *
 * <h2>Precision</h2>
 * The interval is {@code period / permits} rounded <em>up</em> to whole nanoseconds, so requests are
 * never spaced closer than the configured rate allows. (uber-go truncates {@code per / rate}, so
 * for a rate that does not divide its period its requests come up to a nanosecond earlier.)
 *
 * <h2>Headers</h2>
 * {@code limit} is the burst admitted without refusal from a quiet state,
 * {@code slack + 1 + floor(maxDelay / interval)} (those beyond {@code slack + 1} are delayed);
 * the window announced is {@code limit * interval}, so that {@code limit / window} is the rate;
 * {@code remaining} is how many more single-permit requests arriving now would be admitted (now or
 * delayed), and {@code reset} the time until the slack is fully earned back.
 *
 * <p>Immutable and thread-safe.
 */
public final class ShapingLeakyBucket extends Algorithm<Cell> {

    /** The slack used when none is set, as in uber-go/ratelimit. */
    public static final long DEFAULT_SLACK = 10;

    /** The longest delay used when none is set. */
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(1);

    /** The word of a {@link Start#EMPTY} key that has taken nothing; no clock reading equals it. */
    private static final long UNTAKEN = Cell.RETIRED + 1;

    /** How a new key starts: with no slack (uber-go's {@code New}) or with its slack earned. */
    public enum Start {
        /**
         * No slack banked, as uber-go's {@code New}: a key's first request proceeds at once and
         * the next ones are spaced one interval apart; slack is earned only by idling. The default.
         */
        EMPTY,
        /**
         * The slack already earned, as if the key had been quiet for long: a new key is identical
         * to an idle one, so idle keys can be evicted without changing any answer.
         */
        EARNED
    }

    private final long interval;
    private final long slack;
    private final long maxDelay;
    /** {@code slack * interval}: how far slots may fall behind {@code now}. */
    private final long slackNanos;
    private final long burst;
    private final Start start;
    /** Whether a key that has taken nothing must be told apart from an idle one. */
    private final boolean untaken;

    private ShapingLeakyBucket(long interval, long slack, long maxDelay, Start start) {
        this.interval = interval;
        this.slack = slack;
        this.maxDelay = maxDelay;
        this.start = start;
        // With no slack the two starts decide alike: an idle key has nothing banked either.
        this.untaken = start == Start.EMPTY && slack > 0;
        this.slackNanos = Checks.product("slack * interval", slack, interval);
        this.burst = slack + 1 + maxDelay / interval;
        Checks.product("burst * interval", burst, interval);
    }

    /** @return a builder; {@code rate} must be set */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Requests spaced at the rate, with the default slack, start and max delay
     * ({@code shaping 10/1s}): {@code ShapingLeakyBucket.of(Rate.perSecond(10))} spaces requests
     * 100 ms apart from the first one on, lets a key that has idled spend up to
     * {@value #DEFAULT_SLACK} intervals at once, and refuses a request that would wait more than a
     * second. For another slack, start or max delay, use the {@link #builder()}.
     *
     * @param rate requests per period
     * @return the algorithm
     * @throws NullPointerException if {@code rate} is null
     * @throws IllegalArgumentException if the rate is above one request per nanosecond
     */
    public static ShapingLeakyBucket of(Rate rate) {
        return builder().rate(rate).build();
    }

    /** @return nanoseconds between two slots */
    public long intervalNanos() {
        return interval;
    }

    /** @return how many intervals a quiet period may earn */
    public long slack() {
        return slack;
    }

    /** @return the longest delay a request is given, in nanoseconds, before it is refused */
    public long maxDelayNanos() {
        return maxDelay;
    }

    /** @return how a new key starts */
    public Start start() {
        return start;
    }

    @Override
    public String kind() {
        return "shaping";
    }

    @Override
    public long limit() {
        return burst;
    }

    @Override
    public long windowNanos() {
        return burst * interval;
    }

    /** @return 24: a plain {@link Cell} (header, the word, the access stamp) */
    @Override
    public long bytesPerKey() {
        return objectBytes(1, 1, 0);
    }

    @Override
    public Cell newCell(long now) {
        return new Cell(untaken ? UNTAKEN : now - slackNanos);
    }

    @Override
    public int acquire(Cell cell, long now, long cost, MutableDecision out) {
        long floor = now - slackNanos;
        while (true) {
            long next = cell.word();
            if (next == Cell.RETIRED) {
                return RETIRED;
            }
            // A key that has taken nothing is given now: uber-go's first Take, no slack banked.
            long slot = next == UNTAKEN ? now : Math.max(next, floor);
            long delay = Math.max(0, slot - now);
            if (cost > Checks.MAX_NANOS / interval) {
                // Refused forever; a key that has taken nothing stays as restored as it gets.
                if (out != null) {
                    out.deny(burst, remaining(now, slot), next == UNTAKEN ? 0 : slot - floor, Decision.NEVER);
                }
                return DENIED;
            }
            if (cost == 0) {
                // A peek needs no slot, so it never waits and is never refused. A key that has
                // taken nothing is as restored as it will ever be: its reset is zero.
                if (out != null) {
                    out.allow(burst, remaining(now, slot), next == UNTAKEN ? 0 : slot - floor);
                }
                return ADMITTED;
            }
            if (delay > maxDelay) {
                deny(out, now, slot, delay - maxDelay);
                return DENIED;
            }
            long after = slot + cost * interval;
            if (cell.casWord(next, after)) {
                if (out != null) {
                    if (delay == 0) {
                        out.allow(burst, remaining(now, after), after - floor);
                    } else {
                        out.shape(burst, remaining(now, after), after - floor, delay);
                    }
                    out.receipt(after);
                }
                return ADMITTED;
            }
        }
    }

    private void deny(MutableDecision out, long now, long slot, long retryAfter) {
        if (out != null) {
            out.deny(burst, remaining(now, slot), slot - now + slackNanos, retryAfter);
        }
    }

    /** Single-permit requests that would be admitted now, given the first free slot. */
    private long remaining(long now, long slot) {
        long spare = now + maxDelay - Math.max(slot, now - slackNanos);
        return spare < 0 ? 0 : Math.min(burst, spare / interval + 1);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the {@code next} the admission published (the end of its slots). The
     * refund gives the slots back only while they are still the last ones issued: {@code next}
     * moves back to the admission's own slot, exactly as if it had never been admitted. Once a
     * later request has taken a slot behind them, that request was told its delay and will go at
     * it, so the refund gives nothing back: returning the slots then would let the next request
     * take one that overlaps an issued slot. No clock is read.
     */
    @Override
    public void refund(Cell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0 || receipt == MutableDecision.NO_RECEIPT) {
            return;
        }
        long slots = Math.min(cost, Checks.MAX_NANOS / interval) * interval;
        while (true) {
            long next = cell.word();
            if (next != receipt || next == Cell.RETIRED) {
                return;
            }
            if (cell.casWord(next, next - slots)) {
                return;
            }
        }
    }

    @Override
    public boolean isFresh(Cell cell, long now) {
        return untaken ? cell.word() == UNTAKEN : TimeWord.isFresh(cell, now - slackNanos);
    }

    /**
     * {@inheritDoc}
     *
     * <p>An {@link Start#EMPTY} key with {@code slack > 0} is fresh only while it has taken
     * nothing: once it has, idling banks slack that a new key would not have.
     */
    @Override
    public boolean retireIfFresh(Cell cell, long now) {
        return untaken ? cell.retire(UNTAKEN) : TimeWord.retireIfFresh(cell, now - slackNanos);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShapingLeakyBucket s && s.interval == interval && s.slack == slack
                && s.maxDelay == maxDelay && s.start == start;
    }

    @Override
    public int hashCode() {
        return Objects.hash(interval, slack, maxDelay, start);
    }

    @Override
    public String toString() {
        return "shaping{interval=" + Units.duration(interval) + ", slack=" + slack
                + ", maxDelay=" + Units.duration(maxDelay) + ", start=" + start.name().toLowerCase(Locale.ROOT)
                + '}';
    }

    /** Builds a {@link ShapingLeakyBucket}. Not thread-safe. */
    public static final class Builder {
        private long interval;
        private long slack = DEFAULT_SLACK;
        private long maxDelay = DEFAULT_MAX_DELAY.toNanos();
        private Start start = Start.EMPTY;

        private Builder() {
        }

        /**
         * Sets how a new key starts. Default {@link Start#EMPTY}: no slack banked, as uber-go's
         * {@code New}; {@link Start#EARNED} starts it as if it had idled, which lets the registry
         * drop idle keys without changing any answer (see the class documentation).
         *
         * @param start how a new key starts
         * @return this builder
         * @throws NullPointerException if {@code start} is null
         */
        public Builder start(Start start) {
            this.start = Objects.requireNonNull(start, "start");
            return this;
        }

        /**
         * Sets the rate (required): slots per period.
         *
         * @param rate slots per period
         * @return this builder
         * @throws NullPointerException if {@code rate} is null
         * @throws IllegalArgumentException if the rate is above one slot per nanosecond
         */
        public Builder rate(Rate rate) {
            Objects.requireNonNull(rate, "rate");
            this.interval = Checks.intervalNanos(rate.permits(), rate.periodNanos());
            return this;
        }

        /**
         * Sets how many intervals a quiet period may earn, to be spent as an immediate burst.
         * Default {@value ShapingLeakyBucket#DEFAULT_SLACK}; zero spaces every request, even after a pause.
         *
         * @param slack intervals, {@code >= 0}
         * @return this builder
         * @throws IllegalArgumentException if {@code slack < 0}
         */
        public Builder slack(long slack) {
            this.slack = Checks.atLeast("slack", slack, 0);
            return this;
        }

        /**
         * Sets the longest delay a request may be given; a request that would wait longer is
         * refused. Default one second; zero refuses every request that would have to wait.
         *
         * @param maxDelay a duration {@code >= 0}
         * @return this builder
         * @throws NullPointerException if {@code maxDelay} is null
         * @throws IllegalArgumentException if it is negative or longer than about 73 years
         */
        public Builder maxDelay(Duration maxDelay) {
            Objects.requireNonNull(maxDelay, "maxDelay");
            if (maxDelay.isNegative()) {
                throw new IllegalArgumentException("maxDelay must be >= 0 but was " + Units.duration(maxDelay));
            }
            this.maxDelay = Checks.nonNegativeNanos("maxDelay", maxDelay);
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if the rate is missing
         * @throws IllegalArgumentException if {@code slack * interval} or the burst's window exceeds
         *     about 73 years
         */
        public ShapingLeakyBucket build() {
            if (interval == 0) {
                throw new IllegalStateException("rate must be set");
            }
            return new ShapingLeakyBucket(interval, slack, maxDelay, start);
        }
    }
}
