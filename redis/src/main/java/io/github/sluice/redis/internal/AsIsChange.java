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
 * promises. The store keeps each key's state where it is and reads it under the new parameters:
 * a count in a window, a log of instants, one instant of an exact schedule. Read so, a change of
 * the limit alone (limit, burst, capacity, slack) at the same rate, window, alignment and slots
 * never leaves a key more than it had left plus what the change raises. A change of the rate or
 * of the window reads the same instant or window as more permits (a faster rate counts the time
 * a key owes as fewer permits; a shorter window may start a new one), and a change of algorithm
 * reads another shape of state as fresh: a key that had used its quota would be given it again.
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
     *     otherwise what the change changes that breaks it, e.g. {@code "its rate, from 5/1h to 6/1h"}
     */
    public static String unsafe(Algorithm<?> from, Algorithm<?> to) {
        if (from.concurrency() && to.concurrency() && from.getClass() == to.getClass()) {
            return null; // the leases of the requests in flight: counted under the new limit
        }
        if (from.getClass() != to.getClass() || !from.kind().equals(to.kind())) {
            return "its algorithm, from " + from.kind() + " to " + to.kind();
        }
        if (from instanceof TokenBucket a && to instanceof TokenBucket b) {
            return rate(a.rate(), b.rate());
        } else if (from instanceof Gcra a && to instanceof Gcra b) {
            return rate(a.rate(), b.rate());
        } else if (from instanceof LeakyBucket a && to instanceof LeakyBucket b) {
            return rate(a.rate(), b.rate());
        } else if (from instanceof SmoothBursty a && to instanceof SmoothBursty b) {
            return rate(Rate.of(a.permits(), java.time.Duration.ofNanos(a.periodNanos())),
                    Rate.of(b.permits(), java.time.Duration.ofNanos(b.periodNanos())));
        } else if (from instanceof ShapingLeakyBucket a && to instanceof ShapingLeakyBucket b) {
            return a.intervalNanos() == b.intervalNanos() ? null : "its interval, from "
                    + Human.duration(a.intervalNanos()) + " to " + Human.duration(b.intervalNanos());
        } else if (from instanceof FixedWindow a && to instanceof FixedWindow b) {
            return a.alignment() != b.alignment() ? "its alignment, from " + a.alignment() + " to " + b.alignment()
                    : window(a, b);
        } else if (from instanceof SlidingWindow a && to instanceof SlidingWindow b) {
            return a.slots() != b.slots() ? "its slots, from " + a.slots() + " to " + b.slots() : window(a, b);
        } else if (from instanceof SlidingLog) {
            return window(from, to);
        }
        return "its parameters, from " + from + " to " + to;
    }

    private static String window(Algorithm<?> a, Algorithm<?> b) {
        return a.windowNanos() == b.windowNanos() ? null : "its window, from " + Human.duration(a.windowNanos())
                + " to " + Human.duration(b.windowNanos());
    }

    /** {@code null} if the two rates are equal as fractions, else the change. */
    private static String rate(Rate a, Rate b) {
        BigInteger x = BigInteger.valueOf(a.permits()).multiply(BigInteger.valueOf(b.periodNanos()));
        BigInteger y = BigInteger.valueOf(b.permits()).multiply(BigInteger.valueOf(a.periodNanos()));
        return x.equals(y) ? null : "its rate, from " + a + " to " + b;
    }
}
