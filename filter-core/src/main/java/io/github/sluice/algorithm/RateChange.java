package io.github.sluice.algorithm;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Units;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Objects;

/**
 * Changing the rate of a rate algorithm on a live key, with the reference libraries' rule: the
 * key is first advanced to now under the old rate, then the new rate applies from its state. Used
 * by {@code io.github.sluice.limiter.BlockingLimiter#setRate}; see "Changing the rate" in
 * {@code docs/algorithms.md}.
 * <ul>
 *   <li>{@code smooth-bursty} (Guava's {@code SmoothBursty.doSetRate}: stored permits scaled by
 *       {@code maxPermits / oldMaxPermits}) and {@code warm-up} (Guava's
 *       {@code SmoothWarmingUp.doSetRate}, the same scaling; a fresh key stays cold): both keep
 *       their stored permits as time ({@code storedPermits} times the interval they cost, resp.
 *       the cool-down interval), and Guava's scaling keeps exactly that time, so the key's state
 *       carries over unchanged; the next free ticket too stays where the old rate put it.
 *   <li>{@code token-bucket}, {@code gcra}, {@code leaky-bucket}: x/time/rate's
 *       {@code SetLimitAt}: the tokens held at now (for GCRA and the leaky bucket, what was
 *       consumed) are kept, converted to the new schedule, rounding towards refusing; the burst or
 *       capacity is unchanged.
 *   <li>{@code shaping}: the next slot, computed under the old interval, is kept; the requests
 *       after it are spaced by the new interval. Slack and max delay are unchanged.
 *   <li>{@code fixed-window}: the count taken in the current window is kept, re-packed under
 *       the new limit (a window over it refuses until it ends; a raised limit lets the rest in at
 *       once); with another window length, an epoch-aligned window moves the count into the new-length
 *       window containing now, a first-request window keeps its start and ends the new length
 *       after it.
 *   <li>{@code sliding-window}: the counts in the window at now are kept under the new limit
 *       (a window over it refuses until enough slots leave; a raised limit lets the difference
 *       in at once); with another window length, each slot's count moves into the new slot that
 *       holds its last instant, so no permit counts for a shorter time than its own reading
 *       would make it count under the new window. The number of slots is kept.
 *   <li>{@code sliding-log}: the timestamps in the window at now are kept; the ring is resized
 *       to the new limit, keeping the newest (which decide exactly as the whole log would); a new
 *       window length moves the horizon.
 * </ul>
 * Permits that had already left the old window are never brought back by a longer one (the old
 * state is advanced to now first). A count above a lowered limit is remembered (fixed window,
 * sliding window, sliding log), so lowering then raising the limit lets in only what the
 * permits taken leave.
 *
 * <p>Stateless and thread-safe.
 */
public final class RateChange {

    private RateChange() {
    }

    /**
     * Whether {@link #withRate} supports the algorithm.
     *
     * @param algorithm an algorithm
     * @return {@code true} for smooth-bursty, warm-up, token-bucket, gcra, leaky-bucket, shaping,
     *     fixed-window, sliding-window and sliding-log (every rate algorithm of this library);
     *     {@code false} for a concurrency limit, an adaptive one, or an algorithm defined elsewhere
     * @throws NullPointerException if {@code algorithm} is null
     */
    public static boolean supports(Algorithm<?> algorithm) {
        Objects.requireNonNull(algorithm, "algorithm");
        return algorithm instanceof SmoothBursty || algorithm instanceof WarmUp
                || algorithm instanceof TokenBucket || algorithm instanceof Gcra
                || algorithm instanceof LeakyBucket || algorithm instanceof ShapingLeakyBucket
                || algorithm instanceof FixedWindow || algorithm instanceof SlidingWindow
                || algorithm instanceof SlidingLog;
    }

    /**
     * The rate an algorithm was built with.
     *
     * @param algorithm a supported algorithm (see {@link #supports})
     * @return its rate; for {@code shaping}, one request per interval; for the windows
     *     ({@code fixed-window}, {@code sliding-window}, {@code sliding-log}), the limit per window
     * @throws UnsupportedOperationException if the algorithm is not supported
     */
    public static Rate rateOf(Algorithm<?> algorithm) {
        if (algorithm instanceof SmoothBursty s) {
            return Rate.of(s.permits(), Duration.ofNanos(s.periodNanos()));
        } else if (algorithm instanceof WarmUp w) {
            return Rate.of(w.permits(), Duration.ofNanos(w.periodNanos()));
        } else if (algorithm instanceof TokenBucket t) {
            return t.rate();
        } else if (algorithm instanceof Gcra g) {
            return g.rate();
        } else if (algorithm instanceof LeakyBucket l) {
            return l.rate();
        } else if (algorithm instanceof ShapingLeakyBucket s) {
            return Rate.of(1, Duration.ofNanos(s.intervalNanos()));
        } else if (algorithm instanceof FixedWindow || algorithm instanceof SlidingWindow
                || algorithm instanceof SlidingLog) {
            return Rate.of(algorithm.limit(), Duration.ofNanos(algorithm.windowNanos()));
        }
        throw unsupported(algorithm);
    }

