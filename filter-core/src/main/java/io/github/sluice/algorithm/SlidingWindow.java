package io.github.sluice.algorithm;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.internal.Checks;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;

/**
 * Sliding window over {@code slots} slots: the window is cut into slots aligned to the epoch and
 * advances slot by slot; a request of {@code cost} is admitted if the counts of the last
 * {@code slots} slots (the current one included) plus {@code cost} stay within {@code limit}.
 * More slots make the window slide more smoothly (seed 000: "1 minute = 6 slots of 10 s").
 *
 * <h2>Decisions</h2>
 * {@code remaining} is {@code limit} minus the counts in the window; {@code reset} is the time
 * until the newest counted slot has left the window (0 when nothing is counted); a denial's
 * retry-after is the time until enough old slots have left the window for the request to fit, or
 * {@link Decision#NEVER} if {@code cost > limit}. A cost of zero peeks and a denial never writes.
 * The slot length is {@code window / slots} rounded up to whole nanoseconds.
 *
 * <h2>State and concurrency</h2>
 * Per key, a head word {@code (current slot << b) | count of the current slot} (slot numbers
 * count from the key's origin and last 146 years) and a ring of {@code slots} words holding the
 * final counts of past slots, each tagged with its slot number in the same layout.
 * <ul>
 *   <li>A decision reads the head, then sums the ring entries whose tags fall inside the window;
 *       the counts of slots before the head's slot are final, so this sum is exact.
 *   <li>An admission in the head's slot is one compare-and-set of the head.
 *   <li>An admission that moves the window to a later slot first writes the head slot's count
 *       into the ring (raising the entry to the larger tagged value, so a slower thread can never
 *       lower it), then compare-and-sets the head. Only the thread whose head CAS succeeds
 *       decides; a thread whose CAS fails saw a changed head and starts again.
 * </ul>
 * A slot's ring entry is only overwritten when the head moves a whole window past it, so a
 * decision whose head CAS succeeds read exactly the counts of its window: the algorithm is
 * linearizable with the head CAS as its linearization point, never admits more than
 * {@code limit} in a window of slots, allocates nothing and takes no lock.
 *
 * <h2>Limits and memory</h2>
 * A decision reads {@code slots} words, so {@code slots} is at most {@value #MAX_SLOTS}. A slot
 * number needs {@code limit < 2^(floor(log2(slot ns)) + 1)} (about two permits per nanosecond of
 * slot). Memory per key: the cell (about 40 bytes with its header) plus the ring,
 * {@code 16 + 8 * slots} bytes: about 136 bytes for the default 10 slots.
 *
 * <p>A refund ({@link #release}) lowers the current slot's count; it is meant to follow its
 * acquisition at once (as {@code Store.acquireAll} does). A refund arriving after the slot moved
 * on is dropped, so a refund never lets a window hold more than {@code limit}.
 *
 * <p>Immutable and thread-safe.
 */
public final class SlidingWindow extends Algorithm<SlidingWindow.SlotCell> {

    /** The default number of slots. */
    public static final int DEFAULT_SLOTS = 10;
    /** The largest number of slots. */
    public static final int MAX_SLOTS = 1024;

    private static final VarHandle RING = MethodHandles.arrayElementVarHandle(long[].class);

    /**
     * A key's state: the head word, the fixed origin slot numbers count from, and the ring of past
     * slots' counts. Thread-safe.
     */
    public static final class SlotCell extends Cell {
        private final long origin;
        private final long[] ring;

        SlotCell(long origin, int slots) {
            super(0);
            this.origin = origin;
            this.ring = new long[slots];
        }

        /** @return the origin, in slots since the epoch */
        public long origin() {
            return origin;
        }
    }

    private final long limit;
    private final long window;
    private final int slots;
    private final long slotNanos;
    private final WindowWord layout;

    private SlidingWindow(long limit, long window, int slots) {
        this.limit = limit;
        this.window = window;
        this.slots = slots;
        this.slotNanos = (window + slots - 1) / slots;
        this.layout = new WindowWord(limit, slotNanos, "slot");
    }

