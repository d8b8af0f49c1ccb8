package io.github.sluice.algorithm;

import io.github.sluice.internal.Units;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
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
 *   <li>A refund ({@link #refund}) un-logs the permits of its own admission, found by the
 *       timestamp on its receipt (not the newest permits: un-logging a newer permit instead would
 *       leave the refunded one, which leaves the window earlier, behind). Refunds of one
 *       key take turns; decisions never wait for them, and the word never moves for them. Per
 *       permit, the older permits below the refunded one move one slot up, toward it, each write
 *       lowering a slot to its older neighbour's timestamp and comparing the exact old value; the
 *       oldest slot then gets back the newest permit the ring had dropped, or rather a timestamp
 *       no earlier: {@code latest - window} (an admission drops a permit only once it has left
 *       the window of its reading, and no reading is later than {@code latest}), capped by the
 *       slot's own stamp so the ring stays sorted. Not "no permit": the dropped permit may still
 *       be in the window of a stale reading, and an admission at 9 s, read before and decided
 *       after an admission at 10 s that dropped the 0 s permit and was refunded, would make six
 *       in {@code (-1 s, 9 s]} with a limit of five.
 *   <li>So the ring's {@code limit} newest entries are at every instant, entry by entry, at least
 *       the true log's (every permit admitted and not refunded, newest first), which is what "no
 *       window of decision readings holds more than {@code limit}" needs. An admission that read
 *       the oldest slots before a refund's write and claims them after drops stamps no later than
 *       the ones it checked, which the true log (the refund first) drops too or keeps in a newer
 *       slot; a refund whose write or source slot was claimed meanwhile stops there, leaving the
 *       log as the true one or stricter. Permits at or before {@code latest - window} do not
 *       move (the slot above the first of them gets that bound), so a refund rewrites only the
 *       older permits still in the window of the newest stamp. A refund waits for an older slot
 *       that is claimed but not yet written, if it would move.
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
 * <h2>Changing the limit on a live limiter</h2>
 * {@code BlockingLimiter.setRate} (through {@link RateChange}) keeps the timestamps in the window
 * at now: the ring is resized to the new limit ({@value #MAX_LIMIT} at most, the builder's
 * message otherwise) and holds the newest, which decide exactly as the whole log would; if more
 * are in the window than the new limit, the older ones are remembered beside the ring, only so
 * that raising the limit again counts them. A new window length moves the horizon; what had
 * already left the old window never comes back. See "Changing the rate" in
 * {@code docs/algorithms.md}.
 *
 * <p>Immutable and thread-safe. Clock readings must lie in {@code [0, 2^62)} (until the year 2116).
 */
public final class SlidingLog extends Algorithm<SlidingLogCell> {

    /** The largest limit a sliding log accepts: 80 KB of timestamps per key. */
    public static final long MAX_LIMIT = 10_000;

    /** A timestamp older than any window: marks slots that never held a permit. */
    static final long NEVER = -(1L << 61) - 1;
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

    /**
     * {@code limit} permits in any {@code window} ({@code sliding-log 10/1h}):
     * {@code SlidingLog.of(10, Duration.ofHours(1))}.
     *
     * @param limit permits per window, between 1 and {@value #MAX_LIMIT}
     * @param window the window's length, {@code > 0}
     * @return the algorithm
     * @throws NullPointerException if {@code window} is null
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder})
     */
    public static SlidingLog of(long limit, Duration window) {
        return builder().limit(limit).window(window).build();
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
                out.receipt(stamp);
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
     * A refund gives up (refunds nothing more: stricter, never looser) on a key flooded so hard
     * that older claims keep appearing under the permit it is retracting.
     */
    private static final int REFUND_ATTEMPTS = 64;

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the timestamp the admission stamped on its permits. The refund un-logs
     * {@code cost} permits carrying exactly that timestamp (the admission's own, or permits of
     * another request stamped the same instant, which leaves the same log), never the newest
     * ones: un-logging a newer permit would leave the refunded one behind, which leaves the
     * window earlier than the permit it replaced, and a later request would get in too soon.
     * Permits that were already overwritten are not refunded. The slot a refund frees is the
     * oldest one, and it gets back the newest permit the ring had dropped, or a timestamp no
     * earlier (see the class documentation), never "no permit": a stale reading still counts a
     * dropped permit that is in its window. Costs one slot read per newer permit and one
     * compare-and-set per older permit still in the window of the newest stamp (up to
     * {@code limit} on a full window), per permit refunded. No clock is read.
     */
    @Override
    public void refund(SlidingLogCell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0 || receipt == MutableDecision.NO_RECEIPT) {
            return;
        }
        int spins = 0;
        while (!cell.tryStartRefund()) {
            if (cell.word() == Cell.RETIRED) {
                return;
            }
            spins = backOff(spins);
        }
        try {
            long n = Math.min(cost, limit);
            for (long k = 0; k < n && unlogOne(cell, receipt); k++) {
                // one permit at a time: each pass keeps the ring sorted and at least the true log
            }
        } finally {
            cell.endRefund();
        }
    }

    /**
     * An upper bound on the timestamp of the newest permit the ring no longer holds. An admission
     * overwrites a permit only once it has left the window of the admission's reading, and every
     * reading is at most {@code latest}, so every overwritten permit is at or before
     * {@code latest - window}; a rate change's cell also remembers the in-window permits it kept
     * beyond its ring ({@link SlidingLogCell#older()}), all older than the ring's.
     */
    private long droppedBound(SlidingLogCell cell) {
        long bound = cell.latest() - window;
        long[] older = cell.older();
        return older.length == 0 ? bound : Math.max(bound, older[older.length - 1]);
    }

    /**
     * Un-logs the newest permit stamped {@code stamp}, holding the refunds' turn: the older
     * permits below it move one slot up, toward it (each write lowers a slot to its older
     * neighbour's stamp), and the oldest slot gets {@link #droppedBound}, capped by the stamp it
     * held so that the ring stays sorted. The word never moves: an admission that checked the
     * oldest slots before a write and claims them after evicts stamps no later than the ones it
     * checked, which the true log (the refund first, then the admission) evicts too or keeps
     * above them.
     *
     * @return {@code true} if a permit was un-logged; {@code false} if none carries the stamp,
     *     or the refund gave up (nothing was written then)
     */
    private boolean unlogOne(SlidingLogCell cell, long stamp) {
        int spins = 0;
        int attempts = 0;
        retry:
        while (true) {
            long word = cell.word();
            if (word == Cell.RETIRED) {
                return false;
            }
            // The newest permit stamped `stamp`; the ones below it are older (sorted ring). A
            // pending slot above it is newer and is not touched: skip it.
            int at = 0;
            for (int back = 1; back <= limit; back++) {
                long v = cell.slot(index(word, back));
                if ((int) (v & 1) != parity(word, back)) {
                    continue;
                }
                long t = v >> 1;
                if (t == stamp) {
                    at = back;
                    break;
                }
                if (t < stamp) {
                    return false;
                }
            }
            if (at == 0) {
                return false;
            }
            // Every older slot that moves up must be written. One that is pending was claimed
            // before the word was read (its writer is a few instructions away) or, if the word
            // moved, perhaps claimed since (then decide again on the new word). Permits at or
            // before the bound do not move, and nor does a pending slot below them (its stamp
            // is no later than theirs).
            long bound = droppedBound(cell);
            for (int back = at + 1; back <= limit; back++) {
                long v = cell.slot(index(word, back));
                if ((int) (v & 1) != parity(word, back)) {
                    if (cell.word() != word && ++attempts == REFUND_ATTEMPTS) {
                        return false;
                    }
                    spins = backOff(spins);
                    continue retry;
                }
                if (v >> 1 <= bound) {
                    break;
                }
            }
            // Move the older permits up one slot, newest first; each write compares the exact
            // value the slot held. A slot or source that an admission claimed meanwhile (it
            // claims the oldest slots, from the bottom) has left that admission's window, and so
            // has every slot below it: the log is then the true one or stricter; stop there.
            // Permits at or before the bound are out of the window of every reading but stale
            // ones: the first of them is not moved up, the slot above it gets the bound (at least
            // each permit it stands for), and the ones below stay where they are.
            long expected = stamp << 1 | parity(word, at);
            for (int back = at; back <= limit; back++) {
                int i = index(word, back);
                if (back < limit) {
                    long source = cell.slot(index(word, back + 1));
                    if ((int) (source & 1) != parity(word, back + 1)) {
                        // Claimed and written since the word was read: its old permit was no
                        // later than `latest - window`, re-read after seeing the write.
                        long dropped = Math.min(expected >> 1, droppedBound(cell));
                        cell.casSlot(i, expected, dropped << 1 | parity(word, back));
                        return true;
                    }
                    if (source >> 1 > bound) {
                        if (!cell.casSlot(i, expected, source >> 1 << 1 | parity(word, back))) {
                            return true;
                        }
                        expected = source;
                        continue;
                    }
                }
                long dropped = Math.min(expected >> 1, bound);
                if (dropped != expected >> 1) {
                    cell.casSlot(i, expected, dropped << 1 | parity(word, back));
                }
                return true;
            }
            return true;
        }
    }

    /**
     * Carries a key's log to {@code to}, the same algorithm with another limit or window (see
     * {@link RateChange#carry}), at {@code now}: the permits in this log's window at now are kept
     * with their timestamps (what the old window had already forgotten does not come back under a
     * longer one), and {@code to}'s window then decides when each leaves. If more are kept than
     * {@code to}'s limit, its ring holds the newest {@code limit} of them. That decides exactly as
     * the whole log would: an admission of {@code n} permits needs the {@code (limit - n + 1)}-th
     * newest permit out of the window, and that is the same permit in both. The older ones are
     * remembered beside the ring ({@link SlidingLogCell.Carried}) only so that a later change that
     * raises the limit again counts them. A permit claimed but not yet written is carried as the
     * newest stamp ever claimed (later, never earlier, than its own).
     *
     * @return the new cell, the old one having been retired by one compare-and-set from the word
     *     the new one was computed from; {@code null} if the word changed meanwhile or was retired
     */
    SlidingLogCell carry(SlidingLogCell cell, SlidingLog to, long now) {
        long word = cell.word();
        if (word == Cell.RETIRED) {
            return null;
        }
        long latest = cell.latest();
        long boundary = now - window;
        long pending = pendingStamp(latest, boundary);
        long[] older = cell.older();
        long[] stamps = new long[limit + older.length];
        int n = 0;
        for (long t : older) {
            if (t > boundary) {
                stamps[n++] = t;
            }
        }
        for (int back = limit; back >= 1; back--) {
            long t = stamp(cell, word, back, pending);
            if (t > boundary) {
                stamps[n++] = t;
            }
        }
        SlidingLogCell fresh;
        if (n == 0) {
            fresh = to.newCell(now);
        } else {
            // Sorted already but for a pending slot read as the newest claimed stamp.
            java.util.Arrays.sort(stamps, 0, n);
            long[] kept = java.util.Arrays.copyOf(stamps, n);
            fresh = n > to.limit
                    ? new SlidingLogCell.Carried(to.limit, NEVER << 1 | 1, latest, kept, n - to.limit)
                    : new SlidingLogCell(to.limit, NEVER << 1 | 1, latest, kept, 0);
        }
        return cell.retire(word) ? fresh : null;
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
        return "sliding-log{limit=" + limit + ", window=" + Units.duration(window) + '}';
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
