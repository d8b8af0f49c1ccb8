package io.github.sluice.testing;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * go-zero's PeriodLimit for one key: a counter per window. Epoch alignment keeps a counter per
 * window number; first-request alignment keeps the current window's start and its count, where
 * time is counted in cells of {@code cell} ns: a window starts at the beginning of its first
 * admitted request's cell and lasts the fewest whole cells that reach {@code window} past any
 * reading of that first cell.
 */
public final class FixedWindowModel implements Model {

    private final long limit;
    private final long window;
    private final boolean epoch;
    private final long cell;
    private final long length;
    private final Map<Long, Long> counts = new HashMap<>();
    private Long start;
    private long count;
    /** The window (its number, or its start) every acquisition was counted in, by number. */
    private final List<Long> calls = new ArrayList<>();

    /**
     * @param limit permits per window
     * @param windowNanos the window
     * @param epoch {@code true} for windows aligned to the epoch
     * @param cellNanos for first-request windows, the length of a cell
     */
    public FixedWindowModel(long limit, long windowNanos, boolean epoch, long cellNanos) {
        this.limit = limit;
        this.window = windowNanos;
        this.epoch = epoch;
        this.cell = cellNanos;
        // (cell - 1) ns of the first cell, then the window: in whole cells, rounded up.
        this.length = epoch ? windowNanos
                : (windowNanos + cellNanos - 1 + cellNanos - 1) / cellNanos * cellNanos;
    }

    @Override
    public Decision acquire(long now, long cost) {
        long used;
        long end;
        long windowStart;
        if (epoch) {
            long k = Math.floorDiv(now, window);
            used = counts.getOrDefault(k, 0L);
            windowStart = k * window;
            end = windowStart + window;
            calls.add(k);
        } else {
            boolean open = start != null && count > 0 && now < start + length;
            used = open ? count : 0;
            windowStart = open ? start : Math.floorDiv(now, cell) * cell;
            end = windowStart + length;
            calls.add(windowStart);
        }
        // The reset never exceeds the window, although a window of whole cells ends a little later.
        long reset = Math.min(end - now, window);
        if (cost > limit) {
            return new Decision(Outcome.DENIED, limit, limit - used, used > 0 ? reset : 0,
                    Decision.NEVER, 0);
        }
        if (used + cost > limit) {
            return new Decision(Outcome.DENIED, limit, limit - used, reset, end - now, 0);
        }
        if (cost > 0) {
            if (epoch) {
                counts.put(Math.floorDiv(now, window), used + cost);
            } else {
                start = windowStart;
                count = used + cost;
            }
        }
        return new Decision(Outcome.ALLOWED, limit, limit - used - cost,
                used + cost > 0 ? reset : 0, 0, 0);
    }

    /**
     * A refund lowers the count of the window the admission was counted in; once the key has
     * moved to a later window it is dropped (the new window owes nothing).
     */
    @Override
    public void refund(long now, long cost, int call) {
        long w = calls.get(call);
        if (epoch) {
            counts.computeIfPresent(w, (key, c) -> Math.max(0, c - cost));
        } else if (start != null && start == w) {
            count = Math.max(0, count - cost);
        }
    }
}
