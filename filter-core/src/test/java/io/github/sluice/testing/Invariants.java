package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * "No window ever admits more than allowed", checked on a log of admissions alone (no model): the
 * admissions that stayed admitted (refunded ones left out) and, for concurrency, the releases.
 */
public final class Invariants {

    private static final int LOOK_BACK = 64;

    private Invariants() {
    }

    /**
     * A bucket of {@code capacity} tokens refilled every {@code interval} ns: between any two
     * admissions, at most the capacity plus the refill in between was admitted.
     */
    public static void bucket(List<ModelCheck.Event> events, long capacity, long interval) {
        for (int j = 0; j < events.size(); j++) {
            long sum = 0;
            for (int i = j; i >= 0 && i > j - LOOK_BACK; i--) {
                sum += events.get(i).cost();
                long allowed = capacity + (events.get(j).time() - events.get(i).time()) / interval;
                if (sum > allowed) {
                    fail("admitted " + sum + " between events " + i + " and " + j + ", at most "
                            + allowed + " allowed");
                }
            }
        }
    }

    /**
     * A bucket of {@code capacity} tokens refilled at exactly {@code permits} per {@code period}
     * ns (no rounding of the interval): between any two admissions, at most the capacity plus the
     * whole tokens refilled in between was admitted.
     */
    public static void bucket(List<ModelCheck.Event> events, long capacity, long period, long permits) {
        for (int j = 0; j < events.size(); j++) {
            long sum = 0;
            for (int i = j; i >= 0 && i > j - LOOK_BACK; i--) {
                sum += events.get(i).cost();
                long dt = events.get(j).time() - events.get(i).time();
                long allowed = capacity + java.math.BigInteger.valueOf(dt).multiply(java.math.BigInteger.valueOf(permits))
                        .divide(java.math.BigInteger.valueOf(period)).longValueExact();
                if (sum > allowed) {
                    fail("admitted " + sum + " between events " + i + " and " + j + ", at most "
                            + allowed + " allowed");
                }
            }
        }
    }

    /** Epoch-aligned windows: at most {@code limit} admitted per window. */
    public static void epochWindows(List<ModelCheck.Event> events, long limit, long window) {
        Map<Long, Long> perWindow = new HashMap<>();
        for (ModelCheck.Event e : events) {
            long total = perWindow.merge(Math.floorDiv(e.time(), window), e.cost(), Long::sum);
            assertTrue(total <= limit, () -> "window at " + e.time() + " admitted " + total);
        }
    }

    /**
     * Windows opened by requests (fixed window, first-request alignment), checked against the
     * windows the algorithm says it counted each admission in (the receipt: the number of the
     * window's first cell of {@code cell} ns): every admission's reading lies inside its window,
     * a window lasts whole cells reaching at least {@code window} past any reading of its first
     * cell, windows do not overlap, and none holds more than {@code limit}. Any partition with
     * these properties proves the guarantee, whichever requests opened the windows.
     */
    public static void firstRequestWindows(List<ModelCheck.Event> events, long limit, long window,
            long cell) {
        long length = (window + 2 * cell - 2) / cell * cell;
        long start = Long.MIN_VALUE;
        long end = Long.MIN_VALUE;
        long total = 0;
        for (ModelCheck.Event e : events) {
            long s = e.receipt() * cell;
            if (s != start) {
                assertTrue(s >= end, () -> "the window starting at " + s + " overlaps the previous one");
                start = s;
                end = s + length;
                total = 0;
            }
            long st = start;
            long en = end;
            assertTrue(e.time() >= st && e.time() < en,
                    () -> "admission at " + e.time() + " counted in the window [" + st + ", " + en + ")");
            total += e.cost();
            long t = total;
            assertTrue(t <= limit, () -> "the window starting at " + st + " admitted " + t);
        }
    }

    /** Any {@code slots} consecutive epoch-aligned slots admit at most {@code limit}. */
    public static void slidingWindows(List<ModelCheck.Event> events, long limit, long slot,
            int slots) {
        TreeMap<Long, Long> perSlot = new TreeMap<>();
        for (ModelCheck.Event e : events) {
            perSlot.merge(Math.floorDiv(e.time(), slot), e.cost(), Long::sum);
        }
        // A running sum over the slots of the window that ends with each counted slot.
        ArrayDeque<Map.Entry<Long, Long>> window = new ArrayDeque<>();
        long total = 0;
        for (Map.Entry<Long, Long> e : perSlot.entrySet()) {
            window.addLast(e);
            total += e.getValue();
            while (window.peekFirst().getKey() <= e.getKey() - slots) {
                total -= window.removeFirst().getValue();
            }
            long t = total;
            assertTrue(t <= limit, () -> "window ending with slot " + e.getKey() + " admitted " + t);
        }
    }

    /** Permits in flight (admissions minus releases, never below zero) never exceed {@code max}. */
    public static void inFlight(List<ModelCheck.Event> events, long max) {
        long held = 0;
        for (ModelCheck.Event e : events) {
            held = e.release() ? Math.max(0, held - e.cost()) : held + e.cost();
            long h = held;
            assertTrue(h <= max, () -> "in flight " + h + " > " + max);
        }
    }
}
