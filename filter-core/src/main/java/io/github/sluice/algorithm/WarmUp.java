package io.github.sluice.algorithm;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Units;
import java.time.Duration;
import java.util.Objects;

/**
 * Warm-up: Guava's {@code SmoothWarmingUp} rate limiter. A key that has been idle is <em>cold</em>:
 * its requests are spaced {@code coldFactor} times the stable interval apart at first, and the
 * spacing shrinks to the stable interval ({@code period / permits}) as the key is used, over the
 * warm-up period; idleness cools it down again at the same pace. Use it in front of something that
 * needs to warm up (caches, connection pools, a JIT-compiled service) after a quiet period.
 *
 * <h2>Reference semantics</h2>
 * Guava's {@code RateLimiter.create(permitsPerSecond, warmupPeriod, unit, coldFactor)} with
 * {@code tryAcquire(permits, 0, unit)}: a request is admitted if the next free ticket is not in the
 * future, and then <em>pre-consumes</em> its permits: a large request is admitted at once and the
 * following requests wait for it ({@code nextFreeTicket} moves by the cost of its permits). A
 * request that comes before the next free ticket is {@linkplain Decision denied} with
 * {@code retryAfter = nextFreeTicket - now} and changes nothing. New keys start cold, as Guava's
 * limiter does. The stored permits ({@code 0..maxPermits}) are served first; those above the
 * threshold cost more time, along Guava's line from the stable to the cold interval; the rest, and
 * fresh permits, cost the stable interval. An acquire-and-sleep loop on this class reproduces
 * Guava's documented spacing, e.g. {@code 0.00, 1.38, 1.13, 0.88, 0.63, 0.50, 0.50 s} for 2 per
 * second, a 4 s warm-up and a cold factor of 3.
 *
 * <h2>State and arithmetic</h2>
 * Guava stores {@code storedPermits} (a double) and {@code nextFreeTicketMicros}. This class
 * stores the permits as <em>credit</em> {@code u}: the nanoseconds of idleness they took to
 * accumulate ({@code storedPermits * coolDownInterval}), {@code 0 <= u <= P} with {@code P} the
 * warm-up period, so that idleness adds to it exactly. With the stable interval
 * {@code I = ceil(period / permits)} and the constants computed once at build time
 * <pre>
 *   uT = floor(P (1 + c) / (c + 5))                    credit at Guava's thresholdPermits
 *   Cq = ceil(2^q 2 (1 + c) period / ((c + 5) permits))   credit per permit (coolDownInterval)
 *        in 2^-q ns, q = 61 - bits(ceil(C)) kept within [1, 40]
 *   L  = ceil(2^(s + 50) K / W), K = (c - 1)(c + 5) / (4 (1 + c)), W = 4 P / (c + 5) exactly,
 *        s = bits of (P - uT)
 * </pre>
 * an admission of {@code n} permits at {@code now} (with {@code next <= now}; a reservation of a
 * future ticket uses {@code u} as it is and starts from {@code next}) computes, in integers:
 * <pre>
 *   uEff  = min(P, u + now - next)                      Guava's resync
 *   after = max(0, uEff - floor(n (Cq - 1) / 2^q))      the credit left: at least Guava's
 *   low   = max(0, uEff - ceil(n Cq / 2^q))             the credit charged down to: at most Guava's
 *   b = max(0, uEff - uT), a = max(0, low - uT)         the part above the threshold
 *   extra = ceil((b - a) ceil((b + a) L / 2^s) / 2^50) = K (b^2 - a^2) / W
 *   next' = max(now, next) + n I + extra,  u' = after
 * </pre>
 * which is Guava's {@code storedPermitsToWaitTime} plus the fresh permits' cost, rewritten in credit
 * (the stable part of every permit costs {@code I}; the trapezoid above the threshold adds
 * {@code extra}). Floating point is used only to read the cold factor at build time.
 *
 * <h2>Precision</h2>
 * Every rounding errs towards waiting. From the same state, a decision's charge (how far it pushes
 * the next ticket) is never less than Guava's formulas evaluated in exact real arithmetic, and
 * exceeds them by less than a nanosecond per permit (rounding {@code I} up) plus a few nanoseconds
 * of fixed point; the credit it leaves is never less than Guava's (more credit is a colder,
 * slower key). The credit spent is bounded on both sides by one constant: {@code Cq} is rounded
 * up, and {@code Cq - 1} is below the exact value. Over a whole sequence the schedules can part
 * by more than a decision's error, in both directions: Guava's next ticket, being earlier, leaves
 * its key idle, and cooling, for those nanoseconds longer. Guava itself truncates every wait to
 * whole microseconds, so its published figures differ from these by up to 3 microseconds per
 * request; the tests compare this class with double-precision transcriptions of Guava in
 * nanoseconds: within 1 microsecond per decision, and never shorter from the same state.
 *
 * <h2>Concurrency</h2>
 * Lock-free; nothing is allocated per decision. The ticket and a publishing flag share the cell's
 * word, the single compare-and-set point ({@link WarmUpCell}). An admission reads the word, then
 * the credit, then the word again (a consistent pair), publishes {@code next' | flag} by
 * compare-and-set (the linearization point), writes {@code u'}, and clears the flag. A refusal
 * needs only the ticket, so it never waits and never writes. An admission that finds the flag set
 * on a ticket already due (the publishing thread was descheduled for longer than the wait it
 * created, at least one stable interval) is refused with a retry-after of one nanosecond rather
 * than wait for it: the one case where a request may be refused that Guava would admit; none is
 * ever admitted that should not be.
 *
 * <h2>Refunds</h2>
 * {@link #refund} undoes an admission of {@code n} permits while the ticket it published (its
 * receipt) is still the key's: the ticket moves back by what the admission added to it, never
 * further, and the credit it spent comes back (never above {@code P}). That restores exactly the
 * state the admission found, except when it spent all the credit there was: then the ticket moves
 * back by the stable part only and the credit comes back in full, both erring towards a slower,
 * colder key. Once a later request has taken the next ticket, the schedule is that request's and
 * the refund gives nothing back: moving it back would let the request after that one in less
 * than a stable interval after its predecessor.
 *
 * <h2>Headers</h2>
 * {@code limit} and the window are the configured stable rate ({@code permits} per
 * {@code period}); {@code remaining} is how many stable intervals of that period the ticket leaves
 * free, {@code clamp(permits - ceil((next - now) / I), 0, permits)}; {@code reset} is the time
 * until the ticket is due.
 *
 * <p>Immutable and thread-safe. Clock readings must lie in {@code [0, 2^62)} (until the year 2116).
 */
