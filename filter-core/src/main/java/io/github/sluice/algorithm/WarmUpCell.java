package io.github.sluice.algorithm;

import io.github.sluice.core.Cell;

/**
 * One key's state for {@link WarmUp}: Guava's two values. The {@link Cell#word() word} holds the
 * instant of the next free ticket ({@code nextFreeTicket}, nanoseconds, bits 0 to 61) and a
 * <em>publishing</em> flag (bit 62); {@link #stored()} holds the stored warm-up credit
 * ({@code storedPermits} expressed as nanoseconds of idle time, see {@link WarmUp}).
 *
 * <p>The word is the single compare-and-set point. An admission publishes a new ticket together
 * with the flag, then writes the new credit, then clears the flag; the credit is read only while
 * the flag is clear, and validated by reading the word again, so every reader sees a consistent
 * pair. See {@link WarmUp} for the protocol.
 *
 * <p>Memory: 32 bytes with compressed references (header, word, access stamp, credit).
 *
 * <p>Thread-safe. Instances are created by {@link WarmUp#newCell(long)} only.
 */
public final class WarmUpCell extends Cell {

    /** Stored warm-up credit, nanoseconds; written only by the holder of the publishing flag. */
    private volatile long stored;

    WarmUpCell(long next, long stored) {
        super(next);
        this.stored = stored;
    }

    long stored() {
        return stored;
    }

    void stored(long value) {
        stored = value;
    }
}
