package io.github.sluice.adaptive;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Names;
import io.github.sluice.internal.Units;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A concurrency limit that finds the server's capacity by itself: like
 * {@link io.github.sluice.algorithm.Concurrency}, a request holds permits from its admission to
 * its end, but the most permits a key may hold, its <em>limit</em>, moves between {@code min}
 * and {@code max} with what the requests that end tell: how long they took, and whether they
 * were dropped (a timeout, or a status such as 503 from downstream that the user declared a
 * drop). The subclasses are the rules that move it: {@link Aimd}, {@link Gradient},
 * {@link Vegas} and {@link Bbr}.
 *
 * <h2>Admission</h2>
 * A request of {@code cost} permits is admitted while the permits in flight plus {@code cost}
 * do not exceed the current limit. The limit and the permits in flight share one word, so an
 * admission is one compare-and-set against the limit it read: the limit is never exceeded, even
 * while it moves, except by a partition's guarantee (below). A cost above {@code max} is never
 * admitted ({@link Decision#NEVER}). Decisions report the current limit as {@code limit} (the
 * {@code q} of the RateLimit header field), the permits left under it as {@code remaining}, and
 * no reset; a refusal's retry-after is a nominal {@value #RETRY_AFTER_MILLIS} ms, since when
 * another request ends cannot be predicted.
 *
 * <h2>Samples</h2>
 * Each admission's {@linkplain MutableDecision#receipt() receipt} holds its clock reading (and
 * its partition). {@link #release(AdaptiveCell, long, long, long, boolean)} with that receipt
 * gives the permits back and feeds one sample: the time from admission to release, on the
 * store's clock, and the dropped flag. Samples are added to the key's current batch with atomic
 * additions; the limit is recomputed from a batch when it holds {@code samples} samples, or when
 * {@code window} has passed since the last recomputation and it holds at least one, by
 * whichever thread wins the cell's compare-and-set flag. The others never wait: they add their
 * sample and go. A batch carries its count, its drops, the mean and standard error of its
 * latencies and the most permits in flight its releases saw; the rules move the limit once per
 * batch. When the limit changes, the samples of requests admitted before the change are left
 * out of the next batches: they tell of the old limit, and counting them would move the limit
 * twice for one cause. So a batch lasts at least a round trip when the limit moves, like a
 * TCP window. A sample that races with a recomputation is counted in the next batch; none is
 * counted twice. A release without
 * a receipt (the older {@link #release(AdaptiveCell, long, long)}) frees the permits and teaches
 * nothing. A {@linkplain #refund refund} undoes an admission that never ran and teaches
 * nothing either.
 *
 * <h2>Partitions</h2>
 * As in Netflix's concurrency-limits, classes of requests (by header, principal, ...) can be
 * guaranteed a share of the limit: a partition with share {@code s} is admitted while it holds
 * fewer than {@code ceil(s * limit)} permits (at least one if {@code s > 0}), <em>whatever the
 * others hold</em>; beyond its share, a partition borrows: it is admitted while the total stays
 * within the limit. Requests of no partition only borrow. So an idle partition's share serves
 * the others, and when it comes back it is admitted at once, while the borrowers are refused
 * until the total is under the limit again: the total may exceed the limit by at most the
 * guaranteed shares not in use when the borrowing began (at most the limit itself, since the
 * shares add up to at most 1), for about the duration of the borrowers' requests.
 *
 * <h2>Quiet keys are forgotten</h2>
 * A key with nothing in flight whose last request ended {@code idle} ago (to a sixteenth of it)
 * or more starts again: its next admission decides with the initial limit and its estimator
 * starts afresh, exactly as a key never seen. A learned limit reflects the conditions of its
 * time; after a long silence they are not known to hold. That makes such a key
 * {@linkplain #isFresh fresh}: the registry may drop it without changing any decision. A key
 * with permits in flight is never fresh, so the registry never drops it and a release always
 * finds the permits it gives back.
 *
 * <h2>Locality</h2>
 * Each instance measures its own latency, so the state of an adaptive limit is local to the
 * instance (and to its in-memory registry), also when the other policies use a shared store.
 *
 * <p>Immutable and thread-safe. Admissions and releases take no lock and allocate nothing; a
 * recomputation takes no lock, allocates nothing, and runs at most once per batch. The limit is
 * computed in floating point (it is an estimate); admission compares whole numbers.
 *
 * @param <C> the type of per-key state
 */
public abstract sealed class AdaptiveLimit<C extends AdaptiveCell> extends Algorithm<C>
        permits Aimd, Gradient, Vegas, Bbr {

    /** The largest limit: one billion permits. */
    public static final long MAX_LIMIT = 1_000_000_000L;
    /** The most partitions an algorithm may have. */
    public static final int MAX_PARTITIONS = 15;
    /** The retry-after of a refusal, in milliseconds. */
    public static final long RETRY_AFTER_MILLIS = 1000;
    /** The default smallest limit. */
    public static final long DEFAULT_MIN = 5;
    /** The default largest limit. */
    public static final long DEFAULT_MAX = 1000;
    /** The default initial limit. */
    public static final long DEFAULT_INITIAL = 20;
    /** The default number of samples that make a batch. */
    public static final int DEFAULT_SAMPLES = 32;
    /** The default longest time between two recomputations of a key with samples: one second. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(1);
    /** The default quiet period after which a key starts again: one minute. */
    public static final Duration DEFAULT_IDLE = Duration.ofMinutes(1);

    private static final long RETRY_AFTER_NANOS = RETRY_AFTER_MILLIS * 1_000_000L;
    private static final long PPM = 1_000_000L;
    /** Receipts: the partition (plus one) in the low bits, nanoseconds since the cell's origin above. */
    private static final int PARTITION_BITS = 4;
    private static final long PARTITION_MASK = (1L << PARTITION_BITS) - 1;
    private static final long MAX_ELAPSED = (1L << (63 - PARTITION_BITS)) - 1;

    final long min;
    final long max;
    final long initial;
    final long samples;
    final long window;
    final long idle;
    /** The granularity of {@link AdaptiveCell#active}. */
    private final long grain;
    private final String[] partitionNames;
    /** Each partition's share, in millionths of the limit. */
    private final long[] shares;

    AdaptiveLimit(Builder<?, ?> b) {
        this.min = b.min;
        this.max = b.max;
        this.initial = b.initial;
        this.samples = b.samples;
        this.window = b.window;
        this.idle = b.idle;
        this.grain = Math.max(1, b.idle / 16);
        this.partitionNames = b.names.toArray(new String[0]);
        this.shares = b.shares.stream().mapToLong(Long::longValue).toArray();
    }

    // ---- configuration ------------------------------------------------------------------------

    /** @return the name of the rule in the policy language, e.g. {@code gradient} */
    public abstract String rule();

    /** @return {@code adaptive} followed by the rule, e.g. {@code adaptive gradient} */
    @Override
    public final String kind() {
        return "adaptive " + rule();
    }

    /**
     * Returns the largest limit, {@code max}: the most a key may ever hold, and an upper bound of
     * every decision's {@code limit}. The current limit of a key is in each of its decisions.
     *
     * @return {@code max}
     */
    @Override
    public final long limit() {
        return max;
    }

    /** @return 0: a concurrency limit has no window */
    @Override
    public final long windowNanos() {
        return 0;
    }

    /** @return {@code true}: permits are held while a request runs and handed back by release */
    @Override
    public final boolean concurrency() {
        return true;
    }

    /** @return the smallest limit */
    public final long min() {
        return min;
    }

    /** @return the largest limit */
    public final long max() {
        return max;
    }

    /** @return the limit of a key seen for the first time (or forgotten) */
    public final long initial() {
        return initial;
    }

    /** @return the number of samples after which the limit is recomputed */
    public final long samples() {
        return samples;
    }

    /** @return the longest time between two recomputations of a key with samples, nanoseconds */
    public final long batchWindowNanos() {
        return window;
    }

    /** @return the quiet period after which a key starts again, nanoseconds */
    public final long idleNanos() {
        return idle;
    }

    /** @return the number of partitions, 0 for none */
    public final int partitions() {
        return partitionNames.length;
    }

    /**
     * Returns the index of a partition, for {@link #acquire(AdaptiveCell, long, long, int,
     * MutableDecision)} and the stores' partition-aware acquisitions.
     *
     * @param name a partition's name, or {@code null}
     * @return its index, or {@link Algorithm#NO_PARTITION} if no partition has that name
     */
    public final int partition(String name) {
        for (int i = 0; i < partitionNames.length; i++) {
            if (partitionNames[i].equals(name)) {
                return i;
            }
        }
        return NO_PARTITION;
    }

    /**
     * @param partition an index into the partitions
     * @return the partition's name
     * @throws IndexOutOfBoundsException if there is no such partition
     */
    public final String partitionName(int partition) {
        return partitionNames[partition];
    }

    /**
     * @param partition an index into the partitions
     * @return the partition's guaranteed share of the limit, between 0 and 1
     * @throws IndexOutOfBoundsException if there is no such partition
     */
    public final double partitionShare(int partition) {
        return shares[partition] / (double) PPM;
    }

    /**
     * Returns the permits a partition is guaranteed under a given limit.
     *
     * @param limit the current limit
     * @param partition an index into the partitions
     * @return {@code ceil(share * limit)}, at least 1 for a positive share
     * @throws IndexOutOfBoundsException if there is no such partition
     */
    public final long guaranteed(long limit, int partition) {
        long share = shares[partition];
        if (share == 0) {
            return 0;
        }
        return Math.max(1, (limit * share + PPM - 1) / PPM);
    }

    // ---- hooks of the rules -------------------------------------------------------------------

    /** Creates a cell holding the initial limit; its estimator is set by {@link #reset}. */
    abstract C create(long now, long word, int partitions);

    /** Puts the estimator back to its initial state (under the cell's flag, or before publication). */
    void reset(C cell, long now) {
        cell.estimate = initial;
        cell.reference = 0;
        cell.counter = 0;
        cell.mark = 0;
        cell.lastRtt = 0;
        cell.spread = 0;
        cell.saved = 0;
    }

    /**
     * Recomputes {@link AdaptiveCell#estimate} from a batch, under the cell's flag.
     *
     * @param n the batch's samples, {@code >= 1}
     * @param drops how many of them were drops
     * @param meanRtt the mean latency of those that were not, nanoseconds, or -1 if all were
     * @param peak the most permits in flight seen by the batch's releases
     */
    abstract void update(C cell, long now, long n, long drops, long meanRtt, long peak);

    /** Whether a sample counts as a drop: the caller's flag, for most rules. */
    boolean drop(long rtt, boolean dropped) {
        return dropped;
    }

    /** The limit an admission is checked against, given the key's current limit. */
    long admissionLimit(C cell, long limit, long now) {
        return limit;
    }

    /**
     * Told of a refusal by the limit (not of a cost above max), with the permits then in flight.
     * A refusal does not write, but for a coarse stamp.
     */
    void refused(C cell, long now, long inFlight) {
    }

    /**
     * Feeds one sample. The default adds it to the batch, unless the request was admitted before
     * the limit last changed, and recomputes when the batch is due.
     */
    void sample(C cell, long now, long admitted, long rtt, boolean dropped, long inFlight) {
        if (admitted < cell.epoch) {
            return;
        }
        long n = cell.addSample(rtt, drop(rtt, dropped), inFlight);
        if (n >= samples || now - cell.due >= 0) {
            recompute(cell, now);
        }
    }

    // ---- decisions ----------------------------------------------------------------------------

    @Override
    public final C newCell(long now) {
        C cell = create(now, AdaptiveCell.word(initial, 0), partitionNames.length);
        cell.due = now + window;
        cell.epoch = now;
        reset(cell, now);
        return cell;
    }

    /** Decides a request of no partition (see {@link #acquire(AdaptiveCell, long, long, int, MutableDecision)}). */
    @Override
    public final int acquire(C cell, long now, long cost, MutableDecision out) {
        return acquire(cell, now, cost, NO_PARTITION, out);
    }

    /** Decides like {@link #acquire(AdaptiveCell, long, long, int, MutableDecision)}: never waits. */
    @Override
    public final int acquireOrWait(C cell, long now, Clock clock, long cost, int partition,
            MutableDecision out) {
        return acquire(cell, now, cost, partition, out);
    }

    /**
     * Decides one request of {@code cost} permits for a partition (see the class documentation).
     * A cost of zero is a peek: it reports the state and never writes.
     *
     * @param cell the key's state
     * @param now the clock reading, nanoseconds, read once per decision
     * @param cost permits requested, {@code >= 0}
     * @param partition an index into the partitions, or {@link Algorithm#NO_PARTITION} (any value
     *     outside them means none)
     * @param out where to write the decision and the receipt that
     *     {@link #release(AdaptiveCell, long, long, long, boolean)} needs, or {@code null}
     * @return {@link #ADMITTED}, {@link #DENIED} or {@link #RETIRED}
     */
    public final int acquire(C cell, long now, long cost, int partition, MutableDecision out) {
        int p = partition >= 0 && partition < shares.length ? partition : NO_PARTITION;
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED) {
                return RETIRED;
            }
            long inFlight = AdaptiveCell.inFlightOf(w);
            boolean forget = inFlight == 0 && forgettable(cell, now);
            long allowed = admissionLimit(cell, forget ? initial : AdaptiveCell.limitOf(w), now);
            if (cost == 0 || cost > max) {
                if (out != null) {
                    if (cost == 0) {
                        out.allow(allowed, allowed - inFlight, 0);
                    } else {
                        out.deny(allowed, allowed - inFlight, 0, Decision.NEVER);
                    }
                }
                return cost == 0 ? ADMITTED : DENIED;
            }
            if (p != NO_PARTITION) {
                long held = (long) AdaptiveCell.BUSY.getVolatile(cell.busy, p);
                if (held + cost <= guaranteed(allowed, p)) {
                    // Within the partition's share: admitted whatever the others hold.
                    if (!AdaptiveCell.BUSY.compareAndSet(cell.busy, p, held, held + cost)) {
                        continue;
                    }
                    return admitGuaranteed(cell, now, cost, p, out);
                }
            }
            if (inFlight + cost > allowed) {
                if (out != null) {
                    out.deny(allowed, allowed - inFlight, 0, RETRY_AFTER_NANOS);
                }
                refused(cell, now, inFlight);
                return DENIED;
            }
            if (cell.casWord(w, forget ? forgotten(cost) : w + cost)) {
                if (p != NO_PARTITION) {
                    AdaptiveCell.BUSY.getAndAdd(cell.busy, p, cost);
                }
                if (forget) {
                    startAgain(cell, now);
                }
                if (out != null) {
                    out.allow(allowed, allowed - inFlight - cost, 0).receipt(receipt(cell, now, p));
                }
                return ADMITTED;
            }
        }
    }

    /** Adds the permits a partition took within its share to the total, whatever the total. */
    private int admitGuaranteed(C cell, long now, long cost, int p, MutableDecision out) {
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED) {
                AdaptiveCell.BUSY.getAndAdd(cell.busy, p, -cost);
                return RETIRED;
            }
            long inFlight = AdaptiveCell.inFlightOf(w);
            boolean forget = inFlight == 0 && forgettable(cell, now);
            if (cell.casWord(w, forget ? forgotten(cost) : w + cost)) {
                if (forget) {
                    startAgain(cell, now);
                }
                if (out != null) {
                    long allowed = admissionLimit(cell, forget ? initial : AdaptiveCell.limitOf(w), now);
                    out.allow(allowed, allowed - inFlight - cost, 0).receipt(receipt(cell, now, p));
                }
                return ADMITTED;
            }
        }
    }

    private boolean forgettable(C cell, long now) {
        long active = cell.active;
        return active != AdaptiveCell.NEVER && now - active >= idle;
    }

    private long forgotten(long cost) {
        return AdaptiveCell.FORGOTTEN | AdaptiveCell.word(initial, cost);
    }

    /**
     * After the admission that made a quiet key start again: the samples of its past batch are
     * stale, so they go (a request admitted after this one and already ended could lose its
     * sample here, if this thread was descheduled for that whole request: a sample, never a
     * permit); the estimator is reset by the next recomputation, which sees the word's mark.
     */
    private void startAgain(C cell, long now) {
        cell.takeSamples();
        cell.takeRttSum();
        cell.takePeak();
        cell.due = now + window;
        cell.epoch = now;
    }

    private static long receipt(AdaptiveCell cell, long now, int partition) {
        long elapsed = Math.min(MAX_ELAPSED, Math.max(0, now - cell.origin));
        return (elapsed << PARTITION_BITS) | (partition + 1);
    }

    // ---- releases -----------------------------------------------------------------------------

    /**
     * Releases without a sample: {@code release(cell, now, cost, NO_RECEIPT, false)}. The permits
     * are given back to the total; a partition's count is not, since only the receipt names it.
     */
    @Override
    public final long release(C cell, long now, long cost) {
        return release(cell, now, cost, MutableDecision.NO_RECEIPT, false);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Gives {@code cost} permits back to the key (and to the partition the receipt names),
     * never below zero (returning the permits it found no match for), then feeds the sample: latency {@code now} minus the admission's reading.
     * A receipt of another key or algorithm gives a meaningless sample; a reading earlier than
     * the admission's gives none.
     */
    @Override
    public final long release(C cell, long now, long cost, long receipt, boolean dropped) {
        if (cost <= 0) {
            return 0;
        }
        // Before the permits go: a key whose count reaches zero has just been active, so it is not
        // forgotten, nor dropped by the registry, under this very release.
        long active = cell.active;
        if (active == AdaptiveCell.NEVER || now - active >= grain) {
            cell.active = now;
        }
        long inFlight = giveBack(cell, cost, receipt);
        if (inFlight > 0 && receipt >= 0) {
            long admitted = cell.origin + (receipt >>> PARTITION_BITS);
            long rtt = now - admitted;
            if (rtt >= 0) {
                sample(cell, now, admitted, rtt, dropped, inFlight);
            }
        }
        return Math.max(0, cost - inFlight); // the permits the key did not hold
    }

    /**
     * {@inheritDoc}
     *
     * <p>Permits in flight are interchangeable, so the refund of an admission is its release,
     * without a sample: a request that never ran says nothing of the server.
     */
    @Override
    public final void refund(C cell, long cost, long receipt, Clock clock) {
        if (cost > 0) {
            giveBack(cell, cost, receipt);
        }
    }

    /** Takes {@code cost} off the partition and the total; returns the total before, 0 if none. */
    private long giveBack(C cell, long cost, long receipt) {
        if (receipt >= 0 && cell.busy != null) {
            int p = (int) (receipt & PARTITION_MASK) - 1;
            if (p >= 0 && p < cell.busy.length) {
                long held;
                do {
                    held = (long) AdaptiveCell.BUSY.getVolatile(cell.busy, p);
                } while (held > 0
                        && !AdaptiveCell.BUSY.compareAndSet(cell.busy, p, held, held - Math.min(cost, held)));
            }
        }
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED) {
                return 0;
            }
            long inFlight = AdaptiveCell.inFlightOf(w);
            if (inFlight == 0) {
                return 0;
            }
            if (cell.casWord(w, w - Math.min(cost, inFlight))) {
                return inFlight;
            }
        }
    }

    /** Recomputes the limit from the current batch if this thread wins the cell's flag. */
    final void recompute(C cell, long now) {
        if (!cell.tryUpdate()) {
            return;
        }
        try {
            long batch = cell.takeSamples();
            long n = batch & AdaptiveCell.IN_FLIGHT_MASK;
            if (n == 0) {
                return; // another thread took it
            }
            long drops = batch >>> 32;
            long sum = cell.takeRttSum();
            long squares = cell.takeRttSquares();
            long peak = cell.takePeak();
            cell.due = now + window;
            boolean restart = (cell.word() & AdaptiveCell.FORGOTTEN) != 0;
            if (restart) {
                reset(cell, now);
            }
            long mean = n > drops ? sum / (n - drops) : -1;
            if (mean >= 0) {
                cell.lastRtt = mean;
                long k = n - drops;
                double meanMicros = sum / 1000.0 / k;
                double variance = Math.max(0, (double) squares / k - meanMicros * meanMicros);
                cell.spread = Math.sqrt(variance / k) * 1000;
            }
            long before = AdaptiveCell.limitOf(cell.word());
            update(cell, now, n, drops, mean, peak);
            long limit = limitFor(cell.estimate);
            publish(cell, limit, restart);
            if (limit != before) {
                // What requests admitted until now went through says nothing of the new limit.
                cell.epoch = now;
            }
        } finally {
            cell.doneUpdating();
        }
    }

    /** The whole limit of an estimate, within {@code [min, max]}. */
    final long limitFor(double estimate) {
        if (!(estimate >= min)) { // also NaN
            return min;
        }
        return estimate >= max ? max : (long) estimate;
    }

    /** Writes a new limit into the word, keeping the permits in flight. */
    static void publish(AdaptiveCell cell, long limit, boolean clearMark) {
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED) {
                return;
            }
            long flags = clearMark ? 0 : w & AdaptiveCell.FORGOTTEN;
            long next = flags | AdaptiveCell.word(limit, AdaptiveCell.inFlightOf(w));
            if (next == w || cell.casWord(w, next)) {
                return;
            }
        }
    }

    // ---- freshness ----------------------------------------------------------------------------

    /**
     * {@inheritDoc}
     *
     * <p>Fresh when nothing is in flight and the key has never completed a request, or its last
     * one ended {@code idle} ago or more (see "Quiet keys are forgotten").
     */
    @Override
    public final boolean isFresh(C cell, long now) {
        long w = cell.word();
        return w != Cell.RETIRED && AdaptiveCell.inFlightOf(w) == 0 && quiet(cell, now);
    }

    @Override
    public final boolean retireIfFresh(C cell, long now) {
        long w = cell.word();
        return w != Cell.RETIRED && AdaptiveCell.inFlightOf(w) == 0 && quiet(cell, now)
                && cell.retire(w);
    }

    private boolean quiet(C cell, long now) {
        long active = cell.active;
        return active == AdaptiveCell.NEVER || now - active >= idle;
    }

    // ---- memory -------------------------------------------------------------------------------

    /**
     * {@inheritDoc}
     *
     * <p>An {@link AdaptiveCell} (header, its word and 16 {@code long} or {@code double} fields, two
     * {@code int}s, the reference to the partitions' counts) is 160 bytes, plus a {@code long}
     * per partition; a rule with more state adds its own.
     */
    @Override
    public long bytesPerKey() {
        return objectBytes(17, 2, 1) + (partitionNames.length == 0 ? 0 : longArrayBytes(partitionNames.length));
    }

    // ---- identity -----------------------------------------------------------------------------

    /** Compares the settings every rule has; subclasses add theirs. */
    final boolean sameSettings(AdaptiveLimit<?> o) {
        return min == o.min && max == o.max && initial == o.initial && samples == o.samples
                && window == o.window && idle == o.idle
                && Arrays.equals(partitionNames, o.partitionNames) && Arrays.equals(shares, o.shares);
    }

    /** The hash of the settings every rule has. */
    final int settingsHash() {
        return Objects.hash(min, max, initial, samples, window, idle, Arrays.hashCode(partitionNames),
                Arrays.hashCode(shares));
    }

    /** The settings of a batch, for the {@code toString} of the rules that use batches. */
    final String batch() {
        return ", samples=" + samples + ", window=" + Units.duration(window);
    }

    /** The settings every rule has, for {@code toString}. */
    final String settings() {
        StringBuilder b = new StringBuilder().append("min=").append(min).append(", max=").append(max)
                .append(", initial=").append(initial).append(", idle=").append(Units.duration(idle));
        for (int i = 0; i < partitionNames.length; i++) {
            b.append(i == 0 ? ", partitions=" : ",").append(partitionNames[i]).append(':')
                    .append(shares[i] / 10_000.0).append('%');
        }
        return b.toString();
    }

    /**
     * The settings every adaptive limit has. Not thread-safe.
     *
     * @param <A> the algorithm built
     * @param <B> the concrete builder
     */
    public abstract static class Builder<A extends AdaptiveLimit<?>, B extends Builder<A, B>> {
        long min = DEFAULT_MIN;
        long max = DEFAULT_MAX;
        long initial = DEFAULT_INITIAL;
        private boolean initialSet;
        long samples = DEFAULT_SAMPLES;
        long window = DEFAULT_WINDOW.toNanos();
        long idle = DEFAULT_IDLE.toNanos();
        final List<String> names = new ArrayList<>();
        final List<Long> shares = new ArrayList<>();

        Builder() {
        }

        abstract B self();

        abstract A create();

        /**
         * Sets the smallest limit. Default: {@value AdaptiveLimit#DEFAULT_MIN}.
         *
         * @param min between 1 and {@value AdaptiveLimit#MAX_LIMIT}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public B min(long min) {
            this.min = Checks.between("min", min, 1, MAX_LIMIT);
            return self();
        }

        /**
         * Sets the largest limit: the most permits a key may hold at once, whatever its samples
         * say. Default: {@value AdaptiveLimit#DEFAULT_MAX}.
         *
         * @param max between 1 and {@value AdaptiveLimit#MAX_LIMIT}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public B max(long max) {
            this.max = Checks.between("max", max, 1, MAX_LIMIT);
            return self();
        }

        /**
         * Sets the limit of a key seen for the first time, or forgotten after a quiet period.
         * Default: {@value AdaptiveLimit#DEFAULT_INITIAL}, or {@code min} or {@code max} if that
         * is outside them.
         *
         * @param initial between 1 and {@value AdaptiveLimit#MAX_LIMIT}; {@link #build()} checks
         *     that it is between min and max
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public B initial(long initial) {
            this.initial = Checks.between("initial", initial, 1, MAX_LIMIT);
            this.initialSet = true;
            return self();
        }

        /** Sets the batch size, for the rules that recompute per batch. */
        final void batchSamples(long samples) {
            this.samples = Checks.between("samples", samples, 1, 1_000_000);
        }

        /** Sets the longest time between two recomputations, for the rules that recompute per batch. */
        final void batchWindow(Duration window) {
            this.window = Checks.positiveNanos("window", window);
        }

        /**
         * Sets the quiet period after which a key with nothing in flight starts again from the
         * initial limit. Default: one minute.
         *
         * @param idle {@code > 0}
         * @return this builder
         * @throws NullPointerException if {@code idle} is null
         * @throws IllegalArgumentException if not positive or too long
         */
        public B idle(Duration idle) {
            this.idle = Checks.positiveNanos("idle", idle);
            return self();
        }

        /**
         * Adds a partition: a class of requests guaranteed a share of the limit (see the class
         * documentation). Partitions are numbered in the order they are added, from 0.
         *
         * @param name the partition's name: no whitespace, '|' or control characters
         * @param share the guaranteed share of the limit, between 0 and 1; the shares of all
         *     partitions add up to at most 1
         * @return this builder
         * @throws NullPointerException if {@code name} is null
         * @throws IllegalArgumentException if the name is malformed or already used, the share is
         *     out of range, or there would be more than {@value AdaptiveLimit#MAX_PARTITIONS}
         *     partitions
         */
        public B partition(String name, double share) {
            Names.word("partition", name);
            if (names.contains(name)) {
                throw new IllegalArgumentException("partition '" + name + "' is given twice");
            }
            if (!(share >= 0 && share <= 1)) {
                throw new IllegalArgumentException("share of partition '" + name
                        + "' must be between 0 and 1 but was " + share);
            }
            if (names.size() == MAX_PARTITIONS) {
                throw new IllegalArgumentException("partitions must be at most " + MAX_PARTITIONS
                        + " but '" + name + "' would be the " + (MAX_PARTITIONS + 1) + "th");
            }
            names.add(name);
            shares.add(Math.round(share * PPM));
            return self();
        }

        /**
         * @return the algorithm
         * @throws IllegalArgumentException if min is above max, the initial limit is outside
         *     them, or the partitions' shares add up to more than 1
         */
        public A build() {
            if (min > max) {
                throw new IllegalArgumentException("min must be <= max (" + max + ") but was " + min);
            }
            if (!initialSet) {
                initial = Math.max(min, Math.min(max, DEFAULT_INITIAL));
            } else if (initial < min || initial > max) {
                throw new IllegalArgumentException("initial must be between min (" + min + ") and max ("
                        + max + ") but was " + initial);
            }
            long total = shares.stream().mapToLong(Long::longValue).sum();
            if (total > PPM) {
                throw new IllegalArgumentException("the shares of the partitions must add up to at most 1"
                        + " (100%) but add up to " + total / 10_000.0 + "% (" + names + ")");
            }
            return create();
        }
    }
}
