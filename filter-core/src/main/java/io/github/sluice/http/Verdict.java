package io.github.sluice.http;

import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.BodySink;
import io.github.sluice.request.HeaderSink;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.CellHolder;
import io.github.sluice.store.Claim;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.Store;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The enforcer's answer for one request: the outcome, every policy's decision (the binding one
 * marked), and what to write to the response. It is also the request's {@link ReleaseHandle}.
 *
 * <h2>The request's lifecycle: what an adapter does with it</h2>
 * Every adapter (servlet filter, Spring MVC interceptor, JAX-RS filters, WebFlux, the gateway)
 * maps its container's events onto these steps, and nothing more; the decisions, the refunds and
 * the exactly-once ending are here (docs/architecture.md, "One request lifecycle").
 * <ol>
 *   <li><b>Decide</b>: {@link Enforcer#enforce} on a thread that may block, or
 *       {@link Enforcer#enforceAsync} on one that must not.
 *   <li>{@link #denied()}: set the status to {@link #status()}, call {@link #writeDenial} and
 *       stop: do not invoke the application. (Nothing is held; the endings do nothing.)
 *   <li>{@link #shaped()}: wait {@link #delayNanos()}, then proceed as for allowed. An adapter
 *       that waits without holding a thread (a suspended request, a timer) brackets the wait with
 *       {@link #beginDelay()} and {@link #endDelay()}: a request that ends meanwhile (the client
 *       went away, a timeout) never ran, and gives back its place by receipt; if
 *       {@code endDelay()} says so, the adapter does not invoke the application.
 *   <li><b>Hold</b>, when allowed: call {@link #writeHeaders} before the response is committed,
 *       invoke the application; {@link #released()} tells whether anything is held (a request
 *       that holds nothing needs no listener).
 *   <li><b>End</b>, exactly once, however the request ends: {@link #release(int)} with the
 *       response's status when it completes, {@link #releaseFailed()} when an exception escaped,
 *       {@link #releaseTimedOut()} on a container's timeout, {@link #releaseAborted()} when the
 *       client went away or a subscriber cancelled ({@link #release()} when nothing more is
 *       known). Several events of one request (an error, then the completion) may each call
 *       one, from any threads, at once: the first counts, the others do nothing. An adapter
 *       that knows the final status before it writes the headers calls {@link #settle(int)}
 *       first, so that policies that count by outcome show it.
 * </ol>
 *
 * <h2>Entries</h2>
 * A verdict holds one entry per policy that applied: the policy, its key, the permits asked for
 * and the policy's decision. Indices {@code 0 .. size()-1} are the entries, enforced ones first in
 * configuration order (selection order for a {@link PolicySet}), then dry-run ones. A policy
 * whose key resolver returned {@code null} (unless it has {@code unresolved=deny}: then it is an
 * entry without a key, denied without touching the store) or whose allow-list matched the request
 * is not an entry. The verdict decides itself from its entries: which one binds, the outcome, the status
 * and the delay; it tells the listener, and it releases through its entries.
 *
 * <h2>Allocation</h2>
 * A request that no policy applies to gets a shared verdict. Otherwise a verdict is one object
 * (24 bytes with compressed references), plus one entry per applied policy, which is also that
 * policy's decision (96 bytes: the decision's numbers, the policy, the key, the partition, the cell that holds its concurrency permits, and the
 * request's own cost with the byte that says whether it was refused); there is no array. The header values that do not change between requests
 * ({@code RateLimit-Policy}, the header names) are formatted once per policy set; a policy's
 * {@code RateLimit} member and {@code Retry-After} value are reused while their numbers repeat
 * (a full bucket, a flood on one key), and formatted into one string of the exact size otherwise.
 *
 * <p>A verdict is not thread-safe, except {@link #release()} (and the other endings of
 * {@link ReleaseHandle}) and {@link #released()}, which may be called from any thread;
 * {@link #releaseConfined(int)} is for the one thread that can end the verdict. Once returned by
 * the enforcer it does not change, apart from the release state, and {@link #settle(int)}, which
 * puts a refunded reservation back in its entry's remaining quota (called by the thread that then
 * writes the headers).
 */
public final class Verdict implements ReleaseHandle {

    /** The verdict of a request no policy applied to: allowed, no headers, nothing held. */
    static final Verdict NONE = new Verdict();

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Verdict.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /* The entries of enforced policies, chained in order: the chain given to Store.acquireAll. */
    private Entry enforced;
    /* The entries of dry-run policies, chained in order; never given to acquireAll. */
    private Entry dryRun;
    /*
     * The outcome and the release, in one word so that a verdict is three fields (24 bytes): the
     * binding entry is found again when asked for (a walk over a handful of entries, on a denial
     * or for the headers of another style only). DENIED and SHAPED are set before the enforcer
     * returns the verdict and never change; HELD is set then too, and cleared once, by the CAS
     * of release(), which may run on any thread.
     */
    private int state;
    private static final int HELD = 1;
    private static final int DENIED = 2;
    private static final int SHAPED = 4;
    /**
     * An enforced entry has no key ({@code unresolved=deny}) or is refused for its cost before the
     * store is asked; set while entries are added, cleared by decide.
     */
    private static final int UNKEYED = 8;
    /**
     * The request waits out its shaping delay ({@link #beginDelay()} to {@link #endDelay()}): an
     * ending meanwhile means it never ran, and gives back everything it took. Cleared, like
     * {@code HELD}, by the CAS of the one ending or by {@code endDelay}.
     */
    private static final int DELAYED = 16;
    /** The ending ran: set by the CAS that cleared {@code HELD} or {@code DELAYED}. */
    private static final int ENDED = 32;
    /** The reservations of policies that count by outcome were settled by {@link #settle(int)}. */
    private static final int SETTLED = 64;

    Verdict() {
    }

    /**
     * One applied policy: how it is applied, the request's key, and the policy's decision. It is
     * the policy's {@link Claim} in {@link Store#acquireAll}.
     */
    static final class Entry extends MutableDecision implements Claim, CellHolder {
        final Enforcement how;
        final String key;
        /* The next entry of the same kind (enforced or dry-run). */
        Entry next;
        /*
         * The cell the admission's concurrency permits are in, handed over by the in-memory store
         * (CellHolder), or null: the release goes back to it without a lookup. It takes the place
         * the partition had before it became a short, so that an entry stays 96 bytes.
         */
        private Cell cell;
        /* The request's partition of an adaptive algorithm (at most AdaptiveLimit.MAX_PARTITIONS), or NO_PARTITION. */
        final short partition;
        /* The permits asked for: the policy's cost, or this request's (CostReader). */
        final long cost;
        /* Why the entry is refused before the store is asked, or CostReader.NONE; a byte fits the padding. */
        final byte refusal;

        /**
         * @param cost the request's cost as {@link CostReader#read} returns it, or the policy's
         *     constant {@link Enforcement#cost} when it reads none
         * @param nanos the reading of the enforcer's clock the request took before its decision
         *     (to check the override cache), or {@link MutableDecision#NO_READING}
         */
        Entry(Enforcement how, String key, int partition, long cost, long nanos) {
            this.how = how;
            this.key = key;
            // Any value outside the algorithm's partitions means none: kept so in a short.
            this.partition = partition >= Short.MIN_VALUE && partition <= Short.MAX_VALUE ? (short) partition
                    : (short) io.github.sluice.core.Algorithm.NO_PARTITION;
            if (how.requestCost == null) {
                this.refusal = how.costRefusal; // the policy's constant cost, checked once
                this.cost = how.cost;
            } else {
                this.refusal = CostReader.refusal(how, cost);
                this.cost = CostReader.charged(how, cost);
            }
            at(nanos); // replaced by the store's own reading when it decides
        }

        /** @return {@code true} if the store is not asked: no key ({@code unresolved=deny}) or a refused cost */
        boolean refusedEarly() {
            return key == null || refusal != CostReader.NONE;
        }

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public KeySpace space() {
            return how.space;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public long cost() {
            return cost;
        }

        @Override
        public MutableDecision decision() {
            return this; // the entry is its policy's decision: one object per applied policy, not two
        }

        @Override
        public void holdCell(Cell cell) {
            this.cell = cell;
        }

        @Override
        public Entry next() {
            return next;
        }

        /**
         * {@inheritDoc}
         *
         * <p>The reading taken to check the policy's override cache, if the store decides by the
         * clock it was read from: the contract found is then exactly the one in force at the
         * instant of the decision.
         */
        @Override
        public long nanos(io.github.sluice.core.Clock clock) {
            return clock == how.group.enforcer.overrideClock() ? nanos() : MutableDecision.NO_READING;
        }

        /**
         * @return the reading the store decided this entry at, on the clock of the enforcer's
         *     metrics, or {@link MutableDecision#NO_READING} if the store records none on it
         */
        long nanosFor(io.github.sluice.core.Clock clock) {
            return clock == how.group.enforcer.decisionClock() ? nanos() : MutableDecision.NO_READING;
        }

        /**
         * @return {@code true} if this entry holds permits until the request ends: concurrency
         *     permits, or the reservation of a policy that counts by outcome
         */
        boolean holds() {
            return (how.concurrency || how.deferred) && allowed();
        }

        void tell(EnforcementListener listener, RequestView request) {
            try {
                if (listener instanceof EnforcerMetrics metrics) {
                    // The enforcer's own counting: its policy's counters are found once, not by name.
                    // (The heavy hitters date this entry by the store's reading of it: nanosFor.)
                    PolicyMetrics counts = how.counts(metrics);
                    Outcome outcome = outcome(); // compared, not switched on: no look-up table per event
                    if (outcome == Outcome.ALLOWED) {
                        metrics.allowed(counts, how.policy, key, this);
                    } else if (outcome == Outcome.SHAPED) {
                        metrics.shaped(counts, how.policy, key, this);
                    } else {
                        metrics.denied(counts, how.policy, key, this, request);
                    }
                    return;
                }
                switch (outcome()) {
                    case ALLOWED -> listener.allowed(how.policy, key, this);
                    case SHAPED -> listener.shaped(how.policy, key, this);
                    case DENIED -> listener.denied(how.policy, key, this, request);
                }
            } catch (RuntimeException ignored) {
                // A listener must never change a decision; see EnforcementListener.
            }
        }

        /**
         * @param ending a status ({@code >= 0}, 0 for unknown), {@link #TIMED_OUT}, {@link #FAILED}
         *     or {@link #ABORTED}
         */
        void release(int ending) {
            if (!how.concurrency) {
                // A reservation of a policy that counts by outcome: kept, or refunded by receipt.
                if (!Outcomes.keeps(how.charge, ending)) {
                    refund(how.cost);
                }
                return;
            }
            if (ending == ABORTED) {
                ending = FAILED; // a concurrency policy learns nothing from an abort, as from a failure
            }
            // The receipt carries the admission's clock reading to algorithms that learn from
            // how long requests take (adaptive limits); the others ignore it. A failure teaches
            // nothing: released without the receipt.
            boolean dropped = ending == TIMED_OUT || (how.adaptive && how.policy.drop().contains(ending));
            // To the cell the permits were taken from, kept at the admission (no lookup).
            long unmatched = how.space.release(key, cell, cost,
                    ending == FAILED ? MutableDecision.NO_RECEIPT : receipt(), dropped);
            EnforcerMetrics metrics = how.metrics;
            try {
                if (metrics != null) {
                    // As in tell(): the policy's counters found once, not by name at every release.
                    metrics.released(how.counts(metrics), how.policy, key, cost);
                } else {
                    how.told.released(how.policy, key, cost);
                }
            } catch (RuntimeException ignored) {
                // See EnforcementListener.
            }
            if (unmatched > 0) {
                how.unmatchedRelease(key, unmatched); // a bug somewhere: never on the normal path
            }
        }

        /**
         * Gives this entry's admission back by its receipt, and tells the listener (counted in
         * {@link PolicyMetrics#refunds()}).
         *
         * @param permits the permits the admission took
         */
        void refund(long permits) {
            how.space.refund(key, permits, this);
            EnforcerMetrics metrics = how.metrics;
            try {
                if (metrics != null) {
                    metrics.refunded(how.counts(metrics), how.policy, key, permits);
                } else {
                    how.told.refunded(how.policy, key, permits);
                }
            } catch (RuntimeException ignored) {
                // See EnforcementListener.
            }
        }

        /**
         * Settles this entry's reservation (a policy that counts by outcome) with a known status,
         * before the headers are written: a refund also shows in this entry's numbers, as the
         * remaining quota with the permits back (at most the limit), which is what a peek would
         * read on a frozen clock, without another store call.
         */
        void settle(int status) {
            if (Outcomes.keeps(how.charge, status)) {
                return;
            }
            refund(how.cost);
            boolean degraded = degraded();
            int denialStatus = denialStatus();
            allow(limit(), Math.min(limit(), remaining() + how.cost), resetNanos());
            if (degraded) {
                degrade(denialStatus);
            }
        }

        @Override
        public String toString() {
            return how.policy.name() + (how.dryRun ? "(dry-run)" : "") + '=' + super.toString();
        }
    }

    /** How a request ended, for {@link Entry#release(int)}, besides a status. */
    static final int TIMED_OUT = -1;
    static final int FAILED = -2;
    static final int ABORTED = -3;

    /**
     * Appends an entry for {@code how}, after the entries of its kind.
     *
     * @param cost the request's cost, as {@link CostReader#read} returns it, or the constant cost
     * @param nanos the reading of the enforcer's clock taken for the request's override, or
     *     {@link MutableDecision#NO_READING}
     */
    void add(Enforcement how, String key, int partition, long cost, long nanos) {
        Entry e = new Entry(how, key, partition, cost, nanos);
        if (how.dryRun) {
            dryRun = append(dryRun, e);
        } else {
            enforced = append(enforced, e);
            if (e.refusedEarly()) {
                state |= UNKEYED;
            }
        }
    }

    private static Entry append(Entry head, Entry e) {
        if (head == null) {
            return e;
        }
        Entry last = head;
        while (last.next != null) {
            last = last.next;
        }
        last.next = e;
        return head;
    }

    /**
     * Decides the request: the enforced entries all or nothing, then the dry-run ones, which never
     * deny and never roll back the enforced ones (after a denial they are only peeked). Then
     * concludes, arms the release if permits are held, and tells the listener.
     *
     * @param request the request, passed to the listener's denials (method and path in the log)
     * @return this verdict
     */
    Verdict decide(Store store, EnforcementListener listener, RequestView request) {
        // Three calls, each small enough to inline however the JIT orders its compilations
        // (docs/PERFORMANCE.md, "The request's path, inlined in every JVM").
        boolean admitted = acquire(store);
        if (dryRun != null) {
            decideDryRun(admitted);
        }
        return conclude(admitted, listener, request);
    }

    /** @return whether the enforced entries were all admitted (all or nothing) */
    private boolean acquire(Store store) {
        if ((state & UNKEYED) != 0) {
            return refuseUnresolved();
        }
        Entry e = enforced;
        if (e == null) {
            return true;
        }
        return store.acquireAll(e);
    }

    /** Decides the dry-run entries: never a denial of the request, never a rollback of the enforced ones. */
    private void decideDryRun(boolean admitted) {
        for (Entry e = dryRun; e != null; e = e.next) {
            if (e.refusedEarly()) {
                e.deny(e.how.policy.algorithm().limit(), 0, 0, Decision.NEVER);
            } else {
                e.how.space.acquire(e.key, e.partition, admitted ? e.cost : 0, e);
            }
        }
    }

    /**
     * Concludes a request whose entries are decided (by {@link #decide}, or by
     * {@link AsyncDecision} without blocking): the outcome, the hold on permits, and the listener.
     *
     * @param admitted whether the enforced entries were all admitted
     * @return this verdict
     */
    Verdict conclude(boolean admitted, EnforcementListener listener, RequestView request) {
        int outcome = DENIED;
        if (admitted) {
            // One walk: whether an enforced entry asks for a delay, and whether any entry holds permits.
            outcome = 0;
            for (Entry e = first(); e != null; e = after(e)) {
                if (!e.how.dryRun && e.outcome() == Outcome.SHAPED && e.delayNanos() > 0) {
                    outcome |= SHAPED;
                }
                if (e.holds()) {
                    outcome |= HELD;
                }
            }
        }
        STATE.setRelease(this, outcome);
        if (listener != EnforcementListener.NONE) {
            for (Entry e = first(); e != null; e = after(e)) {
                // After a denial the others were given back or only peeked: only denials are news.
                if (admitted || (!e.how.dryRun && e.outcome() == Outcome.DENIED)) {
                    e.tell(listener, request);
                }
            }
        }
        return this;
    }

    /**
     * Refuses a request that an enforced {@code unresolved=deny} policy found no key for, or whose
     * cost an enforced policy refuses (bad, or above its limit: see {@link CostReader}), without
     * taking anything: those entries are denied (never retryable) without asking the store, the
     * others only peeked, for their headers.
     *
     * @return {@code false}
     */
    private boolean refuseUnresolved() {
        for (Entry e = enforced; e != null; e = e.next) {
            if (e.refusedEarly()) {
                e.deny(e.how.policy.algorithm().limit(), 0, 0, Decision.NEVER);
            } else {
                e.space().acquire(e.key, 0, e);
            }
        }
        return false;
    }

    /** @return the first enforced entry (the chain given to the store), or {@code null} */
    Entry enforcedEntries() {
        return enforced;
    }

    /** @return the first dry-run entry, or {@code null} */
    Entry dryRunEntries() {
        return dryRun;
    }

    /** @return {@code true} if an enforced entry has no key ({@code unresolved=deny}) */
    boolean unkeyed() {
        return (state & UNKEYED) != 0;
    }

    /** @return the first entry, or {@code null} if no policy applied */
    Entry first() {
        return enforced != null ? enforced : dryRun;
    }

    /** @return the entry after {@code e} in index order, or {@code null} */
    Entry after(Entry e) {
        return e.next != null ? e.next : e.how.dryRun ? null : dryRun;
    }

    /**
     * @return the binding entry (see {@link #binding()}), or {@code null} if no policy applied
     */
    Entry bindingEntry() {
        if ((state & DENIED) != 0) {
            Entry binding = null;
            for (Entry e = enforced; e != null; e = e.next) {
                if (e.outcome() == Outcome.DENIED && (binding == null
                        || e.retryAfterNanos() > binding.retryAfterNanos())) {
                    binding = e;
                }
            }
            return binding != null ? binding : enforced; // a store that refused without writing a denial
        }
        // The closest to exhaustion among the enforced entries, or among the dry-run ones if none.
        Entry binding = enforced != null ? enforced : dryRun;
        for (Entry e = binding == null ? null : binding.next; e != null; e = e.next) {
            if (RateLimitHeaders.closer(e, binding)) {
                binding = e;
            }
        }
        return binding;
    }

    private Entry entry(int i) {
        Objects.checkIndex(i, size());
        Entry e = first();
        for (int k = 0; k < i; k++) {
            e = after(e);
        }
        return e;
    }

    /** @return what was decided for the request */
    public Outcome outcome() {
        return (state & DENIED) != 0 ? Outcome.DENIED : (state & SHAPED) != 0 ? Outcome.SHAPED : Outcome.ALLOWED;
    }

    /** @return {@code true} if the request proceeds, now or after {@link #delayNanos()} */
    public boolean admitted() {
        return (state & DENIED) == 0;
    }

    /** @return {@code true} if the request must wait {@link #delayNanos()} before proceeding */
    public boolean shaped() {
        return (state & SHAPED) != 0;
    }

    /** @return {@code true} if the request is refused */
    public boolean denied() {
        return (state & DENIED) != 0;
    }

    /** @return for a shaped verdict, the nanoseconds to wait (the longest delay of the enforced policies); else 0 */
    public long delayNanos() {
        long delay = 0;
        if (shaped()) {
            for (Entry e = enforced; e != null; e = e.next) {
                if (e.outcome() == Outcome.SHAPED) {
                    delay = Math.max(delay, e.delayNanos());
                }
            }
        }
        return delay;
    }

    /**
     * Returns the status of the denial response: the binding policy's status, or the status a
     * degraded store asked for.
     *
     * @return 400..599
     * @throws IllegalStateException if the verdict is not a denial
     */
    public int status() {
        requireDenied("status");
        Entry binding = bindingEntry();
        MutableDecision d = binding;
        Policy p = binding.how.policy;
        return binding.key == null ? p.unresolved().status(p.status())
                : binding.refusal != CostReader.NONE ? CostReader.status(binding.refusal)
                : d.degraded() && d.denialStatus() != 0 ? d.denialStatus() : binding.how.status;
    }

    /**
     * Returns the value of {@code Retry-After}: delta-seconds, rounded up, at least 1, never earlier
     * than the {@code t} announced for the binding policy. A denial that can never succeed
     * ({@link #retryable(int) retryable} is {@code false} for the {@link #binding() binding}
     * entry: a cost above the limit, a bad cost, no key) gets no {@code Retry-After} from
     * {@link #writeHeaders}; this method then returns 1.
     *
     * @return seconds, {@code >= 1}
     * @throws IllegalStateException if the verdict is not a denial
     */
    public long retryAfterSeconds() {
        requireDenied("retryAfterSeconds");
        return Math.max(1, RateLimitHeaders.resetSeconds(bindingEntry()));
    }

    private void requireDenied(String what) {
        if (!denied()) {
            throw new IllegalStateException(what + " is defined for a denial only, but the verdict is " + outcome());
        }
    }

    /** @return the number of policies that applied */
    public int size() {
        int n = 0;
        for (Entry e = first(); e != null; e = after(e)) {
            n++;
        }
        return n;
    }

    /**
     * @param i an entry, {@code 0 <= i < size()}
     * @return the entry's policy
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public Policy policy(int i) {
        return entry(i).how.policy;
    }

    /**
     * @param i an entry
     * @return the name the client is told for the entry: the policy's, or {@code policy.plan}
     *     ({@code api.pro}, {@code api.override}) for a policy with plans
     */
    String label(int i) {
        return entry(i).how.label;
    }

    /**
     * @param i an entry
     * @return whether the entry is a {@code blocked} plan or contract, which refuses every request
     */
    boolean blocked(int i) {
        return entry(i).how.blocked;
    }

    /**
     * @param i an entry
     * @return the entry's key (bounded: over-long keys are hashed), or {@code null} if the policy
     *     found none and refuses such requests ({@code unresolved=deny})
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public String key(int i) {
        return entry(i).key;
    }

    /**
     * @param i an entry
     * @return the permits the entry asked for: the policy's cost, or the request's own (the
     *     policy's {@code cost-default} for a bad one); 0 for a bad cost refused without a default,
     *     and the cost asked for when it is above the limit (refused)
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public long cost(int i) {
        return entry(i).cost;
    }

    /**
     * Returns an entry's decision. For entries after an enforced denial, the decision is a peek
     * (what the policy's state was; nothing taken).
     *
     * @param i an entry
     * @return an immutable copy of the decision (allocates)
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public Decision decision(int i) {
        return entry(i).toDecision();
    }

    /**
     * @param i an entry
     * @return {@code true} if the entry's policy is dry-run (reported, never enforced)
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public boolean dryRun(int i) {
        return entry(i).how.dryRun;
    }

    /**
     * @param i an entry
     * @return {@code true} if the entry's decision was taken without the authoritative store
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public boolean degraded(int i) {
        return entry(i).degraded();
    }

    /**
     * @param i an entry
     * @return {@code true} if the entry is an enforced policy that denied the request
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public boolean violated(int i) {
        Entry e = entry(i);
        return !e.how.dryRun && e.outcome() == Outcome.DENIED;
    }

    /**
     * @param i an entry
     * @return {@code false} if the entry denied a request that can never pass by waiting: a cost
     *     above the limit, a bad cost read from the request, or no key ({@code unresolved=deny})
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public boolean retryable(int i) {
        return entry(i).retryAfterNanos() != Decision.NEVER;
    }

    /**
     * Returns the binding entry: for a denial, the denying policy with the longest retry-after;
     * otherwise the enforced policy closest to exhaustion (smallest share of its quota left), or,
     * with only dry-run policies, the dry-run one closest to exhaustion.
     *
     * @return the entry's index, or {@code -1} if no policy applied
     */
    public int binding() {
        Entry binding = bindingEntry();
        int i = 0;
        for (Entry e = first(); e != null; e = after(e), i++) {
            if (e == binding) {
                return i;
            }
        }
        return -1;
    }

    /** @return {@code true} if a dry-run policy would have denied this request */
    public boolean dryRunDenied() {
        for (Entry e = dryRun; e != null; e = e.next) {
            if (e.outcome() == Outcome.DENIED) {
                return true;
            }
        }
        return false;
    }

    /** @return the names of the enforced policies that denied the request (allocates) */
    public List<String> violatedPolicies() {
        List<String> out = new ArrayList<>(1);
        for (Entry e = enforced; e != null; e = e.next) {
            if (e.outcome() == Outcome.DENIED) {
                out.add(e.how.policy.name());
            }
        }
        return out;
    }

    /**
     * Writes the rate-limit header fields (and, for a denial, {@code Retry-After}) as configured:
     * see {@link HeaderStyle} and {@link HeaderOptions}. Call it for every verdict, before the
     * response is committed; it writes nothing when no policy applied.
     *
     * @param sink where the fields go
     * @throws NullPointerException if {@code sink} is null
     */
    public void writeHeaders(HeaderSink sink) {
        Objects.requireNonNull(sink, "sink");
        Entry first = first();
        if (first != null) {
            PolicyGroup group = first.how.group;
            // An allowed response under options that add nothing to one: no step at all.
            if ((state & DENIED) != 0 || !group.plan.silentWhenAllowed) {
                RateLimitHeaders.write(this, group, sink);
            }
        }
    }

    /**
     * Writes the denial body: passes {@code Content-Type} to {@code headers}, then the bytes to
     * {@code body}. The renderer is the enforcer's {@link DenialBody} (RFC 9457 problem+json by
     * default).
     *
     * @param headers where {@code Content-Type} goes
     * @param body where the bytes go
     * @throws IOException if {@code body} fails
     * @throws IllegalStateException if the verdict is not a denial
     * @throws NullPointerException if an argument is null
     */
    public void writeBody(HeaderSink headers, BodySink body) throws IOException {
        requireDenied("writeBody");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(body, "body");
        DenialBody renderer = first().how.group.enforcer.denialBody();
        byte[] bytes = renderer.body(this);
        headers.header("Content-Type", renderer.contentType(this));
        body.body(bytes);
    }

    /**
     * The whole denial response after the status: {@link #writeHeaders} then {@link #writeBody}.
     *
     * @param headers where the fields go
     * @param body where the bytes go
     * @throws IOException if {@code body} fails
     * @throws IllegalStateException if the verdict is not a denial
     * @throws NullPointerException if an argument is null
     */
    public void writeDenial(HeaderSink headers, BodySink body) throws IOException {
        requireDenied("writeDenial");
        writeHeaders(headers);
        writeBody(headers, body);
    }

    /**
     * Gives back the concurrency permits this request holds, on the first call only. Idempotent,
     * thread-safe, never throws; callable from any thread (an async listener, a timeout thread).
     * This is the end of the request, not a refund: rate limits hold nothing while a request runs,
     * and the permits a denied request took from other policies were refunded, by receipt, before
     * this verdict was returned. The exception is a rate policy that counts by outcome
     * ({@link Policy#charge()}): its admission is a reservation, which an ending without a status
     * keeps (the request is charged); {@link #release(int)} settles it by the status.
     */
    @Override
    public void release() {
        end(0);
    }

    /**
     * Like {@link #release()}, for a request that ended with {@code status}: a drop for each
     * adaptive policy whose {@linkplain Policy#drop() drop statuses} hold it; for each policy that
     * counts by outcome, the reservation is kept if its {@linkplain Policy#charge() charge}
     * charges the status, else refunded by the admission's receipt.
     *
     * @param status the response's HTTP status
     */
    @Override
    public void release(int status) {
        end(Math.max(0, status));
    }

    /**
     * Like {@link #release()}, for a request that timed out: a drop for every adaptive policy; a
     * policy that counts by outcome takes it as a {@code 504}.
     */
    @Override
    public void releaseTimedOut() {
        end(TIMED_OUT);
    }

    /**
     * Like {@link #release()}, for a request ended by an exception or a client that went away:
     * adaptive policies learn nothing from it. A policy that counts by outcome takes it as a
     * {@code 500}.
     */
    @Override
    public void releaseFailed() {
        end(FAILED);
    }

    /**
     * Like {@link #releaseFailed()}, for a request the client abandoned: adaptive policies learn
     * nothing from it, and a policy that counts by outcome keeps its reservation, whatever it
     * counts (hanging up never buys a free attempt).
     */
    @Override
    public void releaseAborted() {
        end(ABORTED);
    }

    /**
     * Like {@link #release(int)}, for the one thread that can end this verdict: the thread that
     * decided it, when it never handed the verdict to anything that may end it on another thread
     * (a listener, a scheduler, another thread's task). The servlet filter ends a request that
     * did not go async this way. The same ending, without the atomic instruction that makes
     * concurrent endings end the request once (about 0.9 ns of the 40 the filter costs a
     * request, docs/PERFORMANCE.md); a later ending on the same thread still does nothing. Called
     * where another thread may end the verdict too, a request could be released twice: call
     * {@link #release(int)} there.
     *
     * @param status the response's HTTP status
     */
    public void releaseConfined(int status) {
        int s = (int) STATE.get(this);
        if ((s & (HELD | DELAYED)) == 0) {
            return;
        }
        STATE.set(this, (s & ~(HELD | DELAYED)) | ENDED);
        ended(s, Math.max(0, status));
    }

    /**
     * The one ending of the request: the first call that clears what is held (the permits, the
     * place of a delayed request) does the work, every later one nothing. A loop rather than one
     * CAS because {@link #endDelay()} may clear its bit meanwhile, which is no ending.
     */
    private void end(int ending) {
        int s;
        do {
            s = (int) STATE.getVolatile(this);
            if ((s & (HELD | DELAYED)) == 0) {
                return;
            }
        } while (!STATE.compareAndSet(this, s, (s & ~(HELD | DELAYED)) | ENDED)); // also fails when settle() marked it
        ended(s, ending);
    }

    /**
     * The work of the ending that cleared what state {@code s} held.
     *
     * @param s the state before the ending
     * @param ending a status ({@code >= 0}), {@link #TIMED_OUT}, {@link #FAILED} or {@link #ABORTED}
     */
    private void ended(int s, int ending) {
        if ((s & DELAYED) != 0) {
            giveBack();
            return;
        }
        boolean settled = (s & SETTLED) != 0;
        for (Entry e = first(); e != null; e = after(e)) {
            if (e.holds() && !(settled && !e.how.concurrency)) {
                e.release(ending);
            }
        }
    }

    /**
     * Ends a request that never ran (it ended while it waited out its delay): every admission is
     * undone by its receipt, as for a request another policy refused, so that its place in the
     * schedule, its window's count or its tokens go back to where they were taken, and its
     * concurrency permits are released, taught nothing.
     */
    private void giveBack() {
        for (Entry e = first(); e != null; e = after(e)) {
            if (e.holds() && e.how.concurrency) {
                e.release(FAILED);
            } else if (e.allowed() && e.key != null) {
                // A rate limit's admission, an outcome-counting reservation among them: the
                // request never ran, so nothing is charged, whatever the policy counts.
                e.refund(e.cost());
            }
        }
    }

    /**
     * Settles, with the response's final status, the reservations of the policies that count by
     * outcome ({@link Policy#charge()}), before the response's headers are written, so that
     * {@code RateLimit} shows the outcome: a refunded reservation is back in {@code r}. For an
     * adapter that knows the final status before it writes the headers (the JAX-RS response
     * filter); the release that ends the request later gives concurrency permits back and does
     * not settle the reservations again, whatever its ending. Does nothing after the release, on
     * a second call, or when no such policy applied. Call it from the thread that writes the
     * headers, before writing them; thread-safe against a release on another thread.
     *
     * @param status the response's status; 0 or less (unknown) keeps the reservations
     */
    public void settle(int status) {
        int s;
        do {
            s = (int) STATE.getVolatile(this);
            if ((s & HELD) == 0 || (s & SETTLED) != 0) {
                return;
            }
        } while (!STATE.compareAndSet(this, s, s | SETTLED));
        int ending = Math.max(0, status);
        for (Entry e = first(); e != null; e = after(e)) {
            if (e.holds() && !e.how.concurrency) {
                e.settle(ending);
            }
        }
    }

    /**
     * Starts the wait of a {@linkplain #shaped() shaped} request whose adapter waits without
     * holding a thread (a suspended servlet request, a timer on an event loop), so that the
     * client may go away meanwhile: from now until {@link #endDelay()}, any ending
     * ({@link #releaseAborted()}, {@link #releaseFailed()}, {@link #releaseTimedOut()},
     * {@link #release(int)}) means the request never ran, and gives back its place: every
     * admission is refunded by its receipt (the shaping schedule's slot, the rate limits' permits)
     * and its concurrency permits are released. An adapter that waits on its own thread, where
     * nothing can end the request during the wait, need not call it. Does nothing for a verdict
     * that is not shaped, or already ended.
     */
    public void beginDelay() {
        int s;
        do {
            s = (int) STATE.getVolatile(this);
            if ((s & SHAPED) == 0 || (s & DELAYED) != 0 || ended(s)) {
                return;
            }
        } while (!STATE.compareAndSet(this, s, s | DELAYED));
    }

    /**
     * Ends the wait started by {@link #beginDelay()}: the delay is over and the request proceeds,
     * its endings from now on are ordinary ones.
     *
     * @return {@code true} if the request may proceed; {@code false} if it was ended during the
     *     wait (its place given back): the adapter must not run the application for it
     */
    public boolean endDelay() {
        int s;
        do {
            s = (int) STATE.getVolatile(this);
            if ((s & DELAYED) == 0) {
                return !ended(s);
            }
        } while (!STATE.compareAndSet(this, s, s & ~DELAYED));
        return true;
    }

    /** Whether the ending ran (a verdict that never held anything never has one). */
    private static boolean ended(int s) {
        return (s & ENDED) != 0;
    }

    @Override
    public boolean released() {
        return ((int) STATE.getVolatile(this) & (HELD | DELAYED)) == 0;
    }

    @Override
    public String toString() {
        Entry binding = bindingEntry();
        StringBuilder b = new StringBuilder("Verdict{").append(outcome());
        for (Entry e = first(); e != null; e = after(e)) {
            b.append(e == binding ? ", *" : ", ").append(e);
        }
        return b.append('}').toString();
    }
}
