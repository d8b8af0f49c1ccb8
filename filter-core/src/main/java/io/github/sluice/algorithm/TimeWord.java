package io.github.sluice.algorithm;

import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;

/**
 * The state shared by the time-based algorithms (token bucket, GCRA, both leaky buckets): a cell
 * word holding an instant that moves forward as permits are taken. The refund below serves the
 * three that count admissions (token bucket, GCRA, policing leaky bucket); shaping, whose
 * admissions are told a slot, refunds only the last slot issued (see
 * {@link ShapingLeakyBucket#refund}). An admission at reading
 * {@code t} sets the instant to {@code max(instant, t - keep) + cost * interval}, where
 * {@code keep} is what the algorithm lets a key bank up (the bucket's capacity, shaping's slack,
 * zero for GCRA and the policing leaky bucket). The state is fresh once the instant is at or below
 * {@code now - keep}.
 *
 * <h2>Refunds</h2>
 * The receipt of an admission is its clock reading {@code t}. A refund of {@code cost} permits
 * moves the instant back by {@code cost * interval - (now - t)}, never below {@code now - keep},
 * and not at all once that is not positive, where {@code now} is read <em>after</em> the word.
 *
 * <p>Why not the whole {@code cost * interval}: after the admission, the key may have banked up
 * again ({@code max(instant, t' - keep)} took the second term: a full bucket, a due TAT), and then
 * the admission's share of the instant was already given back by time; moving the instant back
 * again would hand later requests permits they never waited for. Such a catch-up needs a later
 * reading {@code t' > t}, and every admission the refund can see read its clock before the word
 * this refund read, hence before this refund's own reading. The admissions after ours add their
 * costs on top of ours; the most a catch-up can have absorbed of ours is what time refilled since
 * {@code t}, which is at most {@code now - t}. So what remains, {@code cost * interval -
 * (now - t)}, is provably still the admission's own, whatever happened in between (other
 * admissions, refunds of earlier or later ones, catch-ups), and a refund that follows its
 * admission at once gives back almost everything (all of it on a frozen clock). A stale or early
 * {@code now} would break this, which is why the clock is read after the word and why a receipt
 * later than {@code now} (not one of this clock's readings) gives nothing back.
 *
 * <p>Stale readings need no guard here: an admission's instant is a {@code max}, so a reading
 * older than the state never moves it back; its own catch-up term is just smaller.
 *
 * <p>Stateless; every method is lock-free and follows the {@link Cell} rules.
 */
final class TimeWord {

    private TimeWord() {
    }

    /**
     * Refunds an admission of {@code nanos} (its cost times the interval) made at reading
     * {@code receipt}: see the class documentation.
     *
     * @param keep what the algorithm lets a key bank up, nanoseconds
     */
    static void refund(Cell cell, long keep, long nanos, long receipt, Clock clock) {
        if (nanos <= 0 || receipt == MutableDecision.NO_RECEIPT) {
            return;
        }
        while (true) {
            long t = cell.word();
            if (t == Cell.RETIRED) {
                return;
            }
            // After the word: every admission reflected in t read its clock before this reading.
            long now = clock.nanos();
            long elapsed = now - receipt;
            if (elapsed < 0 || elapsed >= nanos) {
                return;
            }
            long floor = now - keep;
            if (t <= floor) {
                return;
            }
            if (cell.casWord(t, Math.max(t - (nanos - elapsed), floor))) {
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

    /**
     * {@link #refund} for a word in ticks of {@code 1/den} ns, compared by wrapping differences
     * (see {@link ExactInterval}); with {@code den = 1} the same as {@link #refund}.
     */
    static void refundTicks(Cell cell, long keep, long amount, long receipt, Clock clock, long den) {
        if (amount <= 0 || receipt == MutableDecision.NO_RECEIPT) {
            return;
        }
        while (true) {
            long t = cell.word();
            if (t == Cell.RETIRED) {
                return;
            }
            // After the word: every admission reflected in t read its clock before this reading.
            long now = clock.nanos();
            long elapsed = now - receipt;
            if (elapsed < 0 || elapsed >= amount / den + 1) {
                return;
            }
            long elapsedTicks = elapsed * den;
            if (elapsedTicks >= amount) {
                return;
            }
            long floor = now * den - keep;
            if (t - floor <= 0) {
                return;
            }
            long target = t - (amount - elapsedTicks);
            if (target - floor < 0) {
                target = floor;
            }
            if (cell.casWord(t, ExactInterval.word(target))) {
                return;
            }
        }
    }

    /** {@link #isFresh} for a word in ticks: not after {@code floor}, by wrapping difference. */
    static boolean isFreshTicks(Cell cell, long floor) {
        long t = cell.word();
        return t != Cell.RETIRED && t - floor <= 0;
    }

    /** {@link #retireIfFresh} for a word in ticks. */
    static boolean retireIfFreshTicks(Cell cell, long floor) {
        long t = cell.word();
        return t != Cell.RETIRED && t - floor <= 0 && cell.retire(t);
    }
}
