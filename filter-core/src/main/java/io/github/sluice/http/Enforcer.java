package io.github.sluice.http;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.Keys;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.Store;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Applies policies to requests: the one object an adapter calls.
 *
 * <h2>Per request</h2>
 * <ol>
 *   <li>Select the policies: those whose {@link io.github.sluice.policy.Match} fits the method and path
 *       ({@link #enforce(RequestView)}), or an explicit {@link PolicySet}
 *       ({@link #enforce(RequestView, PolicySet)}).
 *   <li>For each, resolve the key ({@code null}: the policy does not apply), bound its length,
 *       and skip the policy if its allow-list matches.
 *   <li>Acquire on every enforced policy <em>all or nothing</em> ({@link Store#acquireAll}): if
 *       one denies, the permits the others took are refunded, each with its admission's receipt,
 *       so that they go back to the window, slot, log entries or schedule they came from and to
 *       nothing that later requests own. Dry-run policies are then
 *       acquired on their own (peeked only, if an enforced one denied): they report but never
 *       deny, never delay, and never roll back the enforced ones.
 *   <li>Return a {@link Verdict}; tell the {@link EnforcementListener}.
 * </ol>
 *
 * <h2>Allocation</h2>
 * A request that no policy applies to allocates nothing (a shared verdict). Otherwise a request
 * allocates its {@link Verdict}, two arrays (keys and decisions) sized to the policies that may
 * apply, and one {@link MutableDecision} per applied policy; the verdict reads the enforcer's own
 * arrays of policies, key spaces and costs, and copies them (three more arrays) only when the
 * applied policies are not the configured ones in order (a policy skipped, a dry-run policy before
 * an enforced one, a selection by name, a cost override). Resolvers allocate the key strings they
 * build: {@code ip} returns a direct IPv4 peer's own string, {@code global}, {@code constant} and
 * {@code principal} return existing strings, {@code header} allocates only to trim whitespace,
 * a fallback chain allocates its tagged key. Headers are formatted only when
 * {@link Verdict#writeHeaders} is called, and those strings are the only other allocation on an
 * allowed request. No lock is taken; the store's acquisitions are lock-free.
 *
 * <p>Thread-safe. {@link #close()} closes the store if the enforcer created it.
 */
public final class Enforcer implements AutoCloseable {

    private final Policy[] policies;
    private final KeySpace[] spaces;
    private final long[] costs;
    private final Map<String, Integer> byName;
    private final Store store;
    private final boolean ownsStore;
    private final HeaderOptions headers;
    private final DenialBody denialBody;
    private final EnforcementListener listener;
    private final ClientAddress addresses;
    private final int maxKeyLength;
    private final EnforcerMetrics metrics;
    /** Run once by {@link #close()}: e.g. the JMX registration's removal ({@link EnforcerJmx}). */
    private final List<Runnable> onClose = new java.util.concurrent.CopyOnWriteArrayList<>();

    private Enforcer(Builder b) {
        this.policies = b.policies.toArray(new Policy[0]);
        this.metrics = b.listener instanceof EnforcerMetrics m ? m
                : EnforcerMetrics.builder().next(b.listener).clock(b.clock).build();
        this.listener = b.metrics ? metrics : b.listener;
        if (b.store != null) {
            this.store = b.store;
            this.ownsStore = false;
        } else {
            this.store = ShardedRegistry.builder().clock(b.clock).listener(listener)
                    .maxKeyLength(b.maxKeyLength).build();
            this.ownsStore = true;
        }
        this.spaces = new KeySpace[policies.length];
        this.costs = new long[policies.length];
        this.byName = new HashMap<>();
        for (int i = 0; i < policies.length; i++) {
            spaces[i] = store.keySpace(policies[i].name(), policies[i].algorithm());
            costs[i] = policies[i].cost();
            byName.put(policies[i].name(), i);
        }
        metrics.track(List.of(policies), List.of(spaces));
        this.headers = b.headers;
        this.denialBody = b.denialBody;
        this.addresses = b.addresses;
        this.maxKeyLength = b.maxKeyLength;
    }

    /** @return a builder with the defaults documented on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Decides a request against the policies whose match fits its method and path.
     *
     * @param request the request
     * @return the verdict, never {@code null}
     * @throws NullPointerException if {@code request} is null
     */
    public Verdict enforce(RequestView request) {
        String method = request.method();
        String path = request.path();
        Verdict v = null;
        for (int i = 0; i < policies.length; i++) {
            if (policies[i].match().matches(method, path)) {
                v = add(v, request, i, policies[i].cost(), policies.length);
            }
        }
        return decide(v);
    }

    /**
     * Decides a request against policies selected by name, ignoring their match.
     *
     * @param request the request
     * @param selection policies and cost, from {@link #select}
     * @return the verdict, never {@code null}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the selection comes from another enforcer
     */
    public Verdict enforce(RequestView request, PolicySet selection) {
        Objects.requireNonNull(request, "request");
        if (selection.owner != this) {
            throw new IllegalArgumentException(selection + " was not selected from this enforcer");
        }
        int[] idx = selection.indices;
        Verdict v = null;
        for (int i : idx) {
            v = add(v, request, i, selection.cost > 0 ? selection.cost : policies[i].cost(), idx.length);
        }
        return decide(v);
    }

    /**
     * Selects policies by name, each with its own cost.
     *
     * @param names policy names
     * @return the selection
     * @throws IllegalArgumentException if a name is unknown or repeated, or none is given
     */
    public PolicySet select(String... names) {
        return select(List.of(names), 0);
    }

    /**
     * Selects policies by name with a cost that replaces each policy's own.
     *
     * @param names policy names, at least one
     * @param cost permits per request for every selected policy, {@code >= 1}, or {@code 0} for
     *     each policy's own cost
     * @return the selection
     * @throws IllegalArgumentException if a name is unknown or repeated, none is given, the cost is
     *     negative, or it exceeds a selected policy's limit (no request could ever pass)
     */
    public PolicySet select(Collection<String> names, long cost) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("a policy selection needs at least one policy name");
        }
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be >= 0 but was " + cost);
        }
        int[] idx = new int[names.size()];
        List<String> ordered = new ArrayList<>(names);
        for (int k = 0; k < idx.length; k++) {
            String name = ordered.get(k);
            Integer i = byName.get(name);
            if (i == null) {
                throw new IllegalArgumentException("unknown policy '" + name + "'; known policies: " + byName.keySet());
            }
            if (ordered.subList(0, k).contains(name)) {
                throw new IllegalArgumentException("policy '" + name + "' is selected twice");
            }
            if (cost > policies[i].algorithm().limit()) {
                throw new IllegalArgumentException("cost must be <= the limit " + policies[i].algorithm().limit()
                        + " of policy '" + name + "' but was " + cost);
            }
            idx[k] = i;
        }
        return new PolicySet(this, idx, cost, ordered);
    }

    private Verdict add(Verdict v, RequestView request, int i, long cost, int capacity) {
        Policy p = policies[i];
        String key = Keys.bound(p.key().resolve(request), maxKeyLength);
        if (key == null || (!p.allow().isEmpty() && p.allow().allows(key, request, addresses))) {
            return v;
        }
        if (v == null) {
            v = new Verdict(this, capacity);
        }
        v.add(i, p, spaces[i], key, cost);
        return v;
    }

    private Verdict decide(Verdict v) {
        if (v == null) {
            return Verdict.NONE;
        }
        v.seal();
        int n = v.size();
        int denied = v.enforced == 0 ? -1
                : store.acquireAll(v.spaces, v.keys, v.costs, v.decisions, v.enforced);
        for (int i = v.enforced; i < n; i++) {
            // A dry-run policy never rolls back enforced ones; after a denial it only peeks.
            v.spaces[i].acquire(v.keys[i], denied >= 0 ? 0 : v.costs[i], v.decisions[i]);
        }
        conclude(v, denied);
        v.holdIfNeeded();
        notifyListener(v, denied);
        return v;
    }

    private static void conclude(Verdict v, int denied) {
        if (denied >= 0) {
            v.outcome = Outcome.DENIED;
            int binding = denied;
            for (int i = 0; i < v.enforced; i++) {
                MutableDecision d = v.decisions[i];
                if (d.outcome() == Outcome.DENIED
                        && d.retryAfterNanos() > v.decisions[binding].retryAfterNanos()) {
                    binding = i;
                }
            }
            v.binding = binding;
            MutableDecision d = v.decisions[binding];
            v.status = d.degraded() && d.denialStatus() != 0 ? d.denialStatus() : v.policies[binding].status();
            return;
        }
        long delay = 0;
        for (int i = 0; i < v.enforced; i++) {
            if (v.decisions[i].outcome() == Outcome.SHAPED) {
                delay = Math.max(delay, v.decisions[i].delayNanos());
            }
        }
        if (delay > 0) {
            v.outcome = Outcome.SHAPED;
            v.delayNanos = delay;
        }
        int from = v.enforced > 0 ? 0 : v.enforced;
        int to = v.enforced > 0 ? v.enforced : v.size();
        int binding = from;
        for (int i = from + 1; i < to; i++) {
            if (RateLimitHeaders.closer(v.decisions[i], v.decisions[binding])) {
                binding = i;
            }
        }
        v.binding = binding;
    }

    private void notifyListener(Verdict v, int denied) {
        if (listener == EnforcementListener.NONE) {
            return;
        }
        int n = v.size();
        for (int i = 0; i < n; i++) {
            MutableDecision d = v.decisions[i];
            if (denied >= 0 && (i >= v.enforced || d.outcome() != Outcome.DENIED)) {
                continue; // after a denial the others were given back or only peeked
            }
            try {
                switch (d.outcome()) {
                    case ALLOWED -> listener.allowed(v.policies[i], v.keys[i], d);
                    case SHAPED -> listener.shaped(v.policies[i], v.keys[i], d);
                    case DENIED -> listener.denied(v.policies[i], v.keys[i], d);
                }
            } catch (RuntimeException ignored) {
                // A listener must never change a decision; see EnforcementListener.
            }
        }
    }

    void release(Policy policy, KeySpace space, String key, long cost) {
        space.release(key, cost);
        try {
            listener.released(policy, key, cost);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    /** The verdict reads these without copying them, and never writes them. */
    Policy[] policyArray() {
        return policies;
    }

    KeySpace[] spaceArray() {
        return spaces;
    }

    long[] costArray() {
        return costs;
    }

    /** @return the policies, in configuration order */
    public List<Policy> policies() {
        return List.of(policies);
    }

    /** @return the store holding the policies' state */
    public Store store() {
        return store;
    }

    /** @return how headers are written */
    public HeaderOptions headerOptions() {
        return headers;
    }

    /** @return the renderer of denial bodies */
    public DenialBody denialBody() {
        return denialBody;
    }

    /** @return the listener the enforcer tells: its {@link #metrics()}, which pass events on to the configured one */
    public EnforcementListener listener() {
        return listener;
    }

    /**
     * Returns the enforcer's counts per policy. They stay at zero if counting was turned off
     * ({@link Builder#metrics(boolean)}).
     *
     * @return the metrics, never {@code null}
     */
    public EnforcerMetrics metrics() {
        return metrics;
    }

    /** Runs {@code action} when the enforcer closes (once, in the order added). */
    void onClose(Runnable action) {
        onClose.add(action);
    }

    /** @return the resolver of client addresses used by allow-lists */
    public ClientAddress clientAddress() {
        return addresses;
    }

    /** @return the bound on key length, in characters */
    public int maxKeyLength() {
        return maxKeyLength;
    }

    /** Unregisters the enforcer's MBean ({@link EnforcerJmx}), if any, and closes the store if this enforcer created it. */
    @Override
    public void close() {
        for (Runnable r : onClose) {
            if (onClose.remove(r)) {
                r.run();
            }
        }
        if (ownsStore) {
            store.close();
        }
    }

    @Override
    public String toString() {
        return "Enforcer{policies=" + byName.keySet() + ", store=" + store + '}';
    }

    /** Builds an {@link Enforcer}. Not thread-safe. */
    public static final class Builder {
        private final List<Policy> policies = new ArrayList<>();
        private Store store;
        private Clock clock = Clock.system();
        private HeaderOptions headers = HeaderOptions.DEFAULT;
        private DenialBody denialBody = ProblemBody.standard();
        private EnforcementListener listener = new LoggingListener();
        private ClientAddress addresses = ClientAddress.DIRECT;
        private int maxKeyLength = Keys.DEFAULT_MAX_LENGTH;
        private boolean metrics = true;

        private Builder() {
        }

        /**
         * Adds a policy.
         *
         * @param policy the policy
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder policy(Policy policy) {
            policies.add(Objects.requireNonNull(policy, "policy"));
            return this;
        }

        /**
         * Adds policies, in order.
         *
         * @param policies the policies
         * @return this builder
         * @throws NullPointerException if an element is null
         */
        public Builder policies(Collection<Policy> policies) {
            policies.forEach(this::policy);
            return this;
        }

        /**
         * Sets where state lives. Default: a new {@link ShardedRegistry} on {@link #clock}, told of
         * evictions through the {@link #listener}, closed with the enforcer.
         *
         * @param store the store; the caller keeps ownership (the enforcer does not close it)
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder store(Store store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * Sets the clock of the default store. Ignored when a store is given.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Sets how headers are written. Default {@link HeaderOptions#DEFAULT}.
         *
         * @param headers the options
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder headers(HeaderOptions headers) {
            this.headers = Objects.requireNonNull(headers, "headers");
            return this;
        }

        /**
         * Sets the renderer of denial bodies. Default {@link ProblemBody#standard()}.
         *
         * @param denialBody the renderer
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder denialBody(DenialBody denialBody) {
            this.denialBody = Objects.requireNonNull(denialBody, "denialBody");
            return this;
        }

        /**
         * Sets who is told of decisions. Default a {@link LoggingListener}. The enforcer's
         * {@link Enforcer#metrics() metrics} count first and pass every event on to it; a listener
         * that is an {@link EnforcerMetrics} becomes the enforcer's metrics (e.g. one a Redis store
         * also reports to).
         *
         * @param listener the listener ({@link EnforcementListener#NONE} for nobody)
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder listener(EnforcementListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Sets whether the enforcer counts its decisions ({@link Enforcer#metrics()}). Default
         * {@code true}; the cost is one {@code LongAdder} increment per applied policy. A listener
         * that is itself an {@link EnforcerMetrics} counts whatever this says.
         *
         * @param metrics {@code false} to tell the configured listener directly
         * @return this builder
         */
        public Builder metrics(boolean metrics) {
            this.metrics = metrics;
            return this;
        }

        /**
         * Sets how allow-lists find the client's address. Default {@link ClientAddress#DIRECT}.
         *
         * @param addresses the resolver
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder clientAddress(ClientAddress addresses) {
            this.addresses = Objects.requireNonNull(addresses, "addresses");
            return this;
        }

        /**
         * Sets the bound on key length; longer keys are hashed ({@link Keys}). Default 128.
         *
         * @param maxKeyLength characters, 40..4096
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxKeyLength(int maxKeyLength) {
            if (maxKeyLength < 40 || maxKeyLength > 4096) {
                throw new IllegalArgumentException("max-key-length must be between 40 and 4096 but was " + maxKeyLength);
            }
            this.maxKeyLength = maxKeyLength;
            return this;
        }

        /**
         * @return the enforcer
         * @throws IllegalArgumentException if two policies share a name, or the store refuses a policy
         */
        public Enforcer build() {
            List<String> seen = new ArrayList<>();
            for (Policy p : policies) {
                if (seen.contains(p.name())) {
                    throw new IllegalArgumentException("policy name '" + p.name() + "' is used twice");
                }
                seen.add(p.name());
            }
            return new Enforcer(this);
        }
    }
}