public final class WarmUp extends Algorithm<WarmUpCell> implements Reservable<WarmUpCell> {

    /** The cold factor used when none is set, as in Guava. */
    public static final double DEFAULT_COLD_FACTOR = 3.0;
    /** The largest warm-up period accepted. */
    public static final Duration MAX_WARM_UP = Duration.ofDays(7);
    /** The largest cold factor accepted. */
    public static final double MAX_COLD_FACTOR = 1000.0;

    private static final long TICKET = (1L << 62) - 1;
    /** The publishing flag in a cell's word; package-private for tests that stall a publisher. */
    static final long PUBLISHING = 1L << 62;
    private static final int SLOPE_SHIFT = 50;

    private final long permits;
    private final long period;
    private final long warmUp;
    private final double coldFactor;
    private final long interval;
    private final long threshold;
    private final long creditPerPermit;
    private final int creditShift;
    private final long slope;
    private final int widthBits;

    private WarmUp(long permits, long period, long warmUp, double coldFactor) {
        this.permits = permits;
        this.period = period;
        this.warmUp = warmUp;
        this.coldFactor = coldFactor;
        this.interval = Checks.intervalNanos(permits, period);
        this.threshold = WarmUpMath.threshold(warmUp, coldFactor);
        long width = warmUp - threshold;
        this.widthBits = Math.max(1, 64 - Long.numberOfLeadingZeros(width));
        this.creditShift = WarmUpMath.creditShift(period, permits, coldFactor);
        this.creditPerPermit = WarmUpMath.creditPerPermit(period, permits, coldFactor, creditShift);
        this.slope = WarmUpMath.slope(coldFactor, warmUp, width, widthBits);
    }