    /**
     * The rate that {@code setRate(double permitsPerSecond)} (Guava's, x/time/rate's) means for an
     * algorithm. For a window ({@code fixed-window}, {@code sliding-window}, {@code sliding-log})
     * the window length is kept and the limit is the permits the rate gives over it,
     * {@code floor(permitsPerSecond x window)}, computed on the exact fraction the double stands
     * for ({@link Rate#perSecond(double)}), so {@code 2.5} on a one-minute window is 150 per
     * minute and {@code 1 / 3.0} is 20 per minute; rounded down, never a faster rate than asked.
     * For every other algorithm it is {@link Rate#perSecond(double)}.
     *
     * @param algorithm the algorithm whose rate changes
     * @param permitsPerSecond the new rate, {@code > 0} and finite
     * @return the rate to pass to {@link #withRate}
     * @throws NullPointerException if {@code algorithm} is null
     * @throws IllegalArgumentException if {@code permitsPerSecond} is not a valid rate (see
     *     {@link Rate#perSecond(double)}), or gives less than one permit over the window
     */
    public static Rate perSecond(Algorithm<?> algorithm, double permitsPerSecond) {
        Objects.requireNonNull(algorithm, "algorithm");
        Rate rate = Rate.perSecond(permitsPerSecond);
        if (!(algorithm instanceof FixedWindow || algorithm instanceof SlidingWindow
                || algorithm instanceof SlidingLog)) {
            return rate;
        }
        long window = algorithm.windowNanos();
        BigInteger limit = BigInteger.valueOf(rate.permits()).multiply(BigInteger.valueOf(window))
                .divide(BigInteger.valueOf(rate.periodNanos()));
        if (limit.signum() == 0) {
            throw new IllegalArgumentException("permitsPerSecond must give at least 1 permit per "
                    + algorithm.kind() + " window of " + Units.duration(window) + " (the limit is"
                    + " permitsPerSecond x window, rounded down) but was " + permitsPerSecond);
        }
        if (limit.bitLength() > 62) {
            throw new IllegalArgumentException("permitsPerSecond x window must be below 2^62 permits but was "
                    + permitsPerSecond + " per second over " + Units.duration(window));
        }
        return Rate.of(limit.longValueExact(), Duration.ofNanos(window));
    }

    /**
     * The same algorithm with another rate and every other parameter unchanged (max burst,
     * warm-up period and cold factor, burst, capacity, slack, max delay, start, alignment, number
     * of slots). For the windows ({@code fixed-window}, {@code sliding-window},
     * {@code sliding-log}), the rate's permits are the limit and its period the window; a sliding
     * log's limit above {@value SlidingLog#MAX_LIMIT} is refused with the builder's message.
     *
     * @param algorithm a supported algorithm
     * @param rate the new rate
     * @param <S> the state type
     * @return the algorithm with the new rate
     * @throws NullPointerException if an argument is null
     * @throws UnsupportedOperationException if the algorithm is not supported
     * @throws IllegalArgumentException if the new rate is out of the algorithm's range (the
     *     builder's message names the parameter and the value)
     */
    @SuppressWarnings("unchecked")
    public static <S extends Cell> Algorithm<S> withRate(Algorithm<S> algorithm, Rate rate) {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(rate, "rate");
        Algorithm<?> changed;
        if (algorithm instanceof SmoothBursty s) {
            changed = SmoothBursty.builder().rate(rate).maxBurst(Duration.ofNanos(s.maxBurstNanos())).build();
        } else if (algorithm instanceof WarmUp w) {
            changed = WarmUp.builder().rate(rate).warmUp(Duration.ofNanos(w.warmUpNanos()))
                    .coldFactor(w.coldFactor()).build();
        } else if (algorithm instanceof TokenBucket t) {
            changed = TokenBucket.builder().rate(rate).burst(t.burst()).build();
        } else if (algorithm instanceof Gcra g) {
            changed = Gcra.builder().rate(rate).burst(g.burst()).build();
        } else if (algorithm instanceof LeakyBucket l) {
            changed = LeakyBucket.builder().rate(rate).capacity(l.capacity()).build();
        } else if (algorithm instanceof ShapingLeakyBucket s) {
            changed = ShapingLeakyBucket.builder().rate(rate).slack(s.slack())
                    .maxDelay(Duration.ofNanos(s.maxDelayNanos())).start(s.start()).build();
        } else if (algorithm instanceof FixedWindow f && f.calendar() != null) {
            // A calendar window keeps its calendar; only the limit per window can change.
            if (rate.periodNanos() != f.windowNanos()) {
                throw new IllegalArgumentException("rate must be a limit per " + Units.duration(f.windowNanos())
                        + " (the nominal window of " + f.calendar() + ", which a rate change keeps) but was " + rate);
            }
            changed = FixedWindow.builder().limit(rate.permits()).calendar(f.calendar()).build();
        } else if (algorithm instanceof FixedWindow f) {
            changed = FixedWindow.builder().limit(rate.permits()).window(Duration.ofNanos(rate.periodNanos()))
                    .alignment(f.alignment()).build();
        } else if (algorithm instanceof SlidingWindow w) {
            changed = SlidingWindow.builder().limit(rate.permits()).window(Duration.ofNanos(rate.periodNanos()))
                    .slots(w.slots()).build();
        } else if (algorithm instanceof SlidingLog) {
            changed = SlidingLog.builder().limit(rate.permits()).window(Duration.ofNanos(rate.periodNanos())).build();
        } else {
            throw unsupported(algorithm);
        }
        return (Algorithm<S>) changed;
    }

