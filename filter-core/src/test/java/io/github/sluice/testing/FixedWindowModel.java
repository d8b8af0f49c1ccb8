package io.github.sluice.testing;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import java.util.HashMap;
import java.util.Map;

/**
 * go-zero's PeriodLimit for one key: a counter per window. Epoch alignment keeps a counter per
 * window number; first-request alignment keeps the current window's start (the first admitted
 * request's time rounded up to {@code rounding} ns) and its count.
 */
public final class FixedWindowModel implements Model {

    private final long limit;
    private final long window;
    private final boolean epoch;
    private final long rounding;
    private final Map<Long, Long> counts = new HashMap<>();
    private Long start;
    private long count;

    /**
     * @param limit permits per window
     * @param windowNanos the window
     * @param epoch {@code true} for windows aligned to the epoch
     * @param roundingNanos for first-request windows, the rounding of the start
     */
    public FixedWindowModel(long limit, long windowNanos, boolean epoch, long roundingNanos) {
        this.limit = limit;
        this.window = windowNanos;
        this.epoch = epoch;
        this.rounding = roundingNanos;
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
        } else {
            boolean open = start != null && count > 0 && now < start + window;
            used = open ? count : 0;
            windowStart = open ? start : roundUp(now);
            end = windowStart + window;
        }
        // The reset never exceeds the window, although a rounded-up start ends a little later.
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

    private long roundUp(long now) {
        return Math.floorDiv(now + rounding - 1, rounding) * rounding;
    }

    /** A refund lowers the current window's count; after the window it is dropped. */
    @Override
    public void release(long now, long cost) {
        if (epoch) {
            long k = Math.floorDiv(now, window);
            counts.computeIfPresent(k, (key, c) -> Math.max(0, c - cost));
        } else if (start != null && count > 0 && now < start + window) {
            count = Math.max(0, count - cost);
        }
    }
}