    /** @return a builder; {@code rate} and {@code warmUp} must be set */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The stable rate, reached in {@code warmUp} from a cold start at a third of it
     * ({@code warm-up 10/1s warm-up=30s}): {@code WarmUp.of(Rate.perSecond(10),
     * Duration.ofSeconds(30))}. For another cold factor, use the {@link #builder()}.
     *
     * @param rate the stable rate
     * @param warmUp the time a cold key takes to reach it at full use, {@code >= 0} (zero: no
     *     warm-up, nothing stored) and at most {@link #MAX_WARM_UP}
     * @return the algorithm
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder})
     */
    public static WarmUp of(Rate rate, Duration warmUp) {
        return builder().rate(rate).warmUp(warmUp).build();
    }

    /** @return the permits of the rate this algorithm was built with, e.g. 10 for {@code 10/1s} */
    public long permits() {
        return permits;
    }

    /** @return the period of the rate this algorithm was built with, in nanoseconds */
    public long periodNanos() {
        return period;
    }

    /** @return nanoseconds between two permits once warm */
    public long intervalNanos() {
        return interval;
    }

    /** @return the warm-up period in nanoseconds */
    public long warmUpNanos() {
        return warmUp;
    }

    /** @return how many times the stable interval a cold key's requests are spaced */
    public double coldFactor() {
        return coldFactor;
    }

    /** @return the credit, in nanoseconds, at Guava's threshold between stable and warming permits */
    long thresholdNanos() {
        return threshold;
    }

    /** @return the credit one permit is worth, in units of {@code 2^-creditShift} ns */
    long creditPerPermit() {
        return creditPerPermit;
    }

    /** @return {@code q}, the fractional bits of {@link #creditPerPermit()} */
    int creditShift() {
        return creditShift;
    }

    /** @return the slope constant {@code L} of the class documentation */
    long slope() {
        return slope;
    }

    /** @return {@code s}, the bit length of {@code P - uT} */
    int widthBits() {
        return widthBits;
    }

    @Override
    public String kind() {
        return "warm-up";
    }

    @Override
    public long limit() {
        return permits;
    }

    @Override
    public long windowNanos() {
        return period;
    }

    /** @return 32: a {@link WarmUpCell} (header, the word, the access stamp, the stored credit) */
    @Override
    public long bytesPerKey() {
        return objectBytes(2, 1, 0);
    }

    /** A new key is cold: full credit, ticket due now. */
    @Override
    public WarmUpCell newCell(long now) {
        return new WarmUpCell(Math.max(0, now), warmUp);
    }

    /** A warm key (no credit stored: Guava's {@code storedPermits = 0}) due at {@code next}. */
    WarmUpCell warmCell(long next) {
        return new WarmUpCell(Math.max(0, next), 0);
    }

    /** The next free ticket held in a cell's word. */
    static long ticket(long word) {
        return word & TICKET;
    }