    /** @return a builder; {@code limit} and {@code window} must be set, {@code slots} defaults to 10 */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Shorthand for {@code builder().limit(limit).window(window).slots(slots).build()}.
     *
     * @param limit permits per window, {@code >= 1}
     * @param window the window's length
     * @param slots the number of slots, in {@code [1, MAX_SLOTS]}
     * @return the algorithm
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder})
     */
    public static SlidingWindow of(long limit, Duration window, int slots) {
        return builder().limit(limit).window(window).slots(slots).build();
    }

    /** @return the number of slots */
    public int slots() {
        return slots;
    }

    /** @return the length of one slot, in nanoseconds */
    public long slotNanos() {
        return slotNanos;
    }

    @Override
    public String kind() {
        return "sliding-window";
    }

    @Override
    public long limit() {
        return limit;
    }

    @Override
    public long windowNanos() {
        return window;
    }

    /**
     * @return {@code 56 + 8 * slots}: a {@link SlotCell} (header, the head word, the access stamp,
     *     the origin, the ring's reference) and its ring of {@code slots} longs
     */
    @Override
    public long bytesPerKey() {
        return objectBytes(2, 1, 1) + longArrayBytes(slots);
    }

    @Override
    public SlotCell newCell(long now) {
        return new SlotCell(Math.floorDiv(now, slotNanos), slots);
    }

    @Override
    public int acquire(SlotCell cell, long now, long cost, MutableDecision out) {
        long slot = layout.clamp(Math.floorDiv(now, slotNanos) - cell.origin);
        while (true) {
            long head = cell.word();
            if (head == Cell.RETIRED) {
                return RETIRED;
            }
            long headSlot = layout.index(head);
            long headCount = layout.count(head);
            // A head ahead of our slot comes from a thread with a later clock reading: count there.
            long current = Math.max(slot, headSlot);
            long used = used(cell, headSlot, headCount, current);
            if (cost > limit || used + cost > limit) {
                if (out != null) {
                    long retry = cost > limit ? Decision.NEVER
                            : retryAfter(cell, headSlot, headCount, current, used, cost, now);
                    out.deny(limit, limit - used, reset(cell, headSlot, headCount, current, now),
                            retry);
                }
                return DENIED;
            }
            if (cost == 0) {
                if (out != null) {
                    out.allow(limit, limit - used,
                            reset(cell, headSlot, headCount, current, now));
                }
                return ADMITTED;
            }
            long currentCount = headSlot == current ? headCount : 0;
            if (headSlot < current && headCount > 0) {
                // Freeze the head slot's final count before the head leaves it.
                raise(cell.ring, (int) (headSlot % slots), head);
            }
            if (cell.casWord(head, layout.pack(current, currentCount + cost))) {
                if (out != null) {
                    out.allow(limit, limit - used - cost, slotStart(cell, current + slots) - now);
                }
                return ADMITTED;
            }
        }
    }

    /** Raises a ring entry to {@code tagged} unless it already holds that slot's count or a later slot. */
    private static void raise(long[] ring, int index, long tagged) {
        while (true) {
            long entry = (long) RING.getVolatile(ring, index);
            if (entry >= tagged || RING.compareAndSet(ring, index, entry, tagged)) {
                return;
            }
        }
    }

    /** The count of slot {@code s} as seen from the head {@code (headSlot, headCount)}. */
    private long count(SlotCell cell, long headSlot, long headCount, long s) {
        if (s == headSlot) {
            return headCount;
        }
        if (s > headSlot || s < 0) {
            return 0;
        }
        long entry = (long) RING.getOpaque(cell.ring, (int) (s % slots));
        return layout.index(entry) == s ? layout.count(entry) : 0;
    }

    /** The counts in the window ending with slot {@code current}. */
    private long used(SlotCell cell, long headSlot, long headCount, long current) {
        long sum = 0;
        for (long s = current - slots + 1; s <= current; s++) {
            sum += count(cell, headSlot, headCount, s);
        }
        return sum;
    }

    /** Time until the newest counted slot of the window has left it; 0 if nothing is counted. */
    private long reset(SlotCell cell, long headSlot, long headCount, long current, long now) {
        for (long s = current; s > current - slots; s--) {
            if (count(cell, headSlot, headCount, s) > 0) {
                return slotStart(cell, s + slots) - now;
            }
        }
        return 0;
    }

    /** Time until enough old slots have left the window for {@code cost} to fit. */
    private long retryAfter(SlotCell cell, long headSlot, long headCount, long current, long used,
            long cost, long now) {
        long left = used;
        for (long k = 1; k <= slots; k++) {
            left -= count(cell, headSlot, headCount, current - slots + k);
            if (left + cost <= limit) {
                return slotStart(cell, current + k) - now;
            }
        }
        // Unreachable: after a whole window nothing is counted and cost <= limit.
        return slotStart(cell, current + slots) - now;
    }

    private long slotStart(SlotCell cell, long slot) {
        return (cell.origin + slot) * slotNanos;
    }

    @Override
    public void release(SlotCell cell, long now, long cost) {
        if (cost <= 0) {
            return;
        }
        long slot = layout.clamp(Math.floorDiv(now, slotNanos) - cell.origin);
        while (true) {
            long head = cell.word();
            if (head == Cell.RETIRED) {
                return;
            }
            long headSlot = layout.index(head);
            long headCount = layout.count(head);
            if (headSlot < slot || headCount == 0) {
                return;
            }
            if (cell.casWord(head, layout.pack(headSlot, Math.max(0, headCount - cost)))) {
                return;
            }
        }
    }

    @Override
    public boolean isFresh(SlotCell cell, long now) {
        long head = cell.word();
        return head != Cell.RETIRED && fresh(cell, head, now);
    }

    @Override
    public boolean retireIfFresh(SlotCell cell, long now) {
        long head = cell.word();
        // Ring entries before the head slot are final while the head is unchanged, so the CAS
        // from the very head examined makes check-and-retire atomic.
        return head != Cell.RETIRED && fresh(cell, head, now) && cell.retire(head);
    }

    private boolean fresh(SlotCell cell, long head, long now) {
        long slot = layout.clamp(Math.floorDiv(now, slotNanos) - cell.origin);
        long headSlot = layout.index(head);
        return used(cell, headSlot, layout.count(head), Math.max(slot, headSlot)) == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlidingWindow s && s.limit == limit && s.window == window
                && s.slots == slots;
    }

    @Override
    public int hashCode() {
        return Objects.hash(limit, window, slots);
    }

    @Override
    public String toString() {
        return "sliding-window{limit=" + limit + ", window=" + Duration.ofNanos(window)
                + ", slots=" + slots + '}';
    }

    /** Builds a {@link SlidingWindow}. Not thread-safe. */
    public static final class Builder {
        private long limit;
        private long window;
        private int slots = DEFAULT_SLOTS;

        private Builder() {
        }

        /**
         * Sets the permits per window.
         *
         * @param limit {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if {@code limit < 1}
         */
        public Builder limit(long limit) {
            this.limit = Checks.atLeast("limit", limit, 1);
            return this;
        }

        /**
         * Sets the window's length.
         *
         * @param window {@code > 0}, at most about 73 years
         * @return this builder
         * @throws IllegalArgumentException if {@code window} is zero, negative or too long
         * @throws NullPointerException if {@code window} is null
         */
        public Builder window(Duration window) {
            this.window = Checks.positiveNanos("window", window);
            return this;
        }

        /**
         * Sets the number of slots (the precision). Default: {@value #DEFAULT_SLOTS}.
         *
         * @param slots in {@code [1, MAX_SLOTS]}
         * @return this builder
         * @throws IllegalArgumentException if {@code slots} is out of range
         */
        public Builder slots(int slots) {
            this.slots = (int) Checks.between("slots", slots, 1, MAX_SLOTS);
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if limit or window is missing
         * @throws IllegalArgumentException if the window is shorter than the number of slots in
         *     nanoseconds, or the limit is too large for the slot length
         */
        public SlidingWindow build() {
            if (limit == 0) {
                throw new IllegalStateException("limit must be set");
            }
            if (window == 0) {
                throw new IllegalStateException("window must be set");
            }
            if (window < slots) {
                throw new IllegalArgumentException("window must be at least " + slots
                        + " ns (one per slot) but was " + Duration.ofNanos(window));
            }
            return new SlidingWindow(limit, window, slots);
        }
    }
}
