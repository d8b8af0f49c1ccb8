package io.github.sluice.core;

/**
 * A limiting algorithm: an immutable configuration plus the decision function over one key's
 * {@link Cell}. The same algorithm object serves every key of a policy.
 *
 * <p>Implementations follow the rules on {@link Cell}: lock-free, nothing allocated per decision,
 * a denial does not write, time comes only from the {@code now} argument (nanoseconds of a
 * {@link Clock}), integer arithmetic that saturates instead of overflowing.
 *
 * <p><b>Stale readings.</b> Threads read the clock before they decide, so a decision may carry a
 * reading earlier than one the cell already reflects (its thread was descheduled in between).
 * Such a reading never moves the state backwards and never reopens quota: a window, slot or
 * schedule the key has left is never written again, and a request whose reading falls in one is
 * refused (its retry-after is when the reading would have caught up), because what that window
 * already admitted is no longer known. Every guarantee of an algorithm holds over the readings
 * its admissions were decided at.
 *
 * <p><b>Admissions and refunds.</b> An admission of {@code cost > 0} recorded into a
 * {@link MutableDecision} carries a receipt; {@link #refund} with that receipt undoes exactly that
 * admission, as far as the key's state still holds it.
 *
 * <p>Two algorithms are {@link Object#equals equal} when their configurations are equal, so that
 * a policy parsed from text equals the one built in code.
 *
 * @param <S> the type of per-key state
 */
public abstract class Algorithm<S extends Cell> {

    /** {@link #acquire} result: the request was refused. */
    public static final int DENIED = 0;
    /** {@link #acquire} result: the request was admitted (allowed now, or shaped). */
    public static final int ADMITTED = 1;
    /**
     * {@link #acquire} result: the cell was retired by its registry and nothing was done; the
     * caller looks the key up again and retries.
     */
    public static final int RETIRED = 2;

    /**
     * The partition of a request that belongs to none: {@link #acquireOrWait(Cell, long, Clock,
     * long, int, MutableDecision)} with it decides like {@link #acquire}. Algorithms without
     * partitions ignore every partition.
     */
    public static final int NO_PARTITION = -1;

    /** For subclasses. */
    protected Algorithm() {
    }

    /**
     * Returns the algorithm's name as written in the policy language, e.g. {@code token-bucket}.
     *
     * @return the kind, never {@code null}
     */
    public abstract String kind();

    /**
     * Returns the quota announced in headers ({@code q}): the number of permits a key may use per
     * {@link #windowNanos() window}, or the maximum in flight for a concurrency limit.
     *
     * @return the quota, {@code >= 1}
     */
    public abstract long limit();

    /**
     * Returns the window announced in headers ({@code w}), in nanoseconds, or {@code 0} for a
     * concurrency limit, which has no window.
     *
     * @return the window in nanoseconds, {@code >= 0}
     */
    public abstract long windowNanos();

    /**
     * Tells whether permits are held while a request is in flight and handed back by
     * {@link #release}, rather than restored by time.
     *
     * @return {@code true} for concurrency limits
     */
    public boolean concurrency() {
        return false;
    }

    /**
     * Tells whether {@link #release(Cell, long, long, long, boolean)} reads its {@code now}
     * argument. A store reads its clock for every release of an algorithm that answers
     * {@code true} (the default, always safe); for one that answers {@code false} it may skip the
     * reading and pass any value. A concurrency limit gives its permits back whatever the time,
     * so it answers {@code false}; an adaptive limit learns from the time between the admission
     * and the release, so it needs the reading.
     *
     * <p>The answer is part of the algorithm's configuration: the same for every call.
     *
     * @return {@code true} if a release needs the clock's reading
     */
    public boolean readsClockAtRelease() {
        return true;
    }

    /**
     * Tells whether deciding on a key's existing cell ({@link #acquire}, {@link #acquireOrWait})
     * reads the {@code now} argument. A store reads its clock before every decision of an
     * algorithm that answers {@code true} (the default, always safe); for one that answers
     * {@code false} it may skip the reading when the key already has a cell, and pass any value.
     * It still reads the clock for a key's first cell ({@link #newCell}, {@link #isFresh}), which
     * its eviction bookkeeping needs. A concurrency limit without a bounded wait decides by the
     * permits held alone and answers {@code false}; with a wait, the deadline needs the reading.
     *
     * <p>The answer is part of the algorithm's configuration: the same for every call.
     *
     * @return {@code true} if a decision on an existing cell needs the clock's reading
     */
    public boolean readsClockToDecide() {
        return true;
    }

    /**
     * Creates the state of a key seen for the first time: the state that admits the most.
     *
     * @param now the clock reading, nanoseconds
     * @return a fresh cell, never {@code null}
     */
    public abstract S newCell(long now);

