package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Exact "never more than the limit" checks over the admissions of one key, each stamped with the
 * clock reading its decision was taken at (not the order in which threads finished). Each check
 * states the guarantee of one algorithm family in terms of readings alone, so that a stale reading
 * that reopens quota, or a refund that lands where it was not taken, shows as a violation.
 */
public final class ReadingInvariants {

    /**
     * One admission that stayed admitted (not refunded).
     *
     * @param reading the clock reading its decision was taken at
     * @param cost permits
     * @param receipt the admission's receipt (used by checks that need the algorithm's own
     *     windows)
     */
    public record Admission(long reading, long cost, long receipt) {
    }

    private ReadingInvariants() {
    }

    private static List<Admission> sorted(List<Admission> admissions) {
        List<Admission> s = new ArrayList<>(admissions);
        s.sort(Comparator.comparingLong(Admission::reading));
        return s;
    }

    /**
     * The instant algorithms (token bucket, GCRA, both leaky buckets): for every set of admissions
     * whose readings lie in {@code [s, e]}, {@code sum(cost) * interval <= (e - s) + slackNanos}.
     * Checked over every pair of admissions in reading order, in one pass.
     *
     * @param interval nanoseconds per permit
     * @param slackNanos what the algorithm lets a key take at once: the bucket's capacity, GCRA's
     *     tolerance, the leaky bucket's depth, or shaping's slack plus its maximum delay plus the
     *     largest cost
     */
    public static void instants(List<Admission> admissions, long interval, long slackNanos) {
        List<Admission> s = sorted(admissions);
        long prefix = 0;
        // The earliest admission i that maximises (permits from i to j) * interval - (e - s):
        // the minimum over i of (permits before i) * interval - reading(i).
        long best = Long.MAX_VALUE;
        int bestAt = -1;
        long bestPrefix = 0;
        for (int j = 0; j < s.size(); j++) {
            Admission a = s.get(j);
            long before = prefix * interval - a.reading();
            if (before < best) {
                best = before;
                bestAt = j;
                bestPrefix = prefix;
            }
            prefix += a.cost();
            long excess = prefix * interval - a.reading() - best;
            if (excess > slackNanos) {
                long apart = a.reading() - s.get(bestAt).reading();
                fail("admissions " + bestAt + ".." + j + " in reading order, " + apart
                        + " ns apart, took " + (prefix - bestPrefix) + " permits ("
                        + (prefix - bestPrefix) * interval + " ns of them); at most " + slackNanos
                        + " ns plus the " + apart + " ns between are allowed");
            }
        }
    }

    /** Windows aligned to the epoch: at most {@code limit} per window of readings. */
    public static void epochWindows(List<Admission> admissions, long limit, long window) {
        Map<Long, Long> perWindow = new HashMap<>();
        for (Admission a : admissions) {
            long w = Math.floorDiv(a.reading(), window);
            long total = perWindow.merge(w, a.cost(), Long::sum);
            if (total > limit) {
                fail("window " + w + " admitted " + total + " > " + limit);
            }
        }
    }

    /**
     * Windows opened by requests (fixed window, first-request alignment), against the windows the
     * admissions' receipts name (the number of the window's first cell of {@code cell} ns): every
     * reading lies inside its window, a window lasts whole cells reaching at least {@code window}
     * past any reading of its first cell, windows do not overlap, and none holds more than
     * {@code limit}.
     */
    public static void firstRequestWindows(List<Admission> admissions, long limit, long window,
            long cell) {
        long length = (window + 2 * cell - 2) / cell * cell;
        long start = Long.MIN_VALUE;
        long end = Long.MIN_VALUE;
        long total = 0;
        for (Admission a : sorted(admissions)) {
            long s = a.receipt() * cell;
            if (s != start) {
                if (s < end) {
                    fail("the window starting at " + s + " overlaps the one starting at " + start);
                }
                start = s;
                end = s + length;
                total = 0;
            }
            if (a.reading() < start || a.reading() >= end) {
                fail("the admission at " + a.reading() + " was counted in the window [" + start
                        + ", " + end + ")");
            }
            total += a.cost();
            if (total > limit) {
                fail("the window starting at " + start + " admitted " + total + " > " + limit);
            }
        }
    }

    /** Any {@code slots} consecutive epoch-aligned slots of readings admit at most {@code limit}. */
    public static void slidingWindows(List<Admission> admissions, long limit, long slot, int slots) {
        TreeMap<Long, Long> perSlot = new TreeMap<>();
        for (Admission a : admissions) {
            perSlot.merge(Math.floorDiv(a.reading(), slot), a.cost(), Long::sum);
        }
        for (Map.Entry<Long, Long> e : perSlot.entrySet()) {
            long total = 0;
            for (long v : perSlot.subMap(e.getKey() - slots + 1, true, e.getKey(), true).values()) {
                total += v;
            }
            if (total > limit) {
                fail("the window ending with slot " + e.getKey() + " admitted " + total + " > " + limit);
            }
        }
    }

    /** Any interval {@code (x - window, x]} of readings admits at most {@code limit}. */
    public static void slidingLog(List<Admission> admissions, long limit, long window) {
        List<Admission> s = sorted(admissions);
        long inWindow = 0;
        int from = 0;
        for (int j = 0; j < s.size(); j++) {
            inWindow += s.get(j).cost();
            while (s.get(from).reading() <= s.get(j).reading() - window) {
                inWindow -= s.get(from++).cost();
            }
            if (inWindow > limit) {
                StringBuilder which = new StringBuilder();
                for (Admission a : s.subList(from, j + 1)) {
                    which.append("\n  reading ").append(a.reading()).append(", ")
                            .append(a.cost()).append(" permits, receipt ").append(a.receipt());
                }
                fail("readings " + s.get(from).reading() + ".." + s.get(j).reading()
                        + " admitted " + inWindow + " > " + limit + ":" + which);
            }
        }
    }

    /**
     * Warm-up (and any limiter that pre-consumes): consecutive admissions in reading order are at
     * least {@code cost * interval} apart, the stable rate being the fastest a key ever goes.
     */
    public static void spaced(List<Admission> admissions, long interval) {
        List<Admission> s = sorted(admissions);
        for (int k = 1; k < s.size(); k++) {
            long gap = s.get(k).reading() - s.get(k - 1).reading();
            if (gap < s.get(k - 1).cost() * interval) {
                fail("admissions at " + s.get(k - 1).reading() + " and " + s.get(k).reading()
                        + " are " + gap + " ns apart, at least " + s.get(k - 1).cost() * interval
                        + " required");
            }
        }
    }
}
