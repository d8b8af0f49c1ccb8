package io.github.sluice.redis.internal;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Which changes of a policy the Redis store can apply while keeping what a carrying strategy
 * promises: that a change never leaves a key more than it had left just before it plus what the
 * change raises the limit by. The store keeps each key's state where it is and reads it under the
 * new parameters, so a change is safe exactly when, for every state a key can hold, the new
 * parameters read no more permits out of it than the old ones plus the raise, and when the key
 * does not expire (by the TTL its last write set under the old parameters) into more than the new
 * ones give back by then. Algorithm by algorithm, from what its script stores ({@code I} the
 * interval per permit of the script's schedule, {@code C} the permits that fill it, primes for the
 * new policy; the conditions are exact for the count as a real number, and the whole permits a
 * key is told make a few more changes harmless, such as some from a burst of one, which are
 * refused all the same):
 *
 * <ul>
 *   <li><b>token-bucket</b> stores the instant its bucket was empty, and the key expires when
 *       the bucket is full ({@code C I} later, by the parameters of its last write); a key holds
 *       {@code min(C, floor(a / I))} tokens, {@code a} the time since. Safe iff the rate and the
 *       time the bucket takes to fill do not both move for the client. A faster rate
 *       ({@code I' < I}) needs a fill time no shorter ({@code C' I' >= C I}): then for
 *       {@code a <= C I}, {@code a / I' - a / I} grows with {@code a} to at most
 *       {@code C I / I' - C <= C' - C}, and beyond, the old bucket is full; otherwise a key that
 *       has refilled for {@code a = C' I'} holds {@code C'}, more than the old
 *       {@code floor(a / I)} plus the raise. A slower rate ({@code I' > I}) reads the same time
 *       as no more tokens, but needs a fill time no longer ({@code C' I' <= C I}): otherwise a key
 *       not written since expires when the old bucket would be full, and comes back full while
 *       the new rate has refilled it only {@code C I / I'}. (At a faster rate the key expires
 *       when what it had plus the raise plus the new rate's refill reach {@code C'} anyway.) At
 *       the same rate any burst is safe. So {@code 100/1m} to {@code 200/1m} or to
 *       {@code 50/1m} (a minute to fill either way) is applied; {@code 100/1m} to {@code 200/1m
 *       burst=100}, or to {@code 10/1m burst=100}, is not.</li>
 *   <li><b>gcra</b> and the policing <b>leaky-bucket</b> store the instant a key is owed until
 *       (the theoretical arrival time; the instant the bucket is empty), at which the key
 *       expires whatever the parameters; a key owing {@code o} has
 *       {@code max(0, C - ceil(o / I))} left ({@code C} = burst + 1, capacity). Safe iff the
 *       rate does not fall ({@code I' <= I}: the same time owed is no fewer permits, whatever
 *       {@code C'}), or the time a full burst takes to earn back does not grow
 *       ({@code C' I' <= C I}: then {@code C - C' >= (1 - I / I') C}, which covers what a slower
 *       rate forgives of any {@code o <= C I}). Otherwise a key owing {@code 0 < o <= C I} is
 *       left {@code C' - o / I'}, more than its {@code C - o / I} plus {@code C' - C}, and under
 *       no raise, a spent key ({@code o = C I}) is left {@code C' - C I / I' > 0}.</li>
 *   <li><b>sliding-log</b> stores the instants of the permits it admitted, trimmed to the
 *       window and expiring one window after the newest, by the parameters of its last write. A
 *       shorter window forgets permits still in the old one; a longer one would count them, but
 *       a key not written since expires one old window after its newest permit and comes back
 *       empty while the new window still counts them. Only the limit may change.</li>
 *   <li><b>fixed-window</b>, <b>sliding-window</b>: the state is a count and the window (or slots
 *       since the epoch) it belongs to; a change of the window, alignment, calendar (unit, zone,
 *       first day of the week) or slots reads the same count in another window, or none: only the
 *       limit may change.</li>
 *   <li><b>smooth-bursty</b> and <b>shaping</b>: the rate (interval) must stay. A key's state is
 *       one instant that admits a request of any cost on its own once it is due, and the permits
 *       stored before it are counted by the interval, so no change of the interval is proven
 *       safe here; only the limit, burst or slack may change.</li>
 *   <li><b>concurrency</b>: the leases of requests in flight, counted under the new limit.</li>
 *   <li>Another algorithm reads the state as fresh: refused.</li>
 * </ul>
 *
 * <p>The intervals compared are the ones the scripts run ({@link Schedule}: exact, or rounded up
 * to whole microseconds past its limits), so a change that is safe on paper but whose schedule
 * rounds the other way is refused. A schedule's instant is stored to 10^-7 µs; read under another
 * schedule's ticks it may come out up to 10^-7 µs early, less than one tick of the old schedule
 * (at most 1,024,000 per µs), on whose ticks every count of the old parameters changes, so it
 * never yields a permit the inequalities above do not.
 *
 * <p>Stateless and thread-safe.
 */
public final class AsIsChange {

    private AsIsChange() {
    }

    /**
     * @param from the policy's algorithm in force
     * @param to its new algorithm, different from {@code from}
     * @return {@code null} if reading every key's state as it is under {@code to} keeps the promise;
     *     otherwise what the change changes that breaks it and why, e.g. {@code "its rate, from
     *     5/1h to 10/1h, while the time its bucket takes to fill shrinks ..."}
     */
    public static String unsafe(Algorithm<?> from, Algorithm<?> to) {
        if (from.concurrency() && to.concurrency() && from.getClass() == to.getClass()) {
            return null; // the leases of the requests in flight: counted under the new limit
        }
        if (from.getClass() != to.getClass() || !from.kind().equals(to.kind())) {
            return "its algorithm, from " + from.kind() + " to " + to.kind() + ", whose state the new one reads as"
                    + " fresh";
        }
        if (from instanceof TokenBucket a && to instanceof TokenBucket b) {
            Schedule x = schedule(a);
            Schedule y = schedule(b);
            int rate = -intervalCompare(y, 1, x, 1); // > 0: faster
            int fill = intervalCompare(y, b.burst(), x, a.burst()); // > 0: longer to fill
            String change = rate(a.rate(), x, b.rate(), y) + ", while the time its bucket takes to"
                    + " fill " + (fill < 0 ? "shrinks" : "grows") + " from " + Human.duration(a.windowNanos()) + " to "
                    + Human.duration(b.windowNanos()) + ": a key's state is the instant its bucket was empty, ";
            if (rate > 0 && fill < 0) {
                return change + "and the faster rate reads the time since as more tokens than the change raises";
            } else if (rate < 0 && fill > 0) {
                return change + "and a key expires when the old bucket would be full, so one not written since"
                        + " would come back full long before the slower rate refills it";
            }
            return null;
        } else if (from instanceof Gcra a && to instanceof Gcra b) {
            return owed(schedule(a), a.limit(), a.rate(), a.windowNanos(), schedule(b), b.limit(), b.rate(),
                    b.windowNanos(), "the time a full burst takes to earn back");
        } else if (from instanceof LeakyBucket a && to instanceof LeakyBucket b) {
            return owed(schedule(a), a.capacity(), a.rate(), a.windowNanos(), schedule(b), b.capacity(), b.rate(),
                    b.windowNanos(), "the time its bucket takes to drain");
        } else if (from instanceof SmoothBursty a && to instanceof SmoothBursty b) {
            Rate x = Rate.of(a.permits(), java.time.Duration.ofNanos(a.periodNanos()));
            Rate y = Rate.of(b.permits(), java.time.Duration.ofNanos(b.periodNanos()));
            return same(x, y) ? null : "its rate, from " + x + " to " + y + ": a key's state is an instant that"
                    + " admits on its own, whose stored permits another rate would count anew";
        } else if (from instanceof ShapingLeakyBucket a && to instanceof ShapingLeakyBucket b) {
            return a.intervalNanos() == b.intervalNanos() ? null : "its interval, from "
                    + Human.duration(a.intervalNanos()) + " to " + Human.duration(b.intervalNanos())
                    + ": a key's state is the instant of its next slot, which the new interval would count again";
        } else if (from instanceof FixedWindow a && to instanceof FixedWindow b) {
            if (a.alignment() != b.alignment()) {
                return "its alignment, from " + a.alignment() + " to " + b.alignment()
                        + ": a key's count would be read in another window";
            }
            if (a.calendar() != null) {
                return a.calendar().equals(b.calendar()) ? null : "its calendar, from " + a.calendar() + " to "
                        + b.calendar() + ": a key's count is kept with its window's start, which the new calendar's"
                        + " windows would not match, so the key would start afresh";
            }
            return window(a, b, "its count");
        } else if (from instanceof SlidingWindow a && to instanceof SlidingWindow b) {
            return a.slots() != b.slots() ? "its slots, from " + a.slots() + " to " + b.slots()
                    + ": a key's counts are kept by slot number, which would name other slots"
                    : window(a, b, "its slot counts");
        } else if (from instanceof SlidingLog) {
            return from.windowNanos() == to.windowNanos() ? null : "its window, from "
                    + Human.duration(from.windowNanos()) + " to " + Human.duration(to.windowNanos()) + ": a key's"
                    + " state is the log of its permits, trimmed to the old window and expiring one old window after"
                    + " the newest, and " + (to.windowNanos() < from.windowNanos()
                            ? "the shorter window forgets permits the old one still counts"
                            : "a key not written since would lose them while the longer window still counts them");
        }
        return "its parameters, from " + from + " to " + to;
    }

    /** The rule of the algorithms whose state is the instant a key is owed until (GCRA, policing). */
    private static String owed(Schedule x, long c, Rate rate, long window, Schedule y, long c2, Rate rate2,
            long window2, String what) {
        if (intervalCompare(y, 1, x, 1) <= 0 || intervalCompare(y, c2, x, c) <= 0) {
            return null; // not slower, or no longer to earn back
        }
        return rate(rate, x, rate2, y) + ", while " + what + " grows from "
                + Human.duration(window) + " to " + Human.duration(window2) + ": a key's state is the instant it is"
                + " owed until, and the slower rate reads that time as fewer permits owed, leaving more than the change"
                + " raises";
    }

    /**
     * "its rate, from a to b", or, for one rate that the scripts schedule differently (rounded up
     * to whole microseconds past the exact schedule's limits), the intervals they run.
     */
    private static String rate(Rate a, Schedule x, Rate b, Schedule y) {
        if (!same(a, b)) {
            return "its rate, from " + a + " to " + b;
        }
        return "its rate as the script runs it, from an interval of " + micros(x) + " to " + micros(y) + " ("
                + a + ", scheduled exactly only while the"
                + " window stays within 2^51 ticks; see docs/redis.md, \"Exact schedules\")";
    }

    /** A schedule's interval, e.g. {@code 334 microseconds} or {@code 333.333 microseconds}. */
    private static String micros(Schedule x) {
        return (x.step % x.ticks == 0 ? Long.toString(x.step / x.ticks)
                : new BigDecimal(x.step).divide(BigDecimal.valueOf(x.ticks), 3,
                        RoundingMode.HALF_UP).toPlainString()) + " microseconds";
    }

    /** {@code true} if the two rates are equal as fractions. */
    private static boolean same(Rate a, Rate b) {
        return BigInteger.valueOf(a.permits()).multiply(BigInteger.valueOf(b.periodNanos()))
                .equals(BigInteger.valueOf(b.permits()).multiply(BigInteger.valueOf(a.periodNanos())));
    }

    private static String window(Algorithm<?> a, Algorithm<?> b, String state) {
        return a.windowNanos() == b.windowNanos() ? null : "its window, from " + Human.duration(a.windowNanos())
                + " to " + Human.duration(b.windowNanos()) + ": a key's state is " + state
                + " in windows of the old length, which the new length would read as other windows";
    }

    /** {@code n * interval(y)} compared with {@code m * interval(x)}, as the scripts' schedules run. */
    private static int intervalCompare(Schedule y, long n, Schedule x, long m) {
        // interval = step / ticks microseconds
        BigInteger left = BigInteger.valueOf(n).multiply(BigInteger.valueOf(y.step))
                .multiply(BigInteger.valueOf(x.ticks));
        BigInteger right = BigInteger.valueOf(m).multiply(BigInteger.valueOf(x.step))
                .multiply(BigInteger.valueOf(y.ticks));
        return left.compareTo(right);
    }

    private static Schedule schedule(TokenBucket tb) {
        return Schedule.of("token-bucket burst * interval", tb.rate(), tb.intervalNanos(), tb.burst());
    }

    private static Schedule schedule(Gcra g) {
        return Schedule.of("gcra emission interval * (burst + 1)", g.rate(), g.emissionIntervalNanos(), g.limit());
    }

    private static Schedule schedule(LeakyBucket l) {
        return Schedule.of("leaky-bucket capacity * interval", l.rate(), l.intervalNanos(), l.capacity());
    }
}
