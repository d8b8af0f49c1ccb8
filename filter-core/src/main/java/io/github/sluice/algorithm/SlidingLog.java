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
 *       leave the refunded one, which leaves the window earlier, behind). Refunds of one key take
 *       turns; decisions never wait for them. Per permit, the newer permits above the refunded one
 *       move one slot down, each write raising a slot to its newer neighbour's timestamp (so a
 *       reader may count one permit twice, never one too few, and a write compares the exact old
 *       value, so an admission that claimed the slot meanwhile is never overwritten); then the
 *       word moves back by one and the duplicate left at the top is rewritten as an expired entry
 *       of the previous lap (until then everyone reads it as pending, hence in the window). A
 *       refund waits for a newer slot that is claimed but not yet written.
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

    /** A refund gives up on a key flooded so hard that it keeps losing the race to retract. */
    private static final int REFUND_ATTEMPTS = 64;

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the timestamp the admission stamped on its permits. The refund un-logs
     * {@code cost} permits carrying exactly that timestamp (the admission's own, or permits of
     * another request stamped the same instant, which leaves the same log), never the newest
     * ones: un-logging a newer permit would leave the refunded one behind, which leaves the
     * window earlier than the permit it replaced, and a later request would get in too soon.
     * Permits that were already overwritten (they had left every window) are not refunded. See
     * the class documentation for how the log stays consistent meanwhile. No clock is read.
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
                // one permit at a time: each pass keeps the ring sorted and its values known
            }
        } finally {
            cell.endRefund();
        }
    }

    /**
     * Un-logs the newest permit stamped {@code stamp}, holding the refunds' turn: the newer
     * permits above it move one slot down (each write raises a slot to its newer neighbour's
     * stamp, so every reader sees a log at least as full as the true one), then the word moves
     * back by one, retiring the duplicate at the top.
     *
     * @return {@code true} if a permit was un-logged; {@code false} if none carries the stamp,
     *     or the refund gave up (then at worst one permit stays logged twice: stricter, never
     *     looser)
     */
    private boolean unlogOne(SlidingLogCell cell, long stamp) {
        int spins = 0;
        int attempts = 0;
        long target = stamp;
        while (true) {
            long word = cell.word();
            if (word == Cell.RETIRED) {
                return false;
            }
            // The newest permit stamped `target`; the permits above it are newer (sorted ring).
            int at = 0;
            boolean pending = false;
            for (int back = 1; back <= limit; back++) {
                long v = cell.slot(index(word, back));
                if ((int) (v & 1) != parity(word, back)) {
                    pending = true;
                    break;
                }
                long t = v >> 1;
                if (t == target) {
                    at = back;
                    break;
                }
                if (t < target) {
                    break;
                }
            }
            if (pending) {
                // A newer permit is claimed but not yet written: a few instructions away.
                spins = backOff(spins);
                continue;
            }
            if (at == 0) {
                return false;
            }
            // Shift the newer permits one slot down, oldest first, each slot compared against
            // the exact value it held: a slot claimed meanwhile by an admission (it had left the
            // window) makes the compare fail, and the refund stops rather than overwrite it.
            long expected = target << 1 | parity(word, at);
            long top = target;
            for (int back = at - 1; back >= 1; back--) {
                long source = cell.slot(index(word, back));
                if ((int) (source & 1) != parity(word, back)
                        || !cell.casSlot(index(word, back + 1), expected,
                                (source >> 1) << 1 | parity(word, back + 1))) {
                    return false;
                }
                expected = source;
                top = source >> 1;
            }
            // The newest slot now holds a copy of the permit below it: retire it.
            long back = moved(word, -1);
            if (cell.casWord(word, back)) {
                // It lies before the position with the wrong parity, so everyone reads it as
                // pending (in the window) until it is rewritten as an expired previous-lap entry.
                cell.slot(index(word, 1), NEVER << 1 | (parity(word, 1) ^ 1));
                return true;
            }
            // Admissions claimed newer slots meanwhile: the copy now sits below them. Un-log one
            // permit stamped like the copy: the log is then exactly the one without the refunded
            // permit.
            if (++attempts == REFUND_ATTEMPTS) {
                return false;
            }
            target = top;
            spins = 0;
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
