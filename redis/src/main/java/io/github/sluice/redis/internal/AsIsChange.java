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
import java.math.BigInteger;

/**
 * Which changes of a policy the Redis store can apply while keeping what a carrying strategy
 * promises: that a change never leaves a key more than it had left just before it plus what the
 * change raises the limit by. The store keeps each key's state where it is and reads it under the
 * new parameters, so a change is safe exactly when, for every state a key can hold, the new
 * parameters read no more permits out of it than the old ones plus the raise. Algorithm by
 * algorithm, from what its script stores ({@code I} the interval per permit of the script's
 * schedule, {@code C} the permits that fill it, primes for the new policy):
 *
 * <ul>
 *   <li><b>token-bucket</b> stores the instant its bucket was empty; a key holds
 *       {@code min(C, floor(a / I))} tokens, {@code a} the time since. Safe iff the rate does not
 *       rise ({@code I' >= I}: the same time is no more tokens, and {@code min(C', x) <= min(C, x)
 *       + max(0, C' - C)}), or the time the bucket takes to fill does not shrink
 *       ({@code C' I' >= C I}: at {@code a <= C I}, {@code a / I' - a / I} grows with {@code a} and
 *       is at most {@code C I / I' - C <= C' - C}; beyond, the old bucket is full). Otherwise a key
 *       that has refilled for {@code a = C' I'} holds {@code C'} tokens, more than the old
 *       {@code floor(a / I)} plus the raise. So {@code 100/1m} to {@code 200/1m} (both fill in a
 *       minute) and any slowing are safe; a faster rate at the same burst is not.</li>
 *   <li><b>gcra</b> and the policing <b>leaky-bucket</b> store the instant a key is owed until
 *       (the theoretical arrival time; the instant the bucket is empty); a key owing {@code o}
 *       has {@code max(0, C - ceil(o / I))} left ({@code C} = burst + 1, capacity). Safe iff the
 *       rate does not fall ({@code I' <= I}: the same time owed is no fewer permits, whatever
 *       {@code C'}), or the time a full burst takes to earn back does not grow
 *       ({@code C' I' <= C I}: then {@code (C - C') >= (1 - I / I') C}, which covers what a slower
 *       rate forgives of any {@code o <= C I}). Otherwise a key owing {@code C I} (spent) has
 *       {@code C' - ceil(C I / I') > 0} left under no raise, or more than the raise.</li>
 *   <li><b>sliding-log</b> stores the instants of the permits it admitted; every one within the
 *       old window is kept. A longer or equal window counts at least as many of them: safe. A
 *       shorter one forgets permits still in the old window: refused.</li>
 *   <li><b>fixed-window</b>, <b>sliding-window</b>: the state is a count and the window (or slots
 *       since the epoch) it belongs to; a change of the window, alignment or slots reads the
 *       same count in another window, or none: only the limit may change.</li>
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
            if (intervalCompare(y, 1, x, 1) >= 0 || intervalCompare(y, b.burst(), x, a.burst()) >= 0) {
                return null; // not faster, or no quicker to fill
            }
            return "its rate, from " + a.rate() + " to " + b.rate() + ", while the time its bucket takes to fill"
                    + " shrinks from " + Human.duration(a.windowNanos()) + " to " + Human.duration(b.windowNanos())
                    + ": a key's state is the instant its bucket was empty, and the faster rate reads the time since"
                    + " as more tokens than the change adds";
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
            return a.alignment() != b.alignment() ? "its alignment, from " + a.alignment() + " to " + b.alignment()
                    + ": a key's count would be read in another window" : window(a, b, "its count");
        } else if (from instanceof SlidingWindow a && to instanceof SlidingWindow b) {
            return a.slots() != b.slots() ? "its slots, from " + a.slots() + " to " + b.slots()
                    + ": a key's counts are kept by slot number, which would name other slots"
                    : window(a, b, "its slot counts");
        } else if (from instanceof SlidingLog && Micros.ceil("sliding-log window", to.windowNanos())
                >= Micros.ceil("sliding-log window", from.windowNanos())) {
            return null; // a longer window counts every permit the old one did
        } else if (from instanceof SlidingLog) {
            return "its window, from " + Human.duration(from.windowNanos()) + " to "
                    + Human.duration(to.windowNanos()) + ", shorter: it would forget permits still in the old window";
        }
        return "its parameters, from " + from + " to " + to;
    }

    /** The rule of the algorithms whose state is the instant a key is owed until (GCRA, policing). */
    private static String owed(Schedule x, long c, Rate rate, long window, Schedule y, long c2, Rate rate2,
            long window2, String what) {
        if (intervalCompare(y, 1, x, 1) <= 0 || intervalCompare(y, c2, x, c) <= 0) {
            return null; // not slower, or no longer to earn back
        }
        return "its rate, from " + rate + " to " + rate2 + ", while " + what + " grows from "
                + Human.duration(window) + " to " + Human.duration(window2) + ": a key's state is the instant it is"
                + " owed until, and the slower rate reads that time as fewer permits owed, leaving more than the change"
                + " raises";
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
        BigInteger left = BigInteger.valueOf(n).multiply(BigInteger.valueOf(y.step)).multiply(BigInteger.valueOf(x.ticks));
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
