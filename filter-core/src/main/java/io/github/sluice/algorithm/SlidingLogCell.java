package io.github.sluice.algorithm;

import io.github.sluice.core.Cell;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One key's state for a {@link SlidingLog}: a ring of one timestamp per permit admitted within the
 * last {@code limit} permits, plus the newest timestamp ever stamped.
 *
 * <p>The {@link Cell#word() word} is the single compare-and-set point. It packs a version counter
 * (48 bits, bumped by every change so that a stale compare-and-set never succeeds), the parity of
 * the current lap around the ring (1 bit) and the position where the next permit goes (14 bits). A
 * ring slot holds {@code timestamp << 1 | lapParity}: a slot whose parity does not match the lap its
 * position belongs to is <em>pending</em>, claimed by an admission that has not written it yet.
 * See {@link SlidingLog} for the protocol.
 *
 * <p>Memory: {@code 8 * limit} bytes for the ring, plus 56 bytes of headers and fields (with
 * compressed references; the refunds' turn flag fits in the cell's alignment padding).
 *
 * <p>Thread-safe. Instances are created by {@link SlidingLog#newCell(long)} (and by a rate change)
 * only; not extensible outside this package.
 */
public class SlidingLogCell extends Cell {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle LATEST;
    private static final VarHandle REFUNDING;

    static {
        try {
            LATEST = MethodHandles.lookup().findVarHandle(SlidingLogCell.class, "latest", long.class);
            REFUNDING = MethodHandles.lookup().findVarHandle(SlidingLogCell.class, "refunding", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] ring;

    /** The newest timestamp stamped, or about to be stamped, on a permit of this key. */
    private volatile long latest;

    /** 1 while a refund rewrites slots; refunds of one key take turns, decisions never wait. */
    private volatile int refunding;

    SlidingLogCell(int limit, long emptySlot, long never) {
        super(0);
        this.ring = new long[limit];
        java.util.Arrays.fill(ring, emptySlot);
        this.latest = never;
    }

    /**
     * A log holding {@code stamps} (ascending, at most {@code limit}) as its newest permits, the
     * others never stamped: a rate change's carry. The word is 0 (position 0, lap 0), so slot
     * {@code j} holds permit {@code j - limit} of the previous lap.
     */
    SlidingLogCell(int limit, long emptySlot, long latest, long[] stamps, int fromIndex) {
        this(limit, emptySlot, latest);
        int k = stamps.length - fromIndex;
        for (int i = 0; i < k; i++) {
            ring[limit - k + i] = stamps[fromIndex + i] << 1 | 1;
        }
    }

    /**
     * The in-window stamps a rate change dropped beyond the limit; see
     * {@link SlidingLog#carry}.
     *
     * @return ascending stamps, none for a cell that no rate change left over its limit
     */
    long[] older() {
        return NONE;
    }

    private static final long[] NONE = {};

    /**
     * A log that a rate change left with more permits in the window than its limit: the ring holds
     * the newest {@code limit}, which alone decide every admission; the older ones are kept here
     * only so that a later change that raises the limit again counts them.
     */
    static final class Carried extends SlidingLogCell {
        private final long[] older;

        Carried(int limit, long emptySlot, long latest, long[] stamps, int fromIndex) {
            super(limit, emptySlot, latest, stamps, fromIndex);
            this.older = java.util.Arrays.copyOf(stamps, fromIndex);
        }

        @Override
        long[] older() {
            return older;
        }
    }

    long slot(int index) {
        return (long) SLOT.getAcquire(ring, index);
    }

    void slot(int index, long value) {
        SLOT.setRelease(ring, index, value);
    }

    /** Replaces a slot's value if it is still {@code expected}. */
    boolean casSlot(int index, long expected, long value) {
        return SLOT.compareAndSet(ring, index, expected, value);
    }

    /** @return {@code true} if this thread may now rewrite slots for a refund */
    boolean tryStartRefund() {
        return refunding == 0 && REFUNDING.compareAndSet(this, 0, 1);
    }

    void endRefund() {
        refunding = 0;
    }

    long latest() {
        return latest;
    }

    /** Raises {@link #latest} to at least {@code stamp}. */
    void raiseLatest(long stamp) {
        long seen = latest;
        while (seen < stamp && !LATEST.weakCompareAndSet(this, seen, stamp)) {
            seen = latest;
        }
    }
}