    @Override
    public int acquire(WarmUpCell cell, long now, long cost, MutableDecision out) {
        return reserve(cell, now, cost, 0, out);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Guava's {@code reserve}: a ticket in the future is taken from the ticket itself (no
     * resync, as {@code now} is before it), and the wait reported is the time until that ticket,
     * before this request's own cost. With {@code maxWaitNanos = 0} this is {@link #acquire}.
     */
    @Override
    public int reserve(WarmUpCell cell, long now, long cost, long maxWaitNanos, MutableDecision out) {
        long maxWait = Math.min(Math.max(0, maxWaitNanos), Checks.MAX_NANOS);
        while (true) {
            long word = cell.word();
            if (word == Cell.RETIRED) {
                return RETIRED;
            }
            long next = word & TICKET;
            if (cost == 0) {
                if (out != null) {
                    out.allow(permits, remaining(next, now), Math.max(0, next - now));
                }
                return ADMITTED;
            }
            if (cost > Checks.MAX_NANOS / interval) {
                deny(out, next, now, Decision.NEVER);
                return DENIED;
            }
            long due = Math.max(0, next - now);
            if (due > maxWait) {
                deny(out, next, now, due - maxWait);
                return DENIED;
            }
            if ((word & PUBLISHING) != 0) {
                deny(out, next, now, Math.max(1, due));
                return DENIED;
            }
            long credit = cell.stored();
            if (cell.word() != word) {
                continue;
            }
            long idle = now - next;
            long uEff = idle <= 0 ? credit : idle >= warmUp - credit ? warmUp : credit + idle;
            long base = Math.max(next, now);
            long fresh = cost * interval;
            // Credit makes a key colder (slower): keep at least Guava's, charge at least Guava's.
            long after = Math.max(0, uEff - spentAtMost(cost));
            long wait = fresh + extra(uEff, Math.max(0, uEff - spentAtLeast(cost)));
            if (wait > TICKET - base) {
                deny(out, next, now, Decision.NEVER);
                return DENIED;
            }
            long ticket = base + wait;
            if (!cell.casWord(word, ticket | PUBLISHING)) {
                continue;
            }
            cell.stored(after);
            cell.casWord(ticket | PUBLISHING, ticket);
            if (out != null) {
                if (due == 0) {
                    out.allow(permits, remaining(ticket, now), ticket - now);
                } else {
                    out.shape(permits, remaining(ticket, now), ticket - now, due);
                }
                out.receipt(ticket);
            }
            return ADMITTED;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The stored credit, with the idle time since the ticket added (capped at the warm-up
     * period), divided by the credit one permit is worth (Guava's {@code coolDownInterval}).
     */
    @Override
    public double storedPermits(WarmUpCell cell, long now) {
        while (true) {
            long word = cell.word();
            if (word == Cell.RETIRED) {
                return 0;
            }
            long credit = cell.stored();
            if (cell.word() != word) {
                continue;
            }
            long idle = now - (word & TICKET);
            long uEff = idle <= 0 ? credit : Math.min(warmUp, credit + Math.min(idle, warmUp));
            return Math.scalb((double) uEff, creditShift) / creditPerPermit;
        }
    }

    /**
     * The credit {@code cost} stored permits are worth, rounded down (the constant is rounded up,
     * so one unit less is below the exact value): what an admission takes from the key's state,
     * which thus stays at least as cold as Guava's.
     */
    private long spentAtMost(long cost) {
        return WarmUpMath.mulShiftFloor(cost, creditPerPermit - 1, creditShift);
    }

    /** The credit {@code cost} stored permits are worth, rounded up: what the extra cost is charged on. */
    private long spentAtLeast(long cost) {
        return WarmUpMath.mulShiftCeil(cost, creditPerPermit, creditShift);
    }

    /** Guava's extra cost of spending the credit from {@code from} down to {@code to}. */
    private long extra(long from, long to) {
        long b = Math.max(0, from - threshold);
        long a = Math.max(0, to - threshold);
        if (b == a) {
            return 0;
        }
        long mean = WarmUpMath.mulShiftCeil(b + a, slope, widthBits);
        return WarmUpMath.mulShiftCeil(b - a, mean, SLOPE_SHIFT);
    }

    private long remaining(long next, long now) {
        if (next <= now) {
            return permits;
        }
        long owed = (next - now + interval - 1) / interval;
        return Math.max(0, permits - owed);
    }

    private void deny(MutableDecision out, long next, long now, long retryAfter) {
        if (out != null) {
            out.deny(permits, remaining(next, now), Math.max(0, next - now), retryAfter);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the ticket the admission published. The refund undoes the admission only
     * while that ticket is still the key's: the ticket moves back by what the admission added to
     * it and the credit it spent comes back, which restores the state the admission found (when
     * the admission spent all the credit, how much there was is not known: the ticket then moves
     * back by the stable intervals only and the credit comes back as if all of it had been spent,
     * both erring slower). Once a later request has taken the next ticket, the schedule is that
     * request's, not the refunded one's, and the refund gives nothing back. No clock is read.
     */
    @Override
    public void refund(WarmUpCell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0 || cost > Checks.MAX_NANOS / interval
                || receipt == MutableDecision.NO_RECEIPT) {
            return;
        }
        while (true) {
            long word = cell.word();
            // A word being published is another admission's ticket (then ours is no longer the
            // key's) or another refund's: either way this refund waits for nobody and gives up.
            if (word == Cell.RETIRED || (word & PUBLISHING) != 0 || (word & TICKET) != receipt) {
                return;
            }
            long credit = cell.stored();
            if (cell.word() != word) {
                continue;
            }
            if (credit >= warmUp && warmUp > 0) {
                return; // a cold key: no admission of ours left anything to give back
            }
            long restored = Math.min(warmUp, credit + spentAtMost(cost));
            long wait = cost * interval + (credit > 0 ? extra(restored, Math.max(0, restored - spentAtLeast(cost))) : 0);
            long ticket = Math.max(0, receipt - wait);
            if (!cell.casWord(word, ticket | PUBLISHING)) {
                continue;
            }
            cell.stored(restored);
            cell.casWord(ticket | PUBLISHING, ticket);
            return;
        }
    }

    /** Fresh means cold: full credit and a ticket that is due. */
    @Override
    public boolean isFresh(WarmUpCell cell, long now) {
        long word = cell.word();
        if (word == Cell.RETIRED || (word & PUBLISHING) != 0 || (word & TICKET) > now) {
            return false;
        }
        long credit = cell.stored();
        return cell.word() == word && now - (word & TICKET) >= warmUp - credit;
    }

    @Override
    public boolean retireIfFresh(WarmUpCell cell, long now) {
        long word = cell.word();
        if (word == Cell.RETIRED || (word & PUBLISHING) != 0 || (word & TICKET) > now) {
            return false;
        }
        // The credit is written only under the flag, which changes the word: if the word is still
        // the one read first, the credit read in between belongs to it.
        long credit = cell.stored();
        return now - (word & TICKET) >= warmUp - credit && cell.retire(word);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WarmUp w && w.permits == permits && w.period == period
                && w.warmUp == warmUp && Double.compare(w.coldFactor, coldFactor) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(permits, period, warmUp, coldFactor);
    }

    @Override
    public String toString() {
        return "warm-up{rate=" + permits + "/" + Units.duration(period) + ", warmUp="
                + Units.duration(warmUp) + ", coldFactor=" + coldFactor + '}';
    }

    /** Builds a {@link WarmUp}. Not thread-safe. */
    public static final class Builder {
        private long permits;
        private long period;
        private long warmUp = -1;
        private double coldFactor = DEFAULT_COLD_FACTOR;

        private Builder() {
        }

        /**
         * Sets the stable rate, reached once warm (required).
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
         * Sets how long a cold key takes to reach the stable rate when used at full speed. Zero is
         * accepted, as Guava's {@code create(rate, 0, unit)} is: no warm-up and nothing stored,
         * so every request waits for the one before it at the stable rate (Guava's
         * {@code maxPermits} is 0).
         *
         * @param warmUp a duration {@code >= 0} and at most {@link WarmUp#MAX_WARM_UP}
         * @return this builder
         * @throws NullPointerException if {@code warmUp} is null
         * @throws IllegalArgumentException if it is out of range
         */
        public Builder warmUp(Duration warmUp) {
            Objects.requireNonNull(warmUp, "warmUp");
            if (warmUp.compareTo(MAX_WARM_UP) > 0) {
                throw new IllegalArgumentException(
                        "warmUp must be at most " + Units.duration(MAX_WARM_UP) + " but was " + Units.duration(warmUp));
            }
            this.warmUp = Checks.nonNegativeNanos("warmUp", warmUp);
            return this;
        }

        /**
         * Sets how many times slower than the stable rate a cold key starts. Default
         * {@value WarmUp#DEFAULT_COLD_FACTOR}.
         *
         * @param coldFactor a number between 1.0 and {@value WarmUp#MAX_COLD_FACTOR}
         * @return this builder
         * @throws IllegalArgumentException if it is out of range or not a number
         */
        public Builder coldFactor(double coldFactor) {
            if (!(coldFactor >= 1.0 && coldFactor <= MAX_COLD_FACTOR)) {
                throw new IllegalArgumentException("coldFactor must be between 1.0 and "
                        + MAX_COLD_FACTOR + " but was " + coldFactor);
            }
            this.coldFactor = coldFactor;
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if rate or warm-up is missing
         */
        public WarmUp build() {
            if (permits == 0) {
                throw new IllegalStateException("rate must be set");
            }
            if (warmUp < 0) {
                throw new IllegalStateException("warmUp must be set");
            }
            return new WarmUp(permits, period, warmUp, coldFactor);
        }
    }
}
