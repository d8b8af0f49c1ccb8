package io.github.sluice.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One key's limiter state: a single {@code long} word updated by compare-and-set.
 *
 * <p>Every algorithm keeps its per-key state in a cell (or a subclass that adds fields) and obeys
 * three rules that make the in-memory registry both lock-free and safe to evict from:
 * <ol>
 *   <li>every change of state is published by a successful {@link #casWord CAS on the word};
 *   <li>a cell whose word is {@link #RETIRED} has been removed from its registry: an algorithm
 *       that reads it must return {@link Algorithm#RETIRED} without writing;
 *   <li>a denial, and an acquisition of cost zero, read and never write.
 * </ol>
 * Two more rules keep the state honest when threads race: a decision whose clock reading is
 * older than what the word already reflects never moves the word back (it is refused rather
 * than let a window, slot or schedule the key has left take more), and a refund changes only
 * what its admission's receipt proves was taken (see {@link Algorithm#refund}).
 *
 * <p>The cell also carries a coarse stamp for the registry's eviction choice: the in-memory
 * registry writes it once, when it keeps the cell, and never on access, so a flood on one key
 * keeps the cell's cache line shared (and a client cannot protect its key by touching it).
 *
 * <p>Thread-safe.
 */
public class Cell {

    /**
     * The word of a cell that has been taken out of its registry. No algorithm state may ever
     * equal it; algorithms keep their words away from {@code Long.MIN_VALUE}.
     */
    public static final long RETIRED = Long.MIN_VALUE;

    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(Cell.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long word;

    /** A stamp in units of 2^30 ns (about 1.07 s) of the registry's clock. Plain field: a hint. */
    private int touched;

    /**
     * Creates a cell.
     *
     * @param word the initial state
     */
    public Cell(long word) {
        this.word = word;
    }

    /** @return the current word (volatile read) */
    public final long word() {
        return word;
    }

    /**
     * Atomically replaces the word if it still equals {@code expected}.
     *
     * @param expected the word read earlier
     * @param update the new word
     * @return {@code true} if the word was replaced
     */
    public final boolean casWord(long expected, long update) {
        return WORD.compareAndSet(this, expected, update);
    }

    /**
     * Atomically retires the cell if its word still equals {@code expected}.
     *
     * @param expected the fresh word read earlier
     * @return {@code true} if the cell is now retired
     */
    public final boolean retire(long expected) {
        return expected != RETIRED && WORD.compareAndSet(this, expected, RETIRED);
    }

    /** @return {@code true} if this cell was taken out of its registry */
    public final boolean retired() {
        return word == RETIRED;
    }

    /**
     * Stamps the cell at {@code nowNanos}; writes only when the coarse stamp changes. The in-memory
     * registry calls it once, when it keeps the cell.
     *
     * @param nowNanos the clock reading
     */
    public final void touch(long nowNanos) {
        int stamp = (int) (nowNanos >>> 30);
        if (touched != stamp) {
            touched = stamp;
        }
    }

    /** @return the coarse stamp, in units of 2^30 ns */
    public final int touched() {
        return touched;
    }
}
