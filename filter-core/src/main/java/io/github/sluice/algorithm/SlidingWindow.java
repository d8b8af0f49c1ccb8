package io.github.sluice.algorithm;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Units;
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
 *   <li>A decision reads the head, then the total of the window's past slots: a cached word
 *       (see below) when it is tagged with the head's slot, otherwise the sum of the ring entries
 *       whose tags fall inside the window; the counts of slots before the head's slot are final,
 *       so this sum is exact.
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
 * <h2>Cost of a decision</h2>
 * An admission in the head's slot reads two words (the head and the cached past total) and
 * divides nothing: the reading's slot is found by comparing it with the head slot's start (a
 * division only for a reading more than one slot past the head, or before it). The cached total,
 * {@code (slot << b) | sum of the ring's counts of the slots - 1 slots before it}, is written by
 * the decision that moves the head to a new slot (or by the first decision that finds it stale),
 * from a sum of the ring read in storage order, keeping the entries whose tags fall inside the
 * window, so no slot number is reduced modulo {@code slots}. Moving the head to a new slot costs
 * one remainder (the ring entry to freeze) and one read of the ring; a denial that reports its
 * retry-after and reset reads the ring and divides once more.
 *
 * <h2>The cached past total and refunds</h2>
 * The ring's counts before the head's slot only ever fall (by refunds), so a total read from the
 * ring can only be too high, never too low: a stale cache could refuse what a refund gave back,
 * never admit more than the limit. To keep refunds exact, a refund to a past slot lowers the ring
 * entry first and then invalidates the cache with a value never written before (a negative,
 * numbered word), and a decision publishes a total it summed only by a compare-and-set from the
 * cached word it read <em>before</em> summing. A sum that missed a refund was therefore started
 * before that refund's invalidation, and its compare-and-set either fails (the word changed) or
 * lands before the invalidation, which then overwrites it: once a refund has returned, no
 * decision uses a total that still counts the refunded permits.
 *
 * <h2>Limits and memory</h2>
 * A decision reads {@code slots} words, so {@code slots} is at most {@value #MAX_SLOTS}. A slot
 * number needs {@code limit < 2^(floor(log2(slot ns)) + 1)} (about two permits per nanosecond of
 * slot). Memory per key: the cell (48 bytes with its header) plus the ring,
 * {@code 16 + 8 * slots} bytes: 144 bytes for the default 10 slots.
 *
 * <h2>Stale readings and refunds</h2>
 * The head never moves backwards, and a request whose clock reading falls in a slot before the
 * head's (its thread was descheduled while others moved the head) is refused, with a retry-after
 * that ends when its reading would have reached the head's slot: the guarantee holds over the
 * slots of the readings admissions were decided at. A refund ({@link #refund}) lowers the count of
 * the slot its admission was counted in, named by its receipt: the head's count while the head
 * is still there, that slot's final count in the ring once it has moved on. The permits thus
 * leave exactly the windows that counted them, never a later slot's.
 *
 * <h2>Changing the limit on a live limiter</h2>
 * {@code BlockingLimiter.setRate} (through {@link RateChange}) keeps the counts in the window at
 * now under the new limit: a window over it refuses until enough slots leave, a raised limit
 * lets the difference in at once. With another window length (the number of slots is kept), each
 * slot's count moves into the new slot that holds the old slot's last nanosecond (or now, for the
 * slot in progress), so no permit counts for less time than its own reading would make it count
 * under the new window, and at most one old slot longer. A slot's count above the new limit is
 * remembered, so lowering then raising the limit admits no more than the counts taken leave, and
 * a refund into such a slot gives nothing back. What had already left the old window never
 * comes back. See "Changing the rate" in {@code docs/algorithms.md}.
 *
 * <p>Immutable and thread-safe.
 */
public final class SlidingWindow extends Algorithm<SlidingWindow.SlotCell> {

    /** The default number of slots. */
    public static final int DEFAULT_SLOTS = 10;
    /** The largest number of slots. */
    public static final int MAX_SLOTS = 1024;

    private static final VarHandle RING = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle PAST;
    private static final VarHandle INVALIDATIONS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PAST = lookup.findVarHandle(SlotCell.class, "past", long.class);
            INVALIDATIONS = lookup.findVarHandle(SlotCell.class, "invalidations", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A key's state: the head word, the fixed origin slot numbers count from, the ring of past
     * slots' counts, and the cached total of the past slots of the head's window. Thread-safe.
     * Not extensible outside this package.
     */
    public static class SlotCell extends Cell {
        private final long origin;
        private final long[] ring;
        /**
         * {@code (slot << b) | total}: the sum of the ring's counts of the {@code slots - 1} slots
         * before {@code slot}, valid for a decision whose head is in {@code slot}; negative when
         * invalidated by a refund (each invalidation writes a value never written before).
         */
        private volatile long past;
        /** Invalidations so far, making each invalidation's value unique. */
        private volatile int invalidations;

        SlotCell(long origin, int slots) {
            super(0);
            this.origin = origin;
            this.ring = new long[slots];
            // past = 0: slot 0, nothing before it, the exact total of a fresh key.
        }

        /** A cell with a given head, ring and cached past total (a rate change's carry). */
        SlotCell(long origin, long head, long[] ring, long past) {
            super(head);
            this.origin = origin;
            this.ring = ring;
            this.past = past;
        }

        /** The count of slot {@code slot} beyond its ring or head count; see {@link CarriedSlotCell}. */
        long excess(long slot) {
            return 0;
        }

        /** @return the origin, in slots since the epoch */
        public long origin() {
            return origin;
        }
    }

    /**
     * A cell made by a rate change ({@link #carry}) that carried slots over the new limit: their
     * head or ring count holds the new limit (every slot of a window that holds one refuses, as the
     * true count would) and {@code excess} the count above it, so that raising the limit again
     * before those slots leave lets in only what the counts taken leave. Only a carried cell has
     * the extra fields, so keys of an enforcer pay nothing.
     */
    static final class CarriedSlotCell extends SlotCell {
        /** Indexed by slot number; the slots of the window the carry ended with. */
        private final long[] excess;

        CarriedSlotCell(long origin, long head, long[] ring, long past, long[] excess) {
            super(origin, head, ring, past);
            this.excess = excess;
        }

        @Override
        long excess(long slot) {
            return slot >= 0 && slot < excess.length ? excess[(int) slot] : 0;
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
     * {@code limit} permits per sliding {@code window} of {@value #DEFAULT_SLOTS} slots
     * ({@code sliding-window 100/1m}): {@code SlidingWindow.of(100, Duration.ofMinutes(1))}. For
     * another number of slots, use the {@link #builder()}.
     *
     * @param limit permits per window, {@code >= 1}
     * @param window the window's length, {@code > 0}
     * @return the algorithm
     * @throws NullPointerException if {@code window} is null
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder})
     */
    public static SlidingWindow of(long limit, Duration window) {
        return builder().limit(limit).window(window).build();
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
     * @return {@code 64 + 8 * slots}: a {@link SlotCell} (header, the head word, the access stamp,
     *     the origin, the cached past total, the invalidation count, the ring's reference) and its
     *     ring of {@code slots} longs
     */
    @Override
    public long bytesPerKey() {
        return objectBytes(3, 2, 1) + longArrayBytes(slots);
    }

    @Override
    public SlotCell newCell(long now) {
        return new SlotCell(Math.floorDiv(now, slotNanos), slots);
    }

    /** The slot of {@code now} since the key's origin; -1 for a reading before the origin. */
    private long slotOf(SlotCell cell, long now) {
        long s = Math.floorDiv(now, slotNanos) - cell.origin;
        return s < 0 ? -1 : Math.min(s, layout.maxIndex);
    }

    /**
     * {@link #slotOf(SlotCell, long)} without a division in the common case: a reading in the
     * head's slot or the next one is found by comparing it with the head slot's start (one
     * multiplication); only a reading further away (the first after a pause, or a stale one)
     * divides.
     */
    private long slotOf(SlotCell cell, long headSlot, long now) {
        long start = slotStart(cell, headSlot); // in range: at most a reading, at least the origin's start
        long d = now - start;
        if (((now ^ start) & (now ^ d)) >= 0 && d >= 0) { // no overflow, at or after the start
            if (d < slotNanos) {
                return headSlot;
            }
            if (d - slotNanos < slotNanos) {
                return Math.min(headSlot + 1, layout.maxIndex);
            }
        }
        return slotOf(cell, now);
    }

    @Override
    public int acquire(SlotCell cell, long now, long cost, MutableDecision out) {
        while (true) {
            long head = cell.word();
            if (head == Cell.RETIRED) {
                return RETIRED;
            }
            long headSlot = layout.index(head);
            long slot = slotOf(cell, headSlot, now);
            long headCount = layout.count(head);
            // A head ahead of our slot comes from a thread with a later clock reading. The slots
            // between ours and the head are final, but they were filled by readings later than
            // ours, so counting this request in the head's slot could put more than the limit in
            // the window that ends with ours: it is refused (a peek reports the head's window).
            boolean stale = slot < headSlot;
            long current = Math.max(slot, headSlot);
            long past = cell.past; // read after the head, before any sum of the ring
            long used;
            if (current == headSlot && past >= 0 && layout.index(past) == headSlot) {
                used = layout.count(past) + headCount;
            } else {
                used = used(cell, headSlot, headCount, current);
                if (current == headSlot) {
                    publish(cell, past, headSlot, used - headCount);
                }
            }
            if (cost > limit || used + cost > limit || (stale && cost > 0)) {
                if (out != null) {
                    long retry = cost > limit ? Decision.NEVER
                            : used + cost > limit
                            ? retryAfter(cell, headSlot, headCount, current, used, cost, now)
                            : slotStart(cell, headSlot) - now;
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
                if (current != headSlot) {
                    // The head's new slot: the window's past slots are exactly what was summed.
                    publish(cell, past, current, used);
                }
                if (out != null) {
                    out.allow(limit, limit - used - cost, slotStart(cell, current + slots) - now);
                    out.receipt(cell.origin + current);
                }
                return ADMITTED;
            }
        }
    }

    /**
     * Caches {@code total} as the past total of {@code slot}, unless the cached word has changed
     * since {@code seen} was read (before the ring was summed): a refund's invalidation in between
     * makes the sum suspect, and the next decision sums again.
     */
    private void publish(SlotCell cell, long seen, long slot, long total) {
        if (total >= 0 && total <= layout.countMask && slot <= layout.maxIndex) {
            PAST.compareAndSet(cell, seen, layout.pack(slot, total));
        }
    }

    /**
     * Invalidates the cached past total after a refund lowered a ring entry, with a word never
     * written before (so a decision that read the cache before the refund cannot publish over it).
     */
    private static void invalidate(SlotCell cell) {
        int n = (int) INVALIDATIONS.getAndAdd(cell, 1);
        PAST.setVolatile(cell, -1L - (n & 0xFFFF_FFFFL));
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

    /**
     * The count of slot {@code s} as seen from the head {@code (headSlot, headCount)}, where
     * {@code index} is {@code s} modulo {@code slots} (its ring entry) when {@code s >= 0}.
     */
    private long count(SlotCell cell, long headSlot, long headCount, long s, int index) {
        if (s == headSlot) {
            return headCount;
        }
        if (s > headSlot || s < 0) {
            return 0;
        }
        long entry = (long) RING.getOpaque(cell.ring, index);
        return layout.index(entry) == s ? layout.count(entry) : 0;
    }

    /**
     * The counts in the window ending with slot {@code current} ({@code >= headSlot}). The ring
     * is read in storage order rather than slot order, so no slot number is reduced modulo
     * {@code slots}: an entry counts if its tag falls inside the window and before the head's
     * slot. Each slot of the window has exactly one possible entry (the one at its number modulo
     * {@code slots}, where it is always written), so this is the same sum as reading the window's
     * slots one by one and checking each entry's tag.
     */
    private long used(SlotCell cell, long headSlot, long headCount, long current) {
        long from = current - slots + 1;
        long sum = headSlot >= from ? headCount : 0;
        long[] ring = cell.ring;
        for (int i = 0; i < ring.length; i++) {
            long entry = (long) RING.getOpaque(ring, i);
            long s = layout.index(entry);
            if (s >= from && s < headSlot) {
                sum += layout.count(entry);
            }
        }
        return sum;
    }

    /**
     * Time until the newest counted slot of the window has left it; 0 if nothing is counted. Like
     * {@link #used}, it reads the ring in storage order, keeping the newest counted slot.
     */
    private long reset(SlotCell cell, long headSlot, long headCount, long current, long now) {
        long from = current - slots + 1;
        if (headCount > 0 && headSlot >= from) {
            return slotStart(cell, headSlot + slots) - now;
        }
        long newest = -1;
        long[] ring = cell.ring;
        for (int i = 0; i < ring.length; i++) {
            long entry = (long) RING.getOpaque(ring, i);
            long s = layout.index(entry);
            if (s >= from && s < headSlot && s > newest && layout.count(entry) > 0) {
                newest = s;
            }
        }
        return newest < 0 ? 0 : slotStart(cell, newest + slots) - now;
    }

    /** Time until enough old slots have left the window for {@code cost} to fit. */
    private long retryAfter(SlotCell cell, long headSlot, long headCount, long current, long used,
            long cost, long now) {
        long from = current - slots + 1;
        // The one division of a denial that reports its retry-after: the ring entry of the
        // window's oldest slot; the walk then steps through the ring in slot order.
        int index = (int) Math.floorMod(from, (long) slots);
        long left = used;
        for (long k = 1; k <= slots; k++, index = index + 1 == slots ? 0 : index + 1) {
            left -= count(cell, headSlot, headCount, from + k - 1, index);
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

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the slot the admission was counted in (its number since the epoch). While
     * it is the head's slot, the head's count is lowered; once the head has moved on, the slot's
     * final count in the ring is lowered instead, as long as the ring still holds that slot
     * (after a whole window it has left every window, and the refund is dropped). Either way the
     * permits leave exactly the windows that counted them. No clock is read.
     */
    @Override
    public void refund(SlotCell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0 || receipt == MutableDecision.NO_RECEIPT) {
            return;
        }
        long slot = receipt - cell.origin;
        if (slot < 0 || slot > layout.maxIndex || cell.excess(slot) > 0) {
            return; // a slot a rate change left over the limit stays over it without these permits
        }
        while (true) {
            long head = cell.word();
            if (head == Cell.RETIRED) {
                return;
            }
            long headSlot = layout.index(head);
            if (headSlot < slot) {
                return; // not a slot of this cell's past
            }
            if (headSlot == slot) {
                long count = layout.count(head);
                if (count == 0 || cell.casWord(head, layout.pack(slot, Math.max(0, count - cost)))) {
                    return;
                }
                continue;
            }
            // The head left the slot after freezing its count in the ring (a mover raises the
            // entry before it moves the head). Lower that entry if it is still this slot's; a
            // slower mover may raise it again, which only refunds less.
            int i = (int) (slot % slots);
            while (true) {
                long entry = (long) RING.getVolatile(cell.ring, i);
                long count = layout.count(entry);
                if (layout.index(entry) != slot || count == 0) {
                    return;
                }
                if (RING.compareAndSet(cell.ring, i, entry, layout.pack(slot, Math.max(0, count - cost)))) {
                    invalidate(cell);
                    return;
                }
            }
        }
    }

    /**
     * Carries a key's window to {@code to}, the same algorithm with another limit or window (see
     * {@link RateChange#carry}), at {@code now}: the permits counted in the window that ends with
     * the slot of now (or of the head, for a reading before it) are kept, and nothing that had
     * already left it comes back. Each old slot's count moves into the slot of {@code to}'s grid
     * that contains the slot's last nanosecond (or now, for the slot in progress): every permit
     * counted there was admitted no later than that instant, so under the new window it counts at
     * least as long as its own reading would make it count, possibly up to one old slot longer,
     * never shorter. Counts that leave the new window at once are dropped. With the same window
     * and slot count the grid is the same and every count stays in its slot. A slot whose count
     * exceeds the new limit holds the new limit and remembers the rest (a
     * {@link CarriedSlotCell}), so every decision refuses while it is in the window and a later
     * change that raises the limit again sees the whole count.
     *
     * @return the new cell, the old one having been retired by one compare-and-set from the head
     *     the new one was computed from; {@code null} if the head changed meanwhile or was retired
     */
    SlotCell carry(SlotCell cell, SlidingWindow to, long now) {
        long head = cell.word();
        if (head == Cell.RETIRED) {
            return null;
        }
        long headSlot = layout.index(head);
        // A reading before the head's slot (a later reading moved the head) is taken as that
        // slot's start: the head's permits are never dated after the carry's instant.
        long at = Math.max(now, slotStart(cell, headSlot));
        long current = Math.max(slotOf(cell, at), headSlot);
        long from = current - slots + 1;
        long newCurrent = Math.floorDiv(at, to.slotNanos);
        long newFrom = newCurrent - to.slots + 1;
        long[] counts = new long[to.slots]; // by new slot, from newFrom
        long total = 0;
        if (headSlot >= from) {
            total += move(cell.origin + headSlot, layout.count(head) + cell.excess(headSlot), at, to, newFrom, counts);
        }
        long[] ring = cell.ring;
        for (int i = 0; i < ring.length; i++) {
            long entry = (long) RING.getVolatile(ring, i);
            long s = layout.index(entry);
            // An entry of no count may be a never-written one (tagged slot 0) anywhere in the
            // ring: only a slot's own entry, holding a count, carries that slot's excess.
            if (s >= from && s < headSlot && layout.count(entry) > 0 && s % slots == i) {
                total += move(cell.origin + s, layout.count(entry) + cell.excess(s), at, to, newFrom, counts);
            }
        }
        SlotCell fresh = total == 0 ? to.newCell(now) : to.cellOf(newFrom, counts);
        return cell.retire(head) ? fresh : null;
    }

    /**
     * Adds {@code count}, counted in the slot {@code slot} (since the epoch) of this grid, to the
     * slot of {@code to}'s grid holding the slot's last nanosecond, or {@code at} if earlier.
     *
     * @return the count kept; 0 if that slot is before {@code newFrom} (out of the new window)
     */
    private long move(long slot, long count, long at, SlidingWindow to, long newFrom, long[] counts) {
        if (count <= 0) {
            return 0;
        }
        long last = Math.min((slot + 1) * slotNanos - 1, at);
        long j = Math.floorDiv(last, to.slotNanos) - newFrom;
        if (j < 0) {
            return 0;
        }
        counts[(int) j] += count;
        return count;
    }

    /**
     * A cell whose window ends with its head's slot, {@code slots - 1} slots after its origin
     * {@code origin}, holding {@code counts[i]} in slot {@code i}; counts above the limit are
     * kept as excess.
     */
    private SlotCell cellOf(long origin, long[] counts) {
        long[] ring = new long[slots];
        long[] excess = null;
        long past = 0;
        long head = 0;
        for (int i = 0; i < slots; i++) {
            long kept = Math.min(counts[i], limit);
            if (kept < counts[i]) {
                if (excess == null) {
                    excess = new long[slots];
                }
                excess[i] = counts[i] - kept;
            }
            if (i == slots - 1) {
                head = layout.pack(i, kept);
            } else if (kept > 0) {
                ring[i] = layout.pack(i, kept);
                past += kept;
            }
        }
        // The cached past total of the head's slot, unless too large for the word (then every
        // decision sums the ring, and refuses anyway: the window is over the limit).
        // (-2^40 lies below every refund's invalidation value, so it is never written again.)
        long cached = past <= layout.countMask ? layout.pack(slots - 1, past) : -(1L << 40);
        return excess == null ? new SlotCell(origin, head, ring, cached)
                : new CarriedSlotCell(origin, head, ring, cached, excess);
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
        long headSlot = layout.index(head);
        long slot = slotOf(cell, headSlot, now);
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
        return "sliding-window{limit=" + limit + ", window=" + Units.duration(window)
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
                        + "ns (one per slot) but was " + Units.duration(window));
            }
            return new SlidingWindow(limit, window, slots);
        }
    }
}
