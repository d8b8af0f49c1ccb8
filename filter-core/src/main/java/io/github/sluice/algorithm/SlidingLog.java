package io.github.sluice.algorithm;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * Sliding log: the exact sliding window. Every admitted permit is logged with its timestamp; a
 * request of {@code n} permits at {@code now} is admitted if the permits logged in the window
 * {@code (now - window, now]} plus {@code n} do not exceed {@code limit}. A request of more than
 * {@code limit} permits is refused with {@link Decision#NEVER} as retry-after.
 *
 * <h2>Reference semantics</h2>
 * The Redis sorted-set log of the seeds: {@code ZREMRANGEBYSCORE key 0 now-window} drops the
 * timestamps that left the window, {@code ZCARD} counts the rest, and {@code ZADD} logs the new
 * ones. A timestamp {@code t} is in the window while {@code t > now - window}. On a refusal, the
 * retry-after is the time until enough of the oldest logged permits leave the window. Exact: no
 * approximation at window boundaries, unlike {@link SlidingWindow}.
 *
 * <h2>Memory</h2>
 * The one algorithm whose state grows with its limit: one {@code long} per permit, in a ring of
 * {@code limit} slots per key ({@link SlidingLogCell}), so about {@code 8 * limit + 56} bytes per
 * key (80 KB at the cap). The limit is capped at {@value #MAX_LIMIT}; above a few hundred, prefer a
 * {@link SlidingWindow} with enough slots, or a {@link TokenBucket}.
 *
 * <h2>Concurrency</h2>
 * Lock-free; nothing is allocated per decision. The cell's word (version, lap parity, position) is
 * the single compare-and-set point; slots are written only by the admission that claimed them:
 * <ol>
 *   <li>An admission reads the word, then {@code latest}, and checks that the {@code n} oldest slots
 *       (the ones it will overwrite) hold timestamps outside the window. It stamps
 *       {@code max(now, latest)}, raises {@code latest} to the stamp, claims the {@code n} slots by
 *       advancing the word (the linearization point), then writes them. Reading {@code latest}
 *       after the word makes stamps non-decreasing in claim order, so the ring stays sorted.
 *   <li>A slot claimed but not yet written still carries the previous lap's parity: every reader
 *       counts it as inside the window (its stamp is recent), and no admission overwrites it, so a
 *       slow writer can never clobber a newer permit. A refusal re-reads the word and retries if it
 *       moved, so it decides on a consistent snapshot; it writes nothing.
 *   <li>A refund ({@link #release}) un-logs the newest written permits that are still in the
 *       window: it moves the word back first (other threads then see those slots as pending, hence
 *       in the window) and then rewrites the slots as expired entries of the previous lap.
 * </ol>
 * Decisions are linearizable, with one conservative exception: if a thread is descheduled for
 * longer than the window between claiming slots and writing them, its permits keep counting as
 * inside the window until it resumes (a request may be refused that would otherwise pass; none is
 * ever admitted that should not be).
 *
 * <h2>Headers</h2>
 * {@code limit} and the window as configured; {@code remaining} is {@code limit} minus the permits
 * in the window; {@code reset} is the time until the newest logged permit leaves the window.
 *
 * <p>Immutable and thread-safe. Clock readings must lie in {@code [0, 2^62)} (until the year 2116).
 */
public final class SlidingLog extends Algorithm<SlidingLogCell> {

    /** The largest limit a sliding log accepts: 80 KB of timestamps per key. */
    public static final long MAX_LIMIT = 10_000;

    /** A timestamp older than any window: marks slots that never held a permit. */
    private static final long NEVER = -(1L << 61) - 1;
    private static final int POS_BITS = 14;
    private static final long POS_MASK = (1L << POS_BITS) - 1;
    private static final long LAP_BIT = 1L << POS_BITS;
    private static final int VERSION_SHIFT = POS_BITS + 1;
    private static final long VERSION_MASK = (1L << 48) - 1;

    private final int limit;
    private final long window;

    private SlidingLog(int limit, long window) {
        this.limit = limit;
        this.window = window;
    }

    /** @return a builder; {@code limit} and {@code window} must be set */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String kind() {
        return "sliding-log";
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
     * @return {@code 56 + 8 * limit}: a {@link SlidingLogCell} (header, the word, the access stamp,
     *     the newest stamp, the ring's reference) and its ring of {@code limit} timestamps
     */
    @Override
    public long bytesPerKey() {
        return objectBytes(2, 1, 1) + longArrayBytes(limit);
    }

    @Override
    public SlidingLogCell newCell(long now) {
        // Slot j starts as permit j - limit: lap -1 (parity 1), never stamped.
        return new SlidingLogCell(limit, NEVER << 1 | 1, NEVER);
    }

    // ---- word and slot arithmetic ------------------------------------------------------------

    private static int pos(long word) {
        return (int) (word & POS_MASK);
    }

    private static int lap(long word) {
        return (word & LAP_BIT) == 0 ? 0 : 1;
    }

    /** The word after moving the position by {@code delta} permits, {@code |delta| <= limit}. */
    private long moved(long word, long delta) {
        long p = pos(word) + delta;
        long lapBit = word & LAP_BIT;
        if (p >= limit) {
            p -= limit;
            lapBit ^= LAP_BIT;
        } else if (p < 0) {
            p += limit;
            lapBit ^= LAP_BIT;
        }
        long version = ((word >>> VERSION_SHIFT) + 1) & VERSION_MASK;
        return version << VERSION_SHIFT | lapBit | p;
    }

    /** Ring index of the permit {@code back} places before the position ({@code 1 <= back <= limit}). */
    private int index(long word, int back) {
        int i = pos(word) - back;
        return i < 0 ? i + limit : i;
    }

    /** Lap parity that the permit {@code back} places before the position must carry. */
    private int parity(long word, int back) {
        return pos(word) - back < 0 ? lap(word) ^ 1 : lap(word);
    }

    /**
     * The timestamp of the permit {@code back} places before the position, or {@code pending} if
     * that permit is claimed but not yet written.
     */
    private long stamp(SlidingLogCell cell, long word, int back, long pending) {
        long v = cell.slot(index(word, back));
        return (int) (v & 1) == parity(word, back) ? v >> 1 : pending;
    }

    /**
     * What a pending slot counts as: inside the window (it must not be overwritten, and its stamp is
     * recent), leaving it no later than {@code latest}, which bounds every stamp.
     */
    private static long pendingStamp(long latest, long boundary) {
        return Math.max(latest, boundary + 1);
    }

    /** How many of the newest permits are in the window (pending ones count); slots are sorted. */
    private int inWindow(SlidingLogCell cell, long word, long boundary, long pending) {
        int lo = 0;
        int hi = limit;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (stamp(cell, word, mid, pending) > boundary) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    // ---- the algorithm -----------------------------------------------------------------------

    @Override
    public int acquire(SlidingLogCell cell, long now, long cost, MutableDecision out) {
        long boundary = now - window;
        while (true) {
            long word = cell.word();
            if (word == Cell.RETIRED) {
                return RETIRED;
            }
            long latest = cell.latest();
            long pending = pendingStamp(latest, boundary);
            if (cost > limit) {
                if (cell.word() != word) {
                    continue;
                }
                deny(cell, word, boundary, pending, Decision.NEVER, out);
                return DENIED;
            }
            int n = (int) cost;
            // The n oldest slots are the ones to overwrite; sorted, so the newest of them decides,
            // but each is checked so that a pending slot is never overwritten.
            long blocking = Long.MIN_VALUE;
            for (int back = limit - n + 1; back <= limit; back++) {
                long t = stamp(cell, word, back, pending);
                if (t > boundary) {
                    blocking = Math.max(blocking, t);
                }
            }
            if (blocking != Long.MIN_VALUE) {
                if (cell.word() != word) {
                    continue; // the snapshot was torn by a concurrent change: decide again
                }
                deny(cell, word, boundary, pending, blocking - boundary, out);
                return DENIED;
            }
            if (n == 0) {
                if (cell.word() != word) {
                    continue;
                }
                if (out != null) {
                    int used = inWindow(cell, word, boundary, pending);
                    out.allow(limit, limit - used, used == 0 ? 0
                            : stamp(cell, word, 1, pending) - boundary);
                }
                return ADMITTED;
            }
            long stamp = Math.max(now, latest);
            long claimed = claim(cell, word, n, stamp);
            if (claimed == Cell.RETIRED) {
                continue;
            }
            write(cell, claimed, n, stamp);
            if (out != null) {
                int used = inWindow(cell, claimed, boundary, pendingStamp(stamp, boundary));
                out.allow(limit, limit - used, stamp - boundary);
            }
            return ADMITTED;
        }
    }

    /**
     * First step of an admission: raises {@code latest} to the stamp, then claims {@code n} slots.
     * Package-private so that tests can stall an admission between its two steps.
     *
     * @return the new word, or {@link Cell#RETIRED} if the word moved since it was read
     */
    long claim(SlidingLogCell cell, long word, int n, long stamp) {
        cell.raiseLatest(stamp);
        long claimed = moved(word, n);
        return cell.casWord(word, claimed) ? claimed : Cell.RETIRED;
    }

    /** Second step of an admission: writes the stamp into the {@code n} slots it claimed. */
    void write(SlidingLogCell cell, long claimed, int n, long stamp) {
        long value = stamp << 1;
        for (int back = n; back >= 1; back--) {
            cell.slot(index(claimed, back), value | parity(claimed, back));
        }
    }

    private void deny(SlidingLogCell cell, long word, long boundary, long pending, long retryAfter,
            MutableDecision out) {
        if (out != null) {
            int used = inWindow(cell, word, boundary, pending);
            long reset = used == 0 ? 0 : stamp(cell, word, 1, pending) - boundary;
            out.deny(limit, limit - used, reset, retryAfter);
        }
    }

    /** Spins briefly, then yields, so a descheduled writer on a busy machine gets the core. */
    private static int backOff(int spins) {
        if (spins < 64) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
        return spins + 1;
    }

    /**
     * Un-logs up to {@code cost} of the newest permits that are still in the window (a refund of
     * permits taken by a request another policy refused). Permits that left the window are not
     * refunded. If the newest slots are still being written by another thread, the refund waits
     * for that write (spinning, then yielding) instead of skipping them, which would leak permits.
     */
    @Override
    public void release(SlidingLogCell cell, long now, long cost) {
        if (cost <= 0) {
            return;
        }
        long boundary = now - window;
        int spins = 0;
        while (true) {
            long word = cell.word();
            if (word == Cell.RETIRED) {
                return;
            }
            int m = 0;
            int max = (int) Math.min(cost, limit);
            boolean pending = false;
            while (m < max) {
                long v = cell.slot(index(word, m + 1));
                if ((int) (v & 1) != parity(word, m + 1)) {
                    pending = true;
                    break;
                }
                if (v >> 1 <= boundary) {
                    break;
                }
                m++;
            }
            if (pending) {
                // The newest slots were claimed (or un-logged) by a thread that has not written them
                // yet: a few instructions away. Refunding around them would leak permits, so wait for
                // the write. Only a refund waits; decisions never do.
                spins = backOff(spins);
                continue;
            }
            if (m == 0) {
                return;
            }
            long back = moved(word, -m);
            if (!cell.casWord(word, back)) {
                continue;
            }
            // The m slots now lie before the position with the wrong parity, so everyone reads them
            // as pending (in the window) until they are rewritten as expired entries.
            for (int k = 0; k < m; k++) {
                int index = index(word, k + 1);
                cell.slot(index, NEVER << 1 | (parity(word, k + 1) ^ 1));
            }
            return;
        }
    }

    /** A log is fresh when no permit ever stamped on it, pending or written, is in the window. */
    @Override
    public boolean isFresh(SlidingLogCell cell, long now) {
        return cell.word() != Cell.RETIRED && cell.latest() <= now - window;
    }

    @Override
    public boolean retireIfFresh(SlidingLogCell cell, long now) {
        long word = cell.word();
        return word != Cell.RETIRED && cell.latest() <= now - window && cell.retire(word);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlidingLog s && s.limit == limit && s.window == window;
    }

    @Override
    public int hashCode() {
        return Objects.hash(limit, window);
    }

    @Override
    public String toString() {
        return "sliding-log{limit=" + limit + ", window=" + Duration.ofNanos(window) + '}';
    }

    /** Builds a {@link SlidingLog}. Not thread-safe. */
    public static final class Builder {
        private long limit;
        private long window;

        private Builder() {
        }

        /**
         * Sets how many permits the window holds. Each costs 8 bytes per key.
         *
         * @param limit permits, between 1 and {@value SlidingLog#MAX_LIMIT}
         * @return this builder
         * @throws IllegalArgumentException if {@code limit} is out of range
         */
        public Builder limit(long limit) {
            if (limit > MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be at most " + MAX_LIMIT
                        + " for a sliding log (it keeps one 8-byte timestamp per permit and key)"
                        + " but was " + limit + "; use a sliding-window or a token-bucket instead");
            }
            this.limit = Checks.atLeast("limit", limit, 1);
            return this;
        }

        /**
         * Sets the length of the window.
         *
         * @param window a duration {@code > 0}
         * @return this builder
         * @throws NullPointerException if {@code window} is null
         * @throws IllegalArgumentException if it is not positive or longer than about 73 years
         */
        public Builder window(Duration window) {
            this.window = Checks.positiveNanos("window", window);
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if limit or window is missing
         */
        public SlidingLog build() {
            if (limit == 0) {
                throw new IllegalStateException("limit must be set");
            }
            if (window == 0) {
                throw new IllegalStateException("window must be set");
            }
            return new SlidingLog((int) limit, window);
        }
    }
}
