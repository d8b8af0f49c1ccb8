package io.github.sluice.http;

import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.KeySpace;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one policy decided, counted since its {@link EnforcerMetrics} first saw it: the live
 * counters behind the Micrometer meters and the JMX attributes.
 *
 * <h2>What is counted</h2>
 * Each request a policy decided counts once, under the outcome the enforcer reported for that
 * policy ({@link EnforcementListener}): {@linkplain #allowed() allowed}, {@linkplain #shaped()
 * shaped} or {@linkplain #denied() denied}. After another policy refused the request, the policies
 * that admitted it gave their permits back and are not counted: the request counts as one denial,
 * by the policies that refused it. A {@linkplain Policy#dryRun() dry-run} policy counts in the
 * same counters, so that its numbers show what enforcing it would do: its denials are requests
 * that <em>would</em> have been refused ({@link #dryRun()} tells them apart), its shaped requests
 * were not delayed and do not enter the {@linkplain #shapingDelayNanos() shaping delay}.
 *
 * <p>Denials are also counted by the HTTP status the refusal carries ({@link #denied(int)}): the
 * policy's own status, or the status a degraded shared store asked for instead (e.g. 503 while
 * Redis is down and the store fails closed). At most {@value #STATUS_SLOTS} distinct statuses are
 * kept apart per policy; later ones count under status {@code 0} ("other").
 *
 * <p>For a concurrency policy, {@link #inFlight()} is the requests holding its permits: those it
 * admitted minus those {@linkplain #released() released}. It counts requests, not permits (equal
 * for the default cost of 1). The admissions and the requests in flight of a concurrency policy
 * share one {@link AtomicLong}, so that a read of both is one instant's exact pair, and counting a
 * request in or out is one atomic addition each: {@link #inFlight()} and {@link #released()} are
 * exact, {@link #allowed()} too unless the policy also shapes (a {@code max-wait}).
 *
 * <p>For an adaptive policy with one key for the instance ({@code key=global}),
 * {@link #adaptiveLimit()} is its current limit and {@link #adaptivePartitionLimit(String)} each
 * partition's guaranteed share of it: gauges read from the key's state when asked, costing the
 * request path nothing.
 *
 * <h2>Cost and thread-safety</h2>
 * The other counters are {@link LongAdder}s created with the policy, so recording takes no lock and
 * allocates nothing (a contended adder grows its cells once). Reads are sums: exact when the
 * policy is quiet, and under traffic a value between those at the start and the end of the read.
 * Thread-safe.
 */
public final class PolicyMetrics {

    /**
     * The upper bounds of the shaping delay's buckets, in nanoseconds: 1 ms to 10 s, as
     * Prometheus' default latency buckets ({@link #shapingDelays(int)}).
     */
    private static final long[] SHAPING_BOUNDS = {1_000_000L, 2_500_000L, 5_000_000L, 10_000_000L, 25_000_000L,
        50_000_000L, 100_000_000L, 250_000_000L, 500_000_000L, 1_000_000_000L, 2_500_000_000L, 5_000_000_000L,
        10_000_000_000L};

    /** Distinct denial statuses kept apart per policy; the rest count under status 0. */
    public static final int STATUS_SLOTS = 4;

    private final String name;
    private final Policy policy;
    /** The version in force, for readers; the request path records by {@link #policy} (see {@link #inForce}). */
    private volatile Policy current;
    private volatile KeySpace space;
    private final LongAdder allowed = new LongAdder();
    private final LongAdder shaped = new LongAdder();
    private final LongAdder refunds = new LongAdder();
    private final LongAdder unmatchedReleases = new LongAdder();
    private final LongAdder overrideFallbacks = new LongAdder();
    /*
     * A concurrency policy's admissions (allowed and shaped) in the high ADMITTED_BITS bits of one
     * word and its requests in flight in the low IN_FLIGHT_BITS: one atomic addition counts a
     * request in and one counts it out, and one read gives both at one instant. Not two adders
     * read one after the other, where a reader preempted between the sums would see every
     * admission since the first read and none of their releases; and not an exact word beside the
     * adders, which cost two more atomic updates per request. The released count is their
     * difference. 2^24 - 1 requests in flight at once, across all of the policy's keys, is far
     * more than one process can hold (each is an open request). Every 2^39 admissions the
     * admission that fills half the field moves 2^39 of them out, to admittedMoved, between two
     * steps of movesBegunAndEnded, so that a reader sees the word and the moved count agree.
     */
    private static final int IN_FLIGHT_BITS = 24;
    private static final int ADMITTED_BITS = Long.SIZE - IN_FLIGHT_BITS;
    private static final long IN_FLIGHT_MASK = (1L << IN_FLIGHT_BITS) - 1;
    /** Admissions moved out of the word at once: half its field. */
    private static final long MOVE = 1L << (ADMITTED_BITS - 1);
    /** One admission: the admissions field and the in-flight field, each plus one. */
    private static final long COUNT_IN = (1L << IN_FLIGHT_BITS) + 1;
    private final AtomicLong admittedInFlight = new AtomicLong();
    /** Admissions moved out of the word (a multiple of MOVE); only a concurrency policy's. */
    private final AtomicLong admittedMoved = new AtomicLong();
    /** Odd while admissions move out of the word: a seqlock for readers, taken once in 2^39 admissions. */
    private final java.util.concurrent.atomic.AtomicInteger movesBegunAndEnded = new java.util.concurrent.atomic.AtomicInteger();
    /** Run in the middle of a move, for the tests of the readers' seqlock; {@code null} otherwise. */
    volatile Runnable duringMove;
    /**
     * Admissions a concurrency version of the policy shaped (it waited, {@code max-wait}): counted in
     * the word, and in {@link #shaped()}, so taken out of {@link #allowed()}.
     */
    private final LongAdder shapedHolding = new LongAdder();
    private final LongAdder shapingDelayNanos = new LongAdder();
    private final LongAdder idleEvictions = new LongAdder();
    private final LongAdder degraded = new LongAdder();
    /** Shaped requests by delay: bucket i counts delays in (bound i-1, bound i]; the last, those above every bound. */
    private final LongAdder[] shapingBuckets = new LongAdder[SHAPING_BOUNDS.length + 1];
    private final LongAdder boundEvictions = new LongAdder();
    /** Status of each slot, 0 while free; slot 0 is the policy's own status. */
    private final AtomicIntegerArray statuses = new AtomicIntegerArray(STATUS_SLOTS + 1);
    private final LongAdder[] deniedByStatus = new LongAdder[STATUS_SLOTS + 1];
    private final EnforcerMetrics owner;
    /** The heaviest refused clients, or {@code null} when not kept (then counting them costs a null test). */
    private final TopClients deniedTop;
    /** The heaviest admitted clients, or {@code null} when not kept. */
    private final TopClients admittedTop;

    PolicyMetrics(EnforcerMetrics owner, Policy policy) {
        this.owner = owner;
        this.deniedTop = owner.topClients() == 0 ? null
                : new TopClients(policy.name(), TopClients.By.DENIED, owner.topClients(), owner.clock());
        this.admittedTop = owner.topClients() == 0 || !owner.topClientsAdmitted() ? null
                : new TopClients(policy.name(), TopClients.By.ADMITTED, owner.topClients(), owner.clock());
        this.name = policy.name();
        this.policy = policy;
        this.current = policy;
        for (int i = 0; i < deniedByStatus.length; i++) {
            deniedByStatus[i] = new LongAdder();
        }
        for (int i = 0; i < shapingBuckets.length; i++) {
            shapingBuckets[i] = new LongAdder();
        }
        statuses.set(0, policy.status());
    }

    void space(KeySpace space) {
        this.space = space;
    }

    /** Records the version of the policy now in force under this name (a change at run time). */
    void inForce(Policy policy) {
        this.current = policy;
    }

    /**
     * @param version the version of the policy that admitted the request: a concurrency limit's
     *     admission is counted in flight until its release, whatever the policy has become since
     */
    void recordAllowed(Policy version) {
        if (version.concurrency()) {
            countIn();
        } else {
            allowed.increment();
        }
    }

    /** Counts an admission of a concurrency policy: in its admissions and in flight, one atomic addition. */
    private void countIn() {
        if ((admittedInFlight.getAndAdd(COUNT_IN) >>> IN_FLIGHT_BITS) == MOVE - 1) {
            moveAdmissions(); // exactly one admission fills half the field: each adds one to it
        }
    }

    /**
     * Starts a concurrency policy's admissions at {@code admitted}, nothing in flight, as if that
     * many requests had come and gone: for tests of the move out of the word, which the request
     * path reaches after 2^39 admissions. Call it before any request is counted.
     */
    void startAdmissionsAt(long admitted) {
        long moved = admitted / MOVE * MOVE;
        admittedMoved.set(moved);
        admittedInFlight.set((admitted - moved) << IN_FLIGHT_BITS);
    }

    /** @return the admissions the word itself holds now, the moved ones not included (for tests) */
    long admittedInWord() {
        return admittedInFlight.get() >>> IN_FLIGHT_BITS;
    }

    /** Moves {@link #MOVE} admissions out of the word, which other admissions keep adding to meanwhile. */
    private void moveAdmissions() {
        movesBegunAndEnded.incrementAndGet();
        admittedInFlight.getAndAdd(-(MOVE << IN_FLIGHT_BITS)); // clears the field's top bit (2^63: modulo 2^64)
        Runnable hook = duringMove;
        if (hook != null) {
            hook.run();
        }
        admittedMoved.addAndGet(MOVE);
        movesBegunAndEnded.incrementAndGet();
    }

    void recordShaped(MutableDecision d, Policy version) {
        shaped.increment();
        if (!policy.dryRun()) {
            long delay = d.delayNanos();
            shapingDelayNanos.add(delay);
            int b = 0;
            while (b < SHAPING_BOUNDS.length && delay > SHAPING_BOUNDS[b]) {
                b++;
            }
            shapingBuckets[b].increment();
        }
        if (version.concurrency()) {
            shapedHolding.increment();
            countIn();
        }
    }

    void recordDenied(MutableDecision d) {
        // Counted once, under its status: denied() is the sum over the statuses, so that a denial
        // costs one increment, as an admission does.
        int status = d.degraded() && d.denialStatus() != 0 ? d.denialStatus() : policy.status();
        deniedByStatus[slot(status)].increment();
    }

    /** Counts a decision a degraded shared store's failure policy made, whatever its outcome. */
    void recordDegraded(MutableDecision d) {
        if (d.degraded()) {
            degraded.increment();
        }
    }

    /**
     * Counts a refused request's key among the heavy hitters, if they are kept, in the minute of
     * the decision: the store's reading of it when the decision is an enforcer's entry whose store
     * reads the metrics' clock, else a reading taken now.
     */
    void recordDeniedKey(String key, MutableDecision decision) {
        TopClients top = deniedTop;
        if (top != null) {
            top.record(key, readingOf(decision));
        }
    }

    /** Counts an admitted request's key among the heavy hitters, if they are kept; as above. */
    void recordAdmittedKey(String key, MutableDecision decision) {
        TopClients top = admittedTop;
        if (top != null) {
            top.record(key, readingOf(decision));
        }
    }

    /** The reading of the metrics' clock {@code decision} was taken at, or {@link MutableDecision#NO_READING}. */
    private long readingOf(MutableDecision decision) {
        return decision instanceof Verdict.Entry e ? e.nanosFor(owner.clock()) : MutableDecision.NO_READING;
    }

    /**
     * Counts out a request a concurrency version of the policy admitted (only those are released),
     * so that the word's in-flight field never goes below zero nor grows without bound when the
     * policy changes algorithm at run time.
     */
    void recordReleased() {
        // Out of flight: released is admitted minus in flight. A release with nothing in flight
        // (a listener event without its admission) would borrow from the admissions: undone.
        if ((admittedInFlight.getAndDecrement() & IN_FLIGHT_MASK) == 0) {
            admittedInFlight.getAndIncrement();
        }
    }

    void recordRefunded() {
        refunds.increment();
    }

    void recordUnmatchedRelease() {
        unmatchedReleases.increment();
    }

    void recordEvicted(boolean lossless) {
        (lossless ? idleEvictions : boundEvictions).increment();
    }

    /** The slot counting {@code status}, claiming a free one the first time a status is seen. */
    private int slot(int status) {
        for (int i = 0; i < STATUS_SLOTS; i++) {
            int s = statuses.get(i);
            if (s == status) {
                return i;
            }
            if (s == 0) {
                if (statuses.compareAndSet(i, 0, status)) {
                    owner.statusAdded(this, status);
                    return i;
                }
                if (statuses.get(i) == status) {
                    return i; // another thread claimed this slot for the same status
                }
            }
        }
        return STATUS_SLOTS;
    }

    /** @return the policy's name */
    public String name() {
        return name;
    }

    /**
     * @return the policy as configured, in the version last put in force under this name: after a
     *     change at run time ({@code Enforcer.reconfigure}), the new version; after a removal, the
     *     last version in force
     */
    public Policy policy() {
        return current;
    }

    /** @return {@code true} if the policy (the version in force) is dry-run: its denials refuse nothing */
    public boolean dryRun() {
        return current.dryRun();
    }

    /** @return {@code true} for a policy with {@code override=}, whose {@link #overrideFallbacks()} is meaningful */
    public boolean overrides() {
        return policy.plans() != null && policy.plans().override() != null;
    }

    /** @return {@code true} for a concurrency policy, whose {@link #inFlight()} is meaningful */
    public boolean concurrency() {
        return policy.concurrency();
    }

    /**
     * Returns the requests the policy admitted at once. For a concurrency policy that also shapes
     * (a {@code max-wait}), the requests it shaped are subtracted from its admissions: under
     * traffic, the read may then be off by those shaped while it reads; exact when quiet.
     *
     * @return requests the policy admitted at once
     */
    public long allowed() {
        return allowed.sum() + admitted(false) - shapedHolding.sum();
    }

    /**
     * A concurrency policy's admissions, wholly counted in one instant: the word and the moved
     * count read while no move was under way (see {@link #moveAdmissions}).
     *
     * @param minusInFlight whether to subtract the requests in flight at that instant (the released count)
     */
    private long admitted(boolean minusInFlight) {
        while (true) {
            int moves = movesBegunAndEnded.get();
            long word = admittedInFlight.get();
            long moved = admittedMoved.get();
            if ((moves & 1) == 0 && movesBegunAndEnded.get() == moves) {
                long admitted = moved + (word >>> IN_FLIGHT_BITS);
                return minusInFlight ? admitted - (word & IN_FLIGHT_MASK) : admitted;
            }
            Thread.onSpinWait();
        }
    }

    /** @return requests the policy admitted after a delay (for a dry-run policy: without one) */
    public long shaped() {
        return shaped.sum();
    }

    /** @return requests the policy refused (for a dry-run policy: would have refused) */
    public long denied() {
        long sum = 0;
        for (LongAdder byStatus : deniedByStatus) {
            sum += byStatus.sum();
        }
        return sum;
    }

    /**
     * Returns the denials that carried one HTTP status.
     *
     * @param status an HTTP status, or {@code 0} for the statuses past the first {@value #STATUS_SLOTS}
     * @return the denials counted under that status; {@code 0} for a status never seen
     */
    public long denied(int status) {
        if (status == 0) {
            return deniedByStatus[STATUS_SLOTS].sum();
        }
        for (int i = 0; i < STATUS_SLOTS; i++) {
            if (statuses.get(i) == status) {
                return deniedByStatus[i].sum();
            }
        }
        return 0;
    }

    /**
     * Returns the statuses denials were counted under: the policy's own first, then those a degraded
     * store asked for, in the order first seen, then {@code 0} if some statuses overflowed.
     *
     * @return a new array
     */
    public int[] deniedStatuses() {
        int n = 0;
        int[] out = new int[STATUS_SLOTS + 1];
        for (int i = 0; i < STATUS_SLOTS; i++) {
            int s = statuses.get(i);
            if (s != 0) {
                out[n++] = s;
            }
        }
        if (deniedByStatus[STATUS_SLOTS].sum() > 0) {
            out[n++] = 0;
        }
        return java.util.Arrays.copyOf(out, n);
    }

    /**
     * Returns the requests whose concurrency permits of this policy were given back when they
     * ended: for a concurrency policy, its admissions minus the requests in flight, read in one
     * word, so exact.
     *
     * @return requests released
     */
    public long released() {
        return admitted(true);
    }

    /**
     * Returns the admissions given back by their receipt (see {@link EnforcementListener#refunded}):
     * requests a policy that counts by outcome did not count, and requests that ended while they
     * waited out a shaping delay. Counted in {@link #allowed()} (or {@link #shaped()}) when
     * admitted, so the requests that consumed the quota are those less these.
     *
     * @return refunded admissions; {@code 0} for a concurrency policy
     */
    public long refunds() {
        return refunds.sum();
    }

    /**
     * Returns the releases that gave back permits their key did not hold, as far as the store
     * could tell (see {@link EnforcementListener#unmatchedRelease}): a request released twice, or
     * without an admission. Always 0 in a correct deployment; anything else is a bug in an adapter's
     * or a store's release path, which may have let the policy admit more than its limit (the
     * first is logged at WARNING). Not subtracted from {@link #released()}: each such release was counted there too.
     *
     * @return unmatched releases; {@code 0} for a policy that is not a concurrency limit
     */
    public long unmatchedReleases() {
        return unmatchedReleases.sum();
    }

    /**
     * Requests of a policy with {@code override=} that were decided by the client's plan because
     * the override lookup did not answer within {@code override-timeout}, failed, or returned a
     * limit that is not one (see docs/configuration.md, "Plans and per-customer limits").
     *
     * @return fallbacks; {@code 0} for a policy without overrides
     */
    public long overrideFallbacks() {
        return overrideFallbacks.sum();
    }

    void recordOverrideFallback() {
        overrideFallbacks.increment();
    }

    /**
     * Returns the requests holding this policy's concurrency permits now: admitted minus released,
     * a field of one atomic word (see the class description), so exact. Never negative (a request is counted in before the enforcer returns
     * its verdict, so before it can be released). It can exceed the policy's limit by the releases
     * in progress at that instant: a request counts out just after its permit went back to the
     * store, and another may have taken that permit meanwhile. Exact when the policy is quiet.
     *
     * @return requests in flight; {@code 0} for a policy that is not a concurrency limit
     */
    public long inFlight() {
        return admittedInFlight.get() & IN_FLIGHT_MASK;
    }

    /** @return total delay imposed on the requests this policy shaped, in nanoseconds (dry-run: 0) */
    public long shapingDelayNanos() {
        return shapingDelayNanos.sum();
    }

    /**
     * @return the upper bounds of the shaping delay's buckets, in nanoseconds, ascending (1 ms to
     *     10 s); a new array
     */
    public static long[] shapingDelayBounds() {
        return SHAPING_BOUNDS.clone();
    }

    /**
     * Returns the requests this policy delayed by at most one bound: a cumulative bucket, as
     * Prometheus' {@code le}, for delay quantiles ({@code histogram_quantile}).
     *
     * @param bucket an index into {@link #shapingDelayBounds()}, or its length for every delay ({@code +Inf})
     * @return delayed requests with a delay at most that bound (dry-run: 0)
     * @throws IndexOutOfBoundsException if {@code bucket} is out of range
     */
    public long shapingDelays(int bucket) {
        java.util.Objects.checkIndex(bucket, shapingBuckets.length);
        long sum = 0;
        for (int i = 0; i <= bucket; i++) {
            sum += shapingBuckets[i].sum();
        }
        return sum;
    }

    /** @return requests delayed by this policy, the count behind {@link #shapingDelayNanos()} */
    public long shapingDelays() {
        return policy.dryRun() ? 0 : shaped.sum();
    }

    /**
     * @return keys the store holds for this policy now (approximate under concurrent change), or
     *     {@code -1} if the metrics were not given the policy's key space
     */
    public long keys() {
        KeySpace s = space;
        return s == null ? -1 : s.size();
    }

    /**
     * @return {@code true} if the policy in force is an adaptive concurrency limit with one key
     *     for the instance ({@code key=global}), whose {@link #adaptiveLimit()} is meaningful
     */
    public boolean adaptive() {
        Policy p = current;
        return p.algorithm() instanceof AdaptiveLimit<?> && KeyResolvers.global().equals(p.key());
    }

    /**
     * Returns the current limit of an adaptive policy keyed {@code global}: the {@code q} its next
     * request would be told ({@code RateLimit-Policy}), read from the key's state without changing
     * it (the initial limit before the first request, or after the key was forgotten while idle;
     * for {@code bbr} under its CPU threshold, its {@code max}). A policy keyed per client has one
     * limit per key, which no single gauge can show: read those through the admin endpoint.
     *
     * @return the limit, in permits; {@code -1} if the policy is not adaptive, not keyed
     *     {@code global}, or the metrics were not given its key space
     */
    public long adaptiveLimit() {
        KeySpace s = space;
        if (s == null || !adaptive()) {
            return -1;
        }
        MutableDecision out = new MutableDecision();
        s.inspect(KeyResolvers.GLOBAL, out);
        return out.limit();
    }

    /**
     * @return the names of an adaptive policy's partitions, in configuration order; empty if it
     *     has none or is not adaptive
     */
    public List<String> adaptivePartitions() {
        if (!(current.algorithm() instanceof AdaptiveLimit<?> a)) {
            return List.of();
        }
        String[] names = new String[a.partitions()];
        for (int i = 0; i < names.length; i++) {
            names[i] = a.partitionName(i);
        }
        return List.of(names);
    }

    /**
     * Returns a partition's share of the current limit: the permits it is admitted up to whatever
     * the others hold, {@code ceil(share * limit)} (at least 1 for a positive share); see
     * "Partitions" in {@code docs/adaptive.md}.
     *
     * @param partition a partition name of the policy
     * @return the permits guaranteed to it now; {@code -1} if {@link #adaptiveLimit()} is
     *     {@code -1} or the policy has no such partition
     */
    public long adaptivePartitionLimit(String partition) {
        if (!(current.algorithm() instanceof AdaptiveLimit<?> a)) {
            return -1;
        }
        int index = a.partition(partition);
        long limit = adaptiveLimit();
        return index < 0 || limit < 0 ? -1 : a.guaranteed(limit, index);
    }

    /**
     * Returns the heaviest clients of this policy (see {@link TopClients}): by refused requests
     * unless {@code top-clients=0}, by admitted ones only with {@code top-clients-admitted=true}.
     *
     * @param by what is counted
     * @return the summary
     * @throws IllegalStateException if that summary is not kept, naming the setting that keeps it
     */
    public TopClients topClients(TopClients.By by) {
        TopClients top = by == TopClients.By.DENIED ? deniedTop : admittedTop;
        if (top == null) {
            throw new IllegalStateException("the top clients by " + by.label() + " of policy '" + name
                    + "' are not kept: " + (owner.topClients() == 0 ? "top-clients is 0"
                            : "set top-clients-admitted=true") + " to keep them");
        }
        return top;
    }

    /**
     * @param by what is counted
     * @return {@code true} if {@link #topClients(TopClients.By)} is kept for {@code by}
     */
    public boolean keepsTopClients(TopClients.By by) {
        return (by == TopClients.By.DENIED ? deniedTop : admittedTop) != null;
    }

    /**
     * Returns the decisions of this policy that a degraded shared store's failure policy made
     * (Redis down: fail open, fail closed or local limits), whatever their outcome; each was also
     * counted under its outcome.
     *
     * @return decisions made while the store was degraded
     */
    public long degradedDecisions() {
        return degraded.sum();
    }

    /** @return keys of this policy the in-memory registry dropped while idle (lossless) */
    public long idleEvictions() {
        return idleEvictions.sum();
    }

    /** @return keys of this policy with history the in-memory registry dropped at its bound (lossy) */
    public long boundEvictions() {
        return boundEvictions.sum();
    }

    @Override
    public String toString() {
        return "PolicyMetrics{" + name + ", allowed=" + allowed() + ", shaped=" + shaped() + ", denied=" + denied()
                + (policy.concurrency() ? ", released=" + released() + ", inFlight=" + inFlight()
                        + (unmatchedReleases() == 0 ? "" : ", unmatchedReleases=" + unmatchedReleases()) : "")
                + ", keys=" + keys() + '}';
    }
}