    /**
     * Carries a key's state from {@code from} to {@code to} (the same algorithm with another rate,
     * made by {@link #withRate}) at {@code now}, by the rules in the class documentation. Where the state is kept as time that the new rate
     * reads alike (smooth-bursty, warm-up, shaping), the cell itself is returned and stays live.
     * Otherwise a new cell is returned and the old one has been retired by one compare-and-set
     * from the state the new one was computed from, so that no admission on the old cell is lost:
     * one that comes after the retirement finds it retired and must retry on the new cell.
     *
     * @param from the algorithm the cell belongs to
     * @param cell the key's state
     * @param to the algorithm with the new rate
     * @param now the clock reading, nanoseconds
     * @param <S> the state type
     * @return the cell to use with {@code to}; {@code null} if the cell changed meanwhile (call
     *     again) or was already retired
     * @throws UnsupportedOperationException if the algorithm is not supported
     * @throws IllegalArgumentException if {@code to} is not the same kind of algorithm
     */
    @SuppressWarnings("unchecked")
    public static <S extends Cell> S carry(Algorithm<S> from, S cell, Algorithm<S> to, long now) {
        if (from.getClass() != to.getClass()) {
            throw new IllegalArgumentException("to must be the same kind of algorithm as " + from + " but was " + to);
        }
        if (from instanceof SmoothBursty || from instanceof WarmUp || from instanceof ShapingLeakyBucket) {
            return cell.retired() ? null : cell;
        }
        if (from instanceof FixedWindow a && to instanceof FixedWindow b) {
            return (S) a.carry((FixedWindow.WindowCell) cell, b, now);
        }
        if (from instanceof SlidingWindow a && to instanceof SlidingWindow b) {
            return (S) a.carry((SlidingWindow.SlotCell) cell, b, now);
        }
        if (from instanceof SlidingLog a && to instanceof SlidingLog b) {
            return (S) a.carry((SlidingLogCell) cell, b, now);
        }
        long word = cell.word();
        if (word == Cell.RETIRED) {
            return null;
        }
        long next;
        if (from instanceof TokenBucket a && to instanceof TokenBucket b) {
            ExactInterval x = a.exact();
            ExactInterval y = b.exact();
            long credit = x.ticks(now) - word;
            long converted;
            if (credit > x.window || credit < -ExactInterval.SLACK) {
                converted = y.window; // full, or idle so long that the word wrapped
            } else if (credit >= 0) {
                // Tokens kept, the fraction rounded down to a tick of the new schedule (fewer tokens).
                converted = scale(credit, y.step, x.step, false, y.window);
            } else {
                // A base after now: an admission decided on a later clock reading. Its debt is kept,
                // rounded up (more debt).
                converted = -scale(-credit, y.step, x.step, true, ExactInterval.SLACK / 2);
            }
            next = y.ticks(now) - converted;
        } else if (from instanceof Gcra a && to instanceof Gcra b) {
            next = consumed(a.exact(), b.exact(), word, now);
        } else if (from instanceof LeakyBucket a && to instanceof LeakyBucket b) {
            next = consumed(a.exact(), b.exact(), word, now);
        } else {
            throw unsupported(from);
        }
        Cell fresh = new Cell(ExactInterval.word(next));
        return cell.retire(word) ? (S) fresh : null;
    }

