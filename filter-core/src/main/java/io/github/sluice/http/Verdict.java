package io.github.sluice.http;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.BodySink;
import io.github.sluice.request.HeaderSink;
import io.github.sluice.request.RequestView;
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
 * <h2>What an adapter does with it</h2>
 * <ul>
 *   <li>{@link #denied()}: set the status to {@link #status()}, call {@link #writeDenial} and
 *       stop: do not invoke the application. (Nothing is held; {@link #release()} is a no-op.)
 *   <li>{@link #shaped()}: wait {@link #delayNanos()} (without holding a container thread if the
 *       container allows it), then proceed as for allowed.
 *   <li>allowed: call {@link #writeHeaders} before the response is committed, invoke the
 *       application, and call {@link #release()} when the response completes, however it
 *       completes (normal, async, error, timeout, client abort).
 * </ul>
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
 * policy's decision (96 bytes: the decision's numbers, the policy, the key, the partition, and the
 * request's own cost with the byte that says whether it was refused); there is no array. The header values that do not change between requests
 * ({@code RateLimit-Policy}, the header names) are formatted once per policy set; a policy's
 * {@code RateLimit} member and {@code Retry-After} value are reused while their numbers repeat
 * (a full bucket, a flood on one key), and formatted into one string of the exact size otherwise.
 *
 * <p>A verdict is not thread-safe, except {@link #release()} and {@link #released()}, which may
 * be called from any thread. Once returned by the enforcer it does not change, apart from the
 * release state.
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

    Verdict() {
    }

    /**
     * One applied policy: how it is applied, the request's key, and the policy's decision. It is
     * the policy's {@link Claim} in {@link Store#acquireAll}.
     */
    static final class Entry extends MutableDecision implements Claim {
        final Enforcement how;
        final String key;
        /* The next entry of the same kind (enforced or dry-run). */
        Entry next;
        /* The request's partition of an adaptive algorithm, or NO_PARTITION. */
        final int partition;
        /* The permits asked for: the policy's cost, or this request's (CostReader). */
        final long cost;
        /* Why the entry is refused before the store is asked, or CostReader.NONE; a byte fits the padding. */
        final byte refusal;

        /** @param cost the request's cost as {@link CostReader#read} returns it, or a constant */
        Entry(Enforcement how, String key, int partition, long cost) {
            this.how = how;
            this.key = key;
            this.partition = partition;
            this.refusal = CostReader.refusal(how, cost);
            this.cost = CostReader.charged(how, cost);
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
        public Entry next() {
            return next;
        }

        /** @return {@code true} if this entry holds concurrency permits until the request ends */
        boolean holds() {
            return how.concurrency && allowed();
        }

        void tell(EnforcementListener listener, RequestView request) {
            try {
                if (listener instanceof EnforcerMetrics metrics) {
                    // The enforcer's own counting: its policy's counters are found once, not by name.
                    PolicyMetrics counts = how.counts(metrics);
                    switch (outcome()) {
                        case ALLOWED -> metrics.allowed(counts, how.policy, key, this);
                        case SHAPED -> metrics.shaped(counts, how.policy, key, this);
                        case DENIED -> metrics.denied(counts, how.policy, key, this, request);
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

        /** @param ending a status ({@code >= 0}, 0 for unknown), {@link #TIMED_OUT} or {@link #FAILED} */
        void release(int ending) {
            // The receipt carries the admission's clock reading to algorithms that learn from
            // how long requests take (adaptive limits); the others ignore it. A failure teaches
            // nothing: released without the receipt.
            boolean dropped = ending == TIMED_OUT || (how.adaptive && how.policy.drop().contains(ending));
            long unmatched = how.space.release(key, cost,
                    ending == FAILED ? MutableDecision.NO_RECEIPT : receipt(), dropped);
            EnforcementListener told = how.group.enforcer.told();
            try {
                if (told instanceof EnforcerMetrics metrics) {
                    // As in tell(): the policy's counters found once, not by name at every release.
                    metrics.released(how.counts(metrics), how.policy, key, cost);
                } else {
                    told.released(how.policy, key, cost);
                }
            } catch (RuntimeException ignored) {
                // See EnforcementListener.
            }
            if (unmatched > 0) {
                how.unmatchedRelease(key, unmatched); // a bug somewhere: never on the normal path
            }
        }

        @Override
        public String toString() {
            return how.policy.name() + (how.dryRun ? "(dry-run)" : "") + '=' + super.toString();
        }
    }

    /** How a request ended, for {@link Entry#release(int)}, besides a status. */
    private static final int TIMED_OUT = -1;
    private static final int FAILED = -2;

    /**
     * Appends an entry for {@code how}, after the entries of its kind.
     *
     * @param cost the request's cost, as {@link CostReader#read} returns it, or the constant cost
     */
    void add(Enforcement how, String key, int partition, long cost) {
        Entry e = new Entry(how, key, partition, cost);
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
        boolean admitted = enforced == null || ((state & UNKEYED) == 0 ? store.acquireAll(enforced) : refuseUnresolved());
        for (Entry e = dryRun; e != null; e = e.next) {
            if (e.refusedEarly()) {
                e.deny(e.how.policy.algorithm().limit(), 0, 0, Decision.NEVER);
            } else {
                e.how.space.acquire(e.key, e.partition, admitted ? e.cost : 0, e);
            }
        }
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
                : d.degraded() && d.denialStatus() != 0 ? d.denialStatus() : p.status();
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
            RateLimitHeaders.write(this, first.how.group, sink);
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
     * this verdict was returned.
     */
    @Override
    public void release() {
        end(0);
    }

    /**
     * Like {@link #release()}, for a request that ended with {@code status}: a drop for each
     * adaptive policy whose {@linkplain Policy#drop() drop statuses} hold it.
     *
     * @param status the response's HTTP status
     */
    @Override
    public void release(int status) {
        end(Math.max(0, status));
    }

    /** Like {@link #release()}, for a request that timed out: a drop for every adaptive policy. */
    @Override
    public void releaseTimedOut() {
        end(TIMED_OUT);
    }

    /**
     * Like {@link #release()}, for a request ended by an exception or a client that went away:
     * adaptive policies learn nothing from it.
     */
    @Override
    public void releaseFailed() {
        end(FAILED);
    }

    private void end(int ending) {
        int s = (int) STATE.getVolatile(this);
        if ((s & HELD) == 0 || !STATE.compareAndSet(this, s, s & ~HELD)) {
            return;
        }
        for (Entry e = first(); e != null; e = after(e)) {
            if (e.holds()) {
                e.release(ending);
            }
        }
    }

    @Override
    public boolean released() {
        return ((int) STATE.getVolatile(this) & HELD) == 0;
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