    /**
     * Decides one request of {@code cost} permits. A cost of zero is a peek: it reports the state
     * and never writes.
     *
     * @param cell the key's state
     * @param now the clock reading, nanoseconds, read once per decision
     * @param cost permits requested, {@code >= 0}
     * @param out where to write the decision (an admission with its {@linkplain
     *     MutableDecision#receipt() receipt}), or {@code null} when only the result code is needed
     *     (such an admission cannot be refunded)
     * @return {@link #ADMITTED}, {@link #DENIED} or {@link #RETIRED}
     */
    public abstract int acquire(S cell, long now, long cost, MutableDecision out);

    /**
     * Decides one request like {@link #acquire}, except that an algorithm with a bounded wait (a
     * concurrency limit with a {@code maxWait}) may block, up to its wait, until permits are
     * released by other requests. Stores call this method; the default simply calls
     * {@link #acquire}.
     *
     * <p>An implementation that blocks must not lose wake-ups, must not spin, must return
     * {@link #RETIRED} if the cell is retired while it waits, and must give up (deny) with the
     * thread's interrupt flag set if interrupted.
     *
     * @param cell the key's state
     * @param now the clock reading at the start of the request, nanoseconds; the wait ends at
     *     {@code now} plus the algorithm's wait, also when the caller retries after
     *     {@link #RETIRED}
     * @param clock the clock, read again while waiting
     * @param cost permits requested, {@code >= 0}
     * @param out where to write the decision, or {@code null}
     * @return {@link #ADMITTED}, {@link #DENIED} or {@link #RETIRED}
     */
    public int acquireOrWait(S cell, long now, Clock clock, long cost, MutableDecision out) {
        return acquire(cell, now, cost, out);
    }

    /**
     * Decides one request like {@link #acquireOrWait(Cell, long, Clock, long, MutableDecision)},
     * for a request of the given partition: a class of requests (by header, principal, ...) to
     * which an algorithm with partitions guarantees a share of its limit. The partition an
     * admission was made for travels in its {@linkplain MutableDecision#receipt() receipt}, so
     * that {@link #release(Cell, long, long, long, boolean)} gives the permits back to it. The
     * default ignores the partition.
     *
     * @param cell the key's state
     * @param now the clock reading at the start of the request, nanoseconds
     * @param clock the clock, read again while waiting
     * @param cost permits requested, {@code >= 0}
     * @param partition the request's partition, an index into the algorithm's partitions, or
     *     {@link #NO_PARTITION} (any value outside the algorithm's partitions means none)
     * @param out where to write the decision, or {@code null}
     * @return {@link #ADMITTED}, {@link #DENIED} or {@link #RETIRED}
     */
    public int acquireOrWait(S cell, long now, Clock clock, long cost, int partition,
            MutableDecision out) {
        return acquireOrWait(cell, now, clock, cost, out);
    }

    /**
     * Gives back the permits of a request that has ended: for a concurrency limit, the permits
     * taken by {@link #acquire} while the request ran. Rate limits hold nothing while a request
     * runs, so for them this does nothing (the default); an admission of theirs is undone only by
     * {@link #refund}, with its receipt. Never raises the state above fresh.
     *
     * <p>A release the key cannot match (it holds fewer permits than {@code cost}, or the cell is
     * retired, which a cell holding permits never is) is a caller's bug: a request released twice,
     * or a release without an admission. The state is clamped at fresh and the permits that found
     * no match are returned, so that the caller can report it (Sluice counts them in its metrics
     * as unmatched releases and logs the first). The clamp alone would hide the bug: while other
     * requests hold permits, a second release of one request frees a permit that another holds,
     * and the key admits more than its limit.
     *
     * @param cell the key's state
     * @param now the clock reading, nanoseconds
     * @param cost permits to give back, {@code >= 0}
     * @return the permits of {@code cost} the key did not hold, {@code 0} for a matched release
     *     (always {@code 0} for a rate limit)
     */
    public long release(S cell, long now, long cost) {
        return 0;
    }

    /**
     * Gives back the permits of a request that has ended, like {@link #release(Cell, long, long)},
     * and tells the algorithm how the request went: an adaptive concurrency limit learns from the
     * time between the admission (named by its {@code receipt}) and {@code now}, and from
     * {@code dropped}. The default ignores both and calls {@link #release(Cell, long, long)}.
     *
     * <p>Call it once per admitted request, when the request ends however it ends (a normal
     * response, an exception, an asynchronous completion, a timeout, a client abort), with the
     * admission's cost and receipt; the algorithm detects a second release of the same admission
     * only when the key then holds fewer permits than it gives back (the return value). An admission that never ran (another policy refused the same request) is undone
     * with {@link #refund} instead, which teaches the algorithm nothing.
     *
     * @param cell the key's state
     * @param now the clock reading when the request ended, nanoseconds, from the clock the
     *     admission read
     * @param cost the admission's cost, {@code >= 0}
     * @param receipt the admission's {@linkplain MutableDecision#receipt() receipt}, or
     *     {@link MutableDecision#NO_RECEIPT} if unknown (the permits are released, nothing is
     *     learned)
     * @param dropped {@code true} if the request failed in a way that signals overload (a
     *     timeout, or a status such as 503 that the user declared a drop)
     * @return the permits of {@code cost} the key did not hold, {@code 0} for a matched release;
     *     see {@link #release(Cell, long, long)}
     */
    public long release(S cell, long now, long cost, long receipt, boolean dropped) {
        return release(cell, now, cost);
    }

