package io.github.sluice.algorithm;

import io.github.sluice.core.Cell;

/**
 * The state shared by the time-based algorithms (token bucket, GCRA, both leaky buckets): a cell
 * word holding an instant that moves forward as permits are taken. The state is fresh once the
 * instant is at or below a floor ({@code now} minus what the algorithm lets a key bank up); a
 * refund moves the instant back, never below the floor.
 *
 * <p>Stateless; every method is lock-free and follows the {@link Cell} rules.
 */
final class TimeWord {

    private TimeWord() {
    }

    /**
     * Moves the instant back by {@code nanos}, never below {@code floor}; does nothing on a fresh or
     * retired cell.
     */
    static void refund(Cell cell, long floor, long nanos) {
        while (true) {
            long t = cell.word();
            if (t == Cell.RETIRED || t <= floor) {
                return;
            }
            if (cell.casWord(t, Math.max(t - nanos, floor))) {
                return;
            }
        }
    }

    /** @return {@code true} if the cell's instant is at or below {@code floor} */
    static boolean isFresh(Cell cell, long floor) {
        long t = cell.word();
        return t != Cell.RETIRED && t <= floor;
    }

    /** Retires the cell if its instant is at or below {@code floor}, atomically. */
    static boolean retireIfFresh(Cell cell, long floor) {
        long t = cell.word();
        return t != Cell.RETIRED && t <= floor && cell.retire(t);
    }
}
