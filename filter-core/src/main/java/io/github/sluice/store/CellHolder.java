package io.github.sluice.store;

import io.github.sluice.core.Cell;

/**
 * A decision that keeps the cell its admission took concurrency permits from, so that the
 * request's release gives them back to that very cell
 * ({@link KeySpace#release(String, Cell, long, long, boolean)}) without looking the key up again.
 *
 * <p>The in-memory {@link ShardedRegistry} hands the cell to a {@link io.github.sluice.core.MutableDecision}
 * that implements this interface whenever it admits a request of a concurrency limit
 * ({@link io.github.sluice.core.Algorithm#concurrency()}); other stores need not. The cell is the
 * one a lookup at release would find, and more exactly so: a key that holds permits is never
 * dropped, and a changed concurrency limit decides on the same cells
 * ({@link ShardedRegistry#rebind}), while a limit changed to another algorithm starts new cells and
 * leaves the old ones to the releases of the requests they admitted. A kept cell also makes a
 * release that should not happen (a second one) land on the cell it was taken from, where it is
 * counted as unmatched, and never on a newer cell of the same key.
 *
 * <p>Not thread-safe: the decision belongs to the one request that is decided into it, and the
 * store writes the cell on that request's thread before the decision is read.
 */
public interface CellHolder {

    /**
     * Keeps the cell an admission took permits from, replacing any kept before (a decision that
     * is decided again after a retired cell keeps the last one).
     *
     * @param cell the key's cell that now holds the admission's permits
     */
    void holdCell(Cell cell);
}