    /**
     * Undoes one admission: gives back the {@code cost} permits that the acquisition which issued
     * {@code receipt} (its {@link MutableDecision#receipt()}) took, when another policy refused the
     * same request or a reservation is cancelled. Every implementation follows the refund rules:
     * <ol>
     *   <li><b>Only what the admission took.</b> The permits go back to the window, slot, log
     *       entries or schedule the receipt names, never to a later window or to entries or
     *       schedule that later requests own. If the state has moved on (a new window, a later
     *       schedule, newer entries), the refund gives back only what is provably still the
     *       admission's own, possibly nothing.
     *   <li><b>No clock at release time decides where the permits go.</b> The receipt does. An
     *       implementation that reads {@code clock} uses it only as an upper bound on the readings
     *       of the acquisitions already applied to the cell, reading it after the cell's state, so
     *       that a later reading can only make it give back less.
     *   <li><b>Never above fresh, never twice.</b> A refund never leaves the state better than
     *       fresh; each admission is refunded at most once, with its own cost (a larger cost, a
     *       receipt of another cell or of another algorithm, or {@link MutableDecision#NO_RECEIPT}
     *       gives back at most what the receipt proves, often nothing).
     * </ol>
     * A refund is lock-free, or waits only for another thread that is a few instructions from
     * finishing a write on the same key; it never blocks a decision. Does nothing on a retired
     * cell.
     *
     * @param cell the key's state
     * @param cost the admission's cost, {@code >= 0}
     * @param receipt the admission's receipt
     * @param clock the clock the acquisition read, for algorithms that bound elapsed time
     */
    public abstract void refund(S cell, long cost, long receipt, Clock clock);

    /**
     * Tells whether the cell is equal to a fresh one: dropping it would change no future decision.
     *
     * @param cell the key's state
     * @param now the clock reading, nanoseconds
     * @return {@code true} if the cell may be evicted without loss
     */
    public abstract boolean isFresh(S cell, long now);

    /**
     * Atomically retires the cell if it is fresh, so that no acquisition can slip in between the
     * check and the removal.
     *
     * @param cell the key's state
     * @param now the clock reading, nanoseconds
     * @return {@code true} if the cell is now retired
     */
    public abstract boolean retireIfFresh(S cell, long now);

    /**
     * Retires the cell whatever its state: used at the registry's hard bound on keys, where a
     * key's history is forgotten (see the registry's documentation).
     *
     * @param cell the key's state
     * @return {@code true} if this call retired the cell
     */
    public boolean retire(S cell) {
        long w;
        do {
            w = cell.word();
            if (w == Cell.RETIRED) {
                return false;
            }
        } while (!cell.casWord(w, Cell.RETIRED));
        return true;
    }

    // ---- memory ---------------------------------------------------------------------------------

    /**
     * Returns the most heap that one key's state can retain, in bytes: the {@link Cell} returned by
     * {@link #newCell} and everything it references (a ring, a log), at any point of its life. It
     * excludes what a store adds per key (its map entry and the key itself; the in-memory registry
     * documents and adds both when it checks its memory budget).
     *
     * <p>Sizes are those of a 64-bit HotSpot JVM with compressed references and class pointers
     * (the default for heaps below 32 GB): a 12-byte object header, 4-byte references, objects
     * aligned to 8 bytes. Without compressed references objects are up to about a third larger.
     * Implementations compute the figure from their cell's fields with {@link #objectBytes} and
     * {@link #longArrayBytes}; a test measures it against the retained heap of many cells.
     *
     * @return bytes, {@code > 0}; the same value for every key of this algorithm
     */
    public abstract long bytesPerKey();

    /**
     * Returns the heap size of one object with the given fields, including those it inherits, as
     * laid out by HotSpot with compressed references: {@code 12 + 8 * longs + 4 * (ints + refs)}
     * rounded up to a multiple of 8.
     *
     * @param longs fields of type {@code long} (or {@code double})
     * @param ints fields of type {@code int} or {@code float}; a narrower field may be counted as
     *     one, which over-estimates by at most its padding
     * @param refs reference fields
     * @return bytes
     */
    protected static long objectBytes(int longs, int ints, int refs) {
        return align(12L + 8L * longs + 4L * ints + 4L * refs);
    }

    /**
     * Returns the heap size of a {@code long[]} of {@code length} elements: a 16-byte header plus
     * the elements.
     *
     * @param length the array's length, {@code >= 0}
     * @return bytes
     */
    protected static long longArrayBytes(long length) {
        return align(16L + 8L * length);
    }

    private static long align(long bytes) {
        return (bytes + 7) & ~7L;
    }
}
