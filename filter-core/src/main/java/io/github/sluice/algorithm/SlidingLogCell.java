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
 * <p>Thread-safe. Instances are created by {@link SlidingLog#newCell(long)} only.
 */
public final class SlidingLogCell extends Cell {

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