    /**
     * The instant from which a key is next free, for a blocking limiter that leaves the
     * algorithm's schedule (Guava's {@code setRate(Double.POSITIVE_INFINITY)} or a rate too small
     * to refill): Guava's {@code nextFreeTicket}, which a request must still wait for under the
     * new rate (a debt of "pay for the previous request" is repaid first). Only
     * {@code smooth-bursty} and {@code warm-up} reserve in advance; every other algorithm owes
     * nothing ahead, and its key is free at {@code now}.
     *
     * @param algorithm the algorithm the cell belongs to
     * @param cell the key's state
     * @param now the clock reading, nanoseconds
     * @param <S> the state type
     * @return {@code max(now, next free ticket)}
     * @throws NullPointerException if an argument is null
     */
    public static <S extends Cell> long nextFree(Algorithm<S> algorithm, S cell, long now) {
        Objects.requireNonNull(algorithm, "algorithm");
        long word = cell.word();
        if (word == Cell.RETIRED) {
            return now;
        }
        if (algorithm instanceof SmoothBursty) {
            return Math.max(now, word);
        }
        if (algorithm instanceof WarmUp) {
            return Math.max(now, WarmUp.ticket(word));
        }
        return now;
    }

    /**
     * The state a key resumes with when a blocking limiter returns from an unlimited rate or a
     * rate too small to refill to {@code algorithm}'s finite one, by Guava's {@code doSetRate}
     * special cases: from an unlimited rate, {@code smooth-bursty} stores a full burst
     * ({@code storedPermits = maxPermits}) and {@code warm-up} is warm ({@code storedPermits = 0});
     * from a rate too small to refill, both store nothing new ({@code smooth-bursty} stores
     * nothing, {@code warm-up} is cold, as a new limiter). Either way the next free ticket
     * ({@code freeAt}, at most about 73 years ahead) is kept.
     * Every other algorithm starts a new key ({@link Algorithm#newCell}): a full token bucket (as
     * x/time/rate's after {@code Inf}), an empty window, a fresh shaper.
     *
     * @param algorithm the algorithm with the new finite rate
     * @param freeAt the key's next free instant ({@link #nextFree}); {@link Long#MAX_VALUE} for never
     * @param fromUnlimited whether the limiter was unlimited (rather than too slow to refill)
     * @param now the clock reading, nanoseconds
     * @param <S> the state type
     * @return a new cell for {@code algorithm}
     * @throws NullPointerException if {@code algorithm} is null
     */
    @SuppressWarnings("unchecked")
    public static <S extends Cell> S resume(Algorithm<S> algorithm, long freeAt, boolean fromUnlimited, long now) {
        Objects.requireNonNull(algorithm, "algorithm");
        long ticket = Math.max(now, freeAt - now > Checks.MAX_NANOS
                ? now + Checks.MAX_NANOS : freeAt);
        if (algorithm instanceof SmoothBursty s) {
            // z = ticket - stored * I: a full burst is stored only while nothing is owed.
            return (S) new Cell(fromUnlimited && ticket == now ? now - s.maxBurstNanos() : ticket);
        }
        if (algorithm instanceof WarmUp w) {
            return (S) (fromUnlimited ? w.warmCell(ticket) : w.newCell(ticket));
        }
        return algorithm.newCell(now);
    }

    /** GCRA's TAT and the leaky bucket's empty instant: what is owed at now is kept, rounded up. */
    private static long consumed(ExactInterval x, ExactInterval y, long word, long now) {
        long ahead = word - x.ticks(now);
        long owed = ahead > 0 && ahead <= x.window + ExactInterval.SLACK ? ahead : 0;
        // Beyond the window only by a later clock reading's admission: kept, within the slack the
        // algorithm reads as such (a larger value would read as an idle key).
        return y.ticks(now) + scale(owed, y.step, x.step, true, y.window + ExactInterval.SLACK / 2);
    }

    /** {@code min(cap, value * mul / div)}, rounded up or down, for non-negative operands. */
    private static long scale(long value, long mul, long div, boolean up, long cap) {
        BigInteger[] qr = BigInteger.valueOf(value).multiply(BigInteger.valueOf(mul))
                .divideAndRemainder(BigInteger.valueOf(div));
        BigInteger q = up && qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
        return q.min(BigInteger.valueOf(cap)).longValueExact();
    }

    private static UnsupportedOperationException unsupported(Algorithm<?> algorithm) {
        return new UnsupportedOperationException("setRate: algorithm " + algorithm.kind()
                + " has no run-time rate change (every rate algorithm of this library has one;"
                + " a concurrency limit or an algorithm defined elsewhere does not)");
    }
}
