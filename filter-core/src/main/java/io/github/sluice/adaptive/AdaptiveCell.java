package io.github.sluice.adaptive;

import io.github.sluice.core.Cell;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One key's state under an {@link AdaptiveLimit}: the current limit and the permits in flight,
 * packed in the {@link Cell} word so that an admission is one compare-and-set against the limit
 * it read; the samples of requests that have ended, accumulated until the next recomputation;
 * the estimator that recomputes the limit; and, with partitions, the permits each partition
 * holds.
 *
 * <h2>The word</h2>
 * Bits 0 to 31 hold the permits in flight; bits 32 to 61 the current limit (at most
 * {@link AdaptiveLimit#MAX_LIMIT}); bit 62 marks a key whose learned state was forgotten after
 * a quiet period and whose estimator must start again (see {@link AdaptiveLimit}); bit 63 is
 * always clear, so the word never equals {@link Cell#RETIRED}.
 *
 * <h2>Who writes what</h2>
 * Admissions and releases change only the word (and a partition's count). Releases add their
 * sample to the accumulators with atomic additions. The estimator's fields are written only by
 * the one thread that wins the cell's recomputation flag (a compare-and-set; the others carry on
 * without waiting), and read only under it, so they need no further synchronisation. Nothing on
 * these paths takes a lock or allocates.
 *
 * <p>Thread-safe.
 */
public class AdaptiveCell extends Cell {

    static final int LIMIT_SHIFT = 32;
    static final long IN_FLIGHT_MASK = 0xFFFF_FFFFL;
    static final long LIMIT_MASK = (1L << 30) - 1;
    static final long FORGOTTEN = 1L << 62;
    /** {@link #active} of a key that has never completed a request. */
    static final long NEVER = Long.MIN_VALUE;
    /** One sample in {@link #samples}: the count is in the low half, the drops in the high. */
    static final long ONE = 1L;
    static final long ONE_DROP = 1L << 32;
    /** The largest square of one latency in {@link #rttSquares}: that of about three seconds. */
    static final long MAX_SQUARE = Long.MAX_VALUE / 1_000_000;

    private static final VarHandle SAMPLES;
    private static final VarHandle RTT_SUM;
    private static final VarHandle RTT_SQUARES;
    private static final VarHandle PEAK;
    private static final VarHandle UPDATING;
    static final VarHandle BUSY = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SAMPLES = l.findVarHandle(AdaptiveCell.class, "samples", long.class);
            RTT_SUM = l.findVarHandle(AdaptiveCell.class, "rttSum", long.class);
            RTT_SQUARES = l.findVarHandle(AdaptiveCell.class, "rttSquares", long.class);
            PEAK = l.findVarHandle(AdaptiveCell.class, "peak", long.class);
            UPDATING = l.findVarHandle(AdaptiveCell.class, "updating", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The clock reading at creation; receipts count nanoseconds from it. */
    final long origin;
    /** Permits held by each partition, or {@code null} without partitions. */
    final long[] busy;

    /** Samples of the current batch: count in bits 0-31, drops in bits 32-62. */
    private volatile long samples;
    /** Sum of the latencies of the batch's samples that were not drops, nanoseconds. */
    private volatile long rttSum;
    /**
     * Sum of the squares of those latencies, in microseconds squared, each capped at
     * {@link #MAX_SQUARE} so that a batch of a million samples cannot overflow.
     */
    private volatile long rttSquares;
    /** Most permits in flight seen by a release of the current batch. */
    private volatile long peak;
    /** Clock reading by which a batch with at least one sample is recomputed. */
    volatile long due;
    /** Clock reading of the last change of the limit: samples of requests admitted before are ignored. */
    volatile long epoch;
    /** Clock reading of the last release, to the granularity of the quiet period; or {@link #NEVER}. */
    volatile long active = NEVER;
    /** 1 while a thread recomputes the limit. */
    private volatile int updating;

    // The estimator: written and read only by the thread holding the recomputation flag, which
    // publishes them with the flag's release and acquires them with its compare-and-set.
    /** The limit as a real number, before flooring and clamping. */
    double estimate;
    /** A reference latency in nanoseconds (long-term or no-load); 0 before the first. */
    double reference;
    /** A count of samples (in the long-term average, or since the last probe). */
    long counter;
    /** A threshold on {@link #counter} (the next probe). */
    long mark;
    /**
     * The standard error of the last batch's mean latency, nanoseconds: how far that mean may
     * be from the true one by chance alone.
     */
    double spread;
    /** A limit to come back to (after a probe), or 0. */
    double saved;
    /** A pseudo-random state, for jitter that is reproducible under a fake clock. */
    long seed;
    /** The mean latency of the last batch, nanoseconds, or 0. Read without the flag: a hint. */
    volatile long lastRtt;

    /**
     * Creates a cell.
     *
     * @param word the initial word: the initial limit, nothing in flight
     * @param origin the clock reading at creation
     * @param partitions the number of partitions, 0 for none
     */
    AdaptiveCell(long word, long origin, int partitions) {
        super(word);
        this.origin = origin;
        this.busy = partitions == 0 ? null : new long[partitions];
    }

    /** @return the current limit, or 0 if the cell was retired */
    public final long limit() {
        long w = word();
        return w == RETIRED ? 0 : limitOf(w);
    }

    /** @return the permits in flight, or 0 if the cell was retired */
    public final long inFlight() {
        long w = word();
        return w == RETIRED ? 0 : inFlightOf(w);
    }

    /**
     * @param partition an index into the algorithm's partitions
     * @return the permits that partition holds
     * @throws IndexOutOfBoundsException if there is no such partition
     */
    public final long inFlight(int partition) {
        if (busy == null) {
            throw new IndexOutOfBoundsException("partition " + partition + " of none");
        }
        return (long) BUSY.getVolatile(busy, partition);
    }

    /**
     * @return the mean latency of the requests of the last recomputation, nanoseconds, or 0
     *     before the first
     */
    public final long lastLatencyNanos() {
        return lastRtt;
    }

    static long limitOf(long word) {
        return (word >>> LIMIT_SHIFT) & LIMIT_MASK;
    }

    static long inFlightOf(long word) {
        return word & IN_FLIGHT_MASK;
    }

    static long word(long limit, long inFlight) {
        return (limit << LIMIT_SHIFT) | inFlight;
    }

    // ---- samples ------------------------------------------------------------------------------

    /** Adds one sample; returns the batch's count including it. */
    final long addSample(long rtt, boolean dropped, long inFlight) {
        if (!dropped) {
            RTT_SUM.getAndAdd(this, rtt);
            long micros = rtt / 1000;
            RTT_SQUARES.getAndAdd(this, micros > 3_000_000 ? MAX_SQUARE : Math.min(MAX_SQUARE, micros * micros));
        }
        long p = peak;
        while (inFlight > p) {
            long seen = (long) PEAK.compareAndExchange(this, p, inFlight);
            if (seen == p) {
                break;
            }
            p = seen;
        }
        long s = (long) SAMPLES.getAndAdd(this, dropped ? ONE + ONE_DROP : ONE);
        return (s & IN_FLIGHT_MASK) + 1;
    }

    /** Takes the batch: count and drops packed as in {@link #samples}. */
    final long takeSamples() {
        return (long) SAMPLES.getAndSet(this, 0L);
    }

    /** Takes the batch's latency sum. */
    final long takeRttSum() {
        return (long) RTT_SUM.getAndSet(this, 0L);
    }

    /** Takes the batch's sum of squared latencies, microseconds squared. */
    final long takeRttSquares() {
        return (long) RTT_SQUARES.getAndSet(this, 0L);
    }

    /** Takes the batch's peak in flight. */
    final long takePeak() {
        return (long) PEAK.getAndSet(this, 0L);
    }

    /** @return the count of samples waiting in the current batch */
    final long pending() {
        return samples & IN_FLIGHT_MASK;
    }

    // ---- recomputation flag -------------------------------------------------------------------

    /** Tries to become the one recomputing thread; never waits. */
    final boolean tryUpdate() {
        return updating == 0 && UPDATING.compareAndSet(this, 0, 1);
    }

    /** Ends a recomputation begun by a successful {@link #tryUpdate()}. */
    final void doneUpdating() {
        updating = 0;
    }
}
