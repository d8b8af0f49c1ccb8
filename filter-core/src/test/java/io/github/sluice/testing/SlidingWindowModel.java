package io.github.sluice.testing;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Seed 000's sliding window for one key: a count per epoch-aligned slot; the window is the current
 * slot and the {@code slots - 1} before it.
 */
public final class SlidingWindowModel implements Model {

    private final long limit;
    private final long slot;
    private final int slots;
    private final Map<Long, Long> counts = new HashMap<>();
    /** The slot of every acquisition, by number. */
    private final List<Long> calls = new ArrayList<>();

    /**
     * @param limit permits per window
     * @param slotNanos the length of a slot
     * @param slots slots per window
     */
    public SlidingWindowModel(long limit, long slotNanos, int slots) {
        this.limit = limit;
        this.slot = slotNanos;
        this.slots = slots;
    }

    private long count(long s) {
        return counts.getOrDefault(s, 0L);
    }

    @Override
    public Decision acquire(long now, long cost) {
        long current = Math.floorDiv(now, slot);
        calls.add(current);
        long used = 0;
        for (long s = current - slots + 1; s <= current; s++) {
            used += count(s);
        }
        if (cost > limit || used + cost > limit) {
            long retry = Decision.NEVER;
            if (cost <= limit) {
                // Wait for the oldest slots to leave the window, one by one.
                long left = used;
                for (long k = 1; ; k++) {
                    left -= count(current - slots + k);
                    if (left + cost <= limit) {
                        retry = (current + k) * slot - now;
                        break;
                    }
                }
            }
            return new Decision(Outcome.DENIED, limit, limit - used, reset(current, now), retry, 0);
        }
        if (cost > 0) {
            counts.put(current, count(current) + cost);
        }
        return new Decision(Outcome.ALLOWED, limit, limit - used - cost, reset(current, now), 0, 0);
    }

    /** Until the newest slot with a count has left the window. */
    private long reset(long current, long now) {
        for (long s = current; s > current - slots; s--) {
            if (count(s) > 0) {
                return (s + slots) * slot - now;
            }
        }
        return 0;
    }

    /** A refund lowers the count of the slot the admission was counted in, wherever time is. */
    @Override
    public void refund(long now, long cost, int call) {
        counts.computeIfPresent(calls.get(call), (s, c) -> Math.max(0, c - cost));
    }
}
