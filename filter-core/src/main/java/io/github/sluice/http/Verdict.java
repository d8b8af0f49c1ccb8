package io.github.sluice.http;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.BodySink;
import io.github.sluice.request.HeaderSink;
import io.github.sluice.store.KeySpace;
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
 * Indices {@code 0 .. size()-1} are the policies that applied, enforced ones first in
 * configuration order, then dry-run ones. A policy whose key resolver returned {@code null} or
 * whose allow-list matched the request is not an entry.
 *
 * <p>A verdict is not thread-safe, except {@link #release()} and {@link #released()}, which may
 * be called from any thread. Once created it does not change, apart from the release state.
 */
public final class Verdict implements ReleaseHandle {

    /** The verdict of a request no policy applied to: allowed, no headers, nothing held. */
    static final Verdict NONE = new Verdict(null, 0);

    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(Verdict.class, "released", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Enforcer enforcer;
    /*
     * Policies, key spaces and costs start as the enforcer's own arrays: when the applied
     * policies are a prefix of the configured ones, in order and with their own costs (the common
     * case), the verdict allocates no copy of them. The first entry that breaks the pattern makes
     * private copies; the enforcer's arrays are never written.
     */
    Policy[] policies;
    KeySpace[] spaces;
    long[] costs;
    private boolean shared;
    final String[] keys;
    final MutableDecision[] decisions;
    /** Entries {@code [0, enforced)} are enforced, the next {@code dry} are dry-run (after {@link #seal}). */
    int enforced;
    int dry;
    Outcome outcome = Outcome.ALLOWED;
    int binding = -1;
    long delayNanos;
    int status;
    private volatile int released;

    Verdict(Enforcer enforcer, int capacity) {
        this.enforcer = enforcer;
        this.keys = new String[capacity];
        this.decisions = new MutableDecision[capacity];
        if (enforcer == null) {
            this.policies = new Policy[0];
            this.spaces = new KeySpace[0];
            this.costs = new long[0];
        } else {
            this.policies = enforcer.policyArray();
            this.spaces = enforcer.spaceArray();
            this.costs = enforcer.costArray();
            this.shared = true;
        }
        this.released = 1;
    }

    /**
     * Appends an entry.
     *
     * @param index the policy's index in the enforcer
     */
    void add(int index, Policy policy, KeySpace space, String key, long cost) {
        int i = enforced + dry;
        if (shared && (index != i || costs[i] != cost)) {
            unshare();
        }
        if (!shared) {
            policies[i] = policy;
            spaces[i] = space;
            costs[i] = cost;
        }
        keys[i] = key;
        decisions[i] = new MutableDecision();
        if (policy.dryRun()) {
            dry++;
        } else {
            enforced++;
        }
    }

    private void unshare() {
        int capacity = keys.length;
        int n = enforced + dry;
        Policy[] p = new Policy[capacity];
        KeySpace[] s = new KeySpace[capacity];
        long[] c = new long[capacity];
        System.arraycopy(policies, 0, p, 0, n);
        System.arraycopy(spaces, 0, s, 0, n);
        System.arraycopy(costs, 0, c, 0, n);
        policies = p;
        spaces = s;
        costs = c;
        shared = false;
    }

    /** Stable partition: enforced entries first, dry-run entries after, each in the order added. */
    void seal() {
        if (dry == 0 || enforced == 0) {
            return;
        }
        int n = enforced + dry;
        for (int i = 1; i < n; i++) {
            for (int j = i; j > 0 && !policies[j].dryRun() && policies[j - 1].dryRun(); j--) {
                if (shared) {
                    unshare();
                }
                swap(j, j - 1);
            }
        }
    }

    private void swap(int a, int b) {
        Policy p = policies[a];
        policies[a] = policies[b];
        policies[b] = p;
        KeySpace s = spaces[a];
        spaces[a] = spaces[b];
        spaces[b] = s;
        String k = keys[a];
        keys[a] = keys[b];
        keys[b] = k;
        long c = costs[a];
        costs[a] = costs[b];
        costs[b] = c;
        MutableDecision d = decisions[a];
        decisions[a] = decisions[b];
        decisions[b] = d;
    }

    /** Arms the release handle if any concurrency permit is held. */
    void holdIfNeeded() {
        if (outcome == Outcome.DENIED) {
            return;
        }
        for (int i = 0; i < size(); i++) {
            if (policies[i].concurrency() && decisions[i].allowed()) {
                released = 0;
                return;
            }
        }
    }

    /** @return what was decided for the request */
    public Outcome outcome() {
        return outcome;
    }

    /** @return {@code true} if the request proceeds, now or after {@link #delayNanos()} */
    public boolean admitted() {
        return outcome != Outcome.DENIED;
    }

    /** @return {@code true} if the request must wait {@link #delayNanos()} before proceeding */
    public boolean shaped() {
        return outcome == Outcome.SHAPED;
    }

    /** @return {@code true} if the request is refused */
    public boolean denied() {
        return outcome == Outcome.DENIED;
    }

    /** @return for a shaped verdict, the nanoseconds to wait (the longest delay of the enforced policies); else 0 */
    public long delayNanos() {
        return delayNanos;
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
        return status;
    }

    /**
     * Returns the value of {@code Retry-After}: delta-seconds, rounded up, at least 1, never earlier
     * than the {@code t} announced for the binding policy.
     *
     * @return seconds, {@code >= 1}
     * @throws IllegalStateException if the verdict is not a denial
     */
    public long retryAfterSeconds() {
        requireDenied("retryAfterSeconds");
        return Math.max(1, RateLimitHeaders.resetSeconds(this, binding));
    }

    private void requireDenied(String what) {
        if (outcome != Outcome.DENIED) {
            throw new IllegalStateException(what + " is defined for a denial only, but the verdict is " + outcome);
        }
    }

    /** @return the number of policies that applied */
    public int size() {
        return enforced + dry;
    }

    /**
     * @param i an entry, {@code 0 <= i < size()}
     * @return the entry's policy
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public Policy policy(int i) {
        return policies[Objects.checkIndex(i, size())];
    }

    /**
     * @param i an entry
     * @return the entry's key (bounded: over-long keys are hashed)
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public String key(int i) {
        return keys[Objects.checkIndex(i, size())];
    }

    /**
     * @param i an entry
     * @return the permits the entry asked for
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public long cost(int i) {
        return costs[Objects.checkIndex(i, size())];
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
        return decisions[Objects.checkIndex(i, size())].toDecision();
    }

    /**
     * @param i an entry
     * @return {@code true} if the entry's policy is dry-run (reported, never enforced)
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public boolean dryRun(int i) {
        return Objects.checkIndex(i, size()) >= enforced;
    }

    /**
     * @param i an entry
     * @return {@code true} if the entry's decision was taken without the authoritative store
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public boolean degraded(int i) {
        return decisions[Objects.checkIndex(i, size())].degraded();
    }

    /**
     * @param i an entry
     * @return {@code true} if the entry is an enforced policy that denied the request
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public boolean violated(int i) {
        return Objects.checkIndex(i, size()) < enforced && decisions[i].outcome() == Outcome.DENIED;
    }

    /**
     * @param i an entry
     * @return {@code false} if the entry denied a request that can never pass (cost above capacity)
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public boolean retryable(int i) {
        return decisions[Objects.checkIndex(i, size())].retryAfterNanos() != Decision.NEVER;
    }

    /**
     * Returns the binding entry: for a denial, the denying policy with the longest retry-after;
     * otherwise the enforced policy closest to exhaustion (smallest share of its quota left), or,
     * with only dry-run policies, the dry-run one closest to exhaustion.
     *
     * @return the entry's index, or {@code -1} if no policy applied
     */
    public int binding() {
        return binding;
    }

    /** @return {@code true} if a dry-run policy would have denied this request */
    public boolean dryRunDenied() {
        for (int i = enforced; i < size(); i++) {
            if (decisions[i].outcome() == Outcome.DENIED) {
                return true;
            }
        }
        return false;
    }

    /** @return the names of the enforced policies that denied the request (allocates) */
    public List<String> violatedPolicies() {
        List<String> out = new ArrayList<>(1);
        for (int i = 0; i < enforced; i++) {
            if (decisions[i].outcome() == Outcome.DENIED) {
                out.add(policies[i].name());
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
        if (enforcer != null && size() > 0) {
            RateLimitHeaders.write(this, enforcer.headerOptions(), sink);
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
        DenialBody renderer = enforcer.denialBody();
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
        if (released != 0 || !RELEASED.compareAndSet(this, 0, 1)) {
            return;
        }
        for (int i = 0; i < size(); i++) {
            if (policies[i].concurrency() && decisions[i].allowed()) {
                enforcer.release(policies[i], spaces[i], keys[i], costs[i]);
            }
        }
    }

    @Override
    public boolean released() {
        return released != 0;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Verdict{").append(outcome);
        for (int i = 0; i < size(); i++) {
            b.append(i == binding ? ", *" : ", ").append(policies[i].name())
                    .append(i >= enforced ? "(dry-run)" : "").append('=').append(decisions[i]);
        }
        return b.append('}').toString();
    }
}
