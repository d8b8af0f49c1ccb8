package io.github.sluice.http;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.StoreLatency;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Counts what an enforcer decides, per policy, and passes every event on to the next listener:
 * the numbers behind Sluice's JMX MXBean ({@link EnforcerJmx}) and the {@code sluice-micrometer}
 * binder.
 *
 * <h2>How it is attached</h2>
 * Every {@link Enforcer} counts: unless told otherwise ({@link Enforcer.Builder#metrics(boolean)}),
 * it puts an {@code EnforcerMetrics} in front of the listener it was given, so the configured
 * listener (the {@link LoggingListener} by default) still hears everything. {@link Enforcer#metrics()}
 * returns it. To also count what a shared store reports (Redis degraded and recovered), build the
 * metrics first and give the same object to the store and to the enforcer, which then uses it
 * rather than adding its own:
 *
 * <pre>{@code
 * EnforcerMetrics metrics = EnforcerMetrics.builder().next(new LoggingListener()).build();
 * RedisStore store = RedisStore.builder().uri(url).listener(metrics).build();
 * Enforcer enforcer = Enforcer.builder().policies(policies).store(store).listener(metrics).build();
 * assert enforcer.metrics() == metrics;
 * }</pre>
 *
 * <h2>Cost</h2>
 * The enforcer registers each configured policy when it is built ({@link #track}), so that the
 * counters exist, at zero, before the first request. Counting one decision is a lookup of the
 * policy's name in a concurrent map (no lock) and a {@code LongAdder} increment: no lock and no
 * allocation on the request path. Only the first event of a policy never registered, the first
 * denial under a new status, and the first event of a store allocate, once.
 *
 * <h2>Keys are never metrics</h2>
 * Nothing here is indexed by a client's key: keys are unbounded (a flood of spoofed addresses
 * would be a flood of time series) and personal. Policies are counted by name; two enforcers that
 * share one {@code EnforcerMetrics} and both have a policy of the same name count into the same
 * {@link PolicyMetrics}.
 *
 * <p>Thread-safe. Events are counted before they are passed on; an exception from the next
 * listener is caught and ignored, as the enforcer does for its listener.
 */
public final class EnforcerMetrics implements EnforcementListener {

    /**
     * Told when a new series of numbers appears, so that a meter registry can add a meter for it.
     * Called on the thread that caused it (possibly a request's, once per series); must be fast and
     * must not throw (an exception is caught and ignored).
     */
    public interface Observer {

        /**
         * A policy is counted from now on.
         *
         * @param policy its counters
         */
        default void policyAdded(PolicyMetrics policy) {
        }

        /**
         * A policy refused a request with a status it had not refused with before (a degraded
         * store's status; the policy's own status is there from the start).
         *
         * @param policy its counters
         * @param status the HTTP status
         */
        default void statusAdded(PolicyMetrics policy, int status) {
        }

        /**
         * A store reported its first event.
         *
         * @param store its health
         */
        default void storeAdded(StoreHealth store) {
        }

        /**
         * An enforcer with a store that times its round trips was built with these metrics.
         *
         * @param latency the store's latency histogram
         */
        default void storeLatencyAdded(StoreLatency latency) {
        }
    }

    private final EnforcementListener next;
    private final Clock clock;
    private final ConcurrentHashMap<String, PolicyMetrics> policies = new ConcurrentHashMap<>();
    /** Policy names in the order they were first counted. */
    private final List<String> order = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<String, StoreHealth> stores = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, StoreLatency> latencies = new ConcurrentHashMap<>();
    private final List<Observer> observers = new CopyOnWriteArrayList<>();
    private final int topClients;
    private final boolean topClientsAdmitted;
    private final java.util.concurrent.atomic.LongAdder reloadsApplied = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder reloadsRefused = new java.util.concurrent.atomic.LongAdder();

    private EnforcerMetrics(Builder b) {
        this.next = b.next;
        this.clock = b.clock;
        this.topClients = b.topClients;
        this.topClientsAdmitted = b.topClientsAdmitted;
    }

    /** @return counters per policy and minute of the heavy hitters ({@link TopClients}); 0 when not kept */
    public int topClients() {
        return topClients;
    }

    /** @return {@code true} if the heavy hitters by admitted requests are kept too */
    public boolean topClientsAdmitted() {
        return topClientsAdmitted;
    }

    Clock clock() {
        return clock;
    }

    /**
     * Counts a version of the watched configuration file that was decided
     * ({@link io.github.sluice.config.ConfigWatch}): applied, or refused with a WARNING (a bad
     * line, a setting that cannot change while running, a file cut by a write). Called by the watch.
     *
     * @param applied {@code true} if the version was put in force
     */
    public void recordConfigReload(boolean applied) {
        (applied ? reloadsApplied : reloadsRefused).increment();
    }

    /** @return versions of the watched configuration file put in force since start-up */
    public long configReloadsApplied() {
        return reloadsApplied.sum();
    }

    /** @return versions of the watched configuration file refused since start-up (the policies in force stayed) */
    public long configReloadsRefused() {
        return reloadsRefused.sum();
    }

    /** @return a builder with the defaults documented on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Registers an enforcer's policies, so that they are counted from zero before any request, and
     * their key counts can be read. A policy already counted under the same name keeps its
     * counters, and reports the version given here as its {@link PolicyMetrics#policy()} (the
     * version in force after a change); its key space is replaced if one is given.
     *
     * @param policies the policies, in configuration order
     * @param spaces the key space of each policy, same order, or {@code null} if not known
     * @throws NullPointerException if {@code policies} or an element is null
     * @throws IllegalArgumentException if {@code spaces} is not as long as {@code policies}
     */
    public void track(List<Policy> policies, List<KeySpace> spaces) {
        if (spaces != null && spaces.size() != policies.size()) {
            throw new IllegalArgumentException("spaces must have one key space per policy (" + policies.size()
                    + ") but had " + spaces.size());
        }
        for (int i = 0; i < policies.size(); i++) {
            Policy p = Objects.requireNonNull(policies.get(i), "policy");
            KeySpace space = spaces == null ? null : spaces.get(i);
            PolicyMetrics m = of(p);
            m.inForce(p);
            if (space != null) {
                m.space(space);
            }
        }
    }

    /** Creates the counters of a policy not yet counted; once per policy name. */
    private PolicyMetrics add(Policy p) {
        PolicyMetrics m;
        synchronized (this) {
            PolicyMetrics old = policies.get(p.name());
            if (old != null) {
                return old;
            }
            m = new PolicyMetrics(this, p);
            policies.put(p.name(), m);
            order.add(p.name());
        }
        for (Observer o : observers) {
            try {
                o.policyAdded(m);
            } catch (RuntimeException ignored) {
                // See Observer.
            }
        }
        return m;
    }

    private PolicyMetrics of(Policy p) {
        PolicyMetrics m = policies.get(p.name());
        return m != null ? m : add(p);
    }

    void statusAdded(PolicyMetrics policy, int status) {
        for (Observer o : observers) {
            try {
                o.statusAdded(policy, status);
            } catch (RuntimeException ignored) {
                // See Observer.
            }
        }
    }

    /**
     * Adds an observer of new series.
     *
     * @param observer the observer
     * @throws NullPointerException if null
     */
    public void observe(Observer observer) {
        observers.add(Objects.requireNonNull(observer, "observer"));
    }

    /**
     * Removes an observer.
     *
     * @param observer the observer
     */
    public void unobserve(Observer observer) {
        observers.remove(observer);
    }

    /**
     * Returns one policy's counters.
     *
     * @param name the policy's name
     * @return its counters
     * @throws IllegalArgumentException if no policy of that name is counted
     */
    public PolicyMetrics policy(String name) {
        PolicyMetrics m = policies.get(Objects.requireNonNull(name, "name"));
        if (m == null) {
            throw new IllegalArgumentException("policy '" + name + "' is not counted; counted policies: " + order);
        }
        return m;
    }

    /** @return every policy's counters, in the order they were first counted; a new list */
    public List<PolicyMetrics> policies() {
        List<PolicyMetrics> out = new ArrayList<>(order.size());
        for (String name : order) {
            out.add(policies.get(name));
        }
        return out;
    }

    /** @return the health of every store that reported an event, by name; an unmodifiable copy */
    public Map<String, StoreHealth> stores() {
        return Collections.unmodifiableMap(new java.util.TreeMap<>(stores));
    }

    /**
     * @return the round-trip latency of every store that times them ({@link io.github.sluice.store.Store#latency()}) and
     *     that an enforcer counting here was built with, by store name; an unmodifiable copy
     */
    public Map<String, StoreLatency> storeLatencies() {
        return Collections.unmodifiableMap(new java.util.TreeMap<>(latencies));
    }

    /**
     * Counts a store's round-trip latency from now on: called by the enforcer when it is built
     * with the store. The first store of a name is kept (a second one of the same name is not
     * exported: give stores distinct names).
     *
     * @param latency the store's histogram, or {@code null} (a store that times nothing)
     */
    void track(StoreLatency latency) {
        if (latency == null || latencies.putIfAbsent(latency.store(), latency) != null) {
            return;
        }
        for (Observer o : observers) {
            try {
                o.storeLatencyAdded(latency);
            } catch (RuntimeException ignored) {
                // See Observer.
            }
        }
    }

    /** @return the listener every event is passed on to */
    public EnforcementListener next() {
        return next;
    }

    @Override
    public void allowed(Policy policy, String key, MutableDecision decision) {
        allowed(of(policy), policy, key, decision);
    }

    @Override
    public void shaped(Policy policy, String key, MutableDecision decision) {
        shaped(of(policy), policy, key, decision);
    }

    @Override
    public void denied(Policy policy, String key, MutableDecision decision) {
        PolicyMetrics counts = of(policy);
        counts.recordDenied(decision);
        counts.recordDeniedKey(key, decision);
        counts.recordDegraded(decision);
        try {
            next.denied(policy, key, decision);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    @Override
    public void denied(Policy policy, String key, MutableDecision decision, RequestView request) {
        denied(of(policy), policy, key, decision, request);
    }

    /*
     * The events of an enforcer that found the policy's counters once (counters(Policy)) rather
     * than by name at every request: counted the same way, passed on the same way.
     */

    /** @return the counters of {@code policy}, created if it is not counted yet */
    PolicyMetrics counters(Policy policy) {
        return of(policy);
    }

    void allowed(PolicyMetrics counts, Policy policy, String key, MutableDecision decision) {
        counts.recordAllowed(policy);
        counts.recordAdmittedKey(key, decision);
        counts.recordDegraded(decision);
        try {
            next.allowed(policy, key, decision);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    void shaped(PolicyMetrics counts, Policy policy, String key, MutableDecision decision) {
        counts.recordShaped(decision, policy);
        counts.recordAdmittedKey(key, decision);
        counts.recordDegraded(decision);
        try {
            next.shaped(policy, key, decision);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    void denied(PolicyMetrics counts, Policy policy, String key, MutableDecision decision, RequestView request) {
        counts.recordDenied(decision);
        counts.recordDeniedKey(key, decision);
        counts.recordDegraded(decision);
        try {
            next.denied(policy, key, decision, request);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    @Override
    public void released(Policy policy, String key, long permits) {
        released(of(policy), policy, key, permits);
    }

    void released(PolicyMetrics counts, Policy policy, String key, long permits) {
        counts.recordReleased();
        try {
            next.released(policy, key, permits);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    @Override
    public void refunded(Policy policy, String key, long permits) {
        refunded(of(policy), policy, key, permits);
    }

    void refunded(PolicyMetrics counts, Policy policy, String key, long permits) {
        counts.recordRefunded();
        try {
            next.refunded(policy, key, permits);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    @Override
    public void unmatchedRelease(Policy policy, String key, long permits) {
        unmatchedRelease(of(policy), policy, key, permits);
    }

    void unmatchedRelease(PolicyMetrics counts, Policy policy, String key, long permits) {
        counts.recordUnmatchedRelease();
        try {
            next.unmatchedRelease(policy, key, permits);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    /** Counted only for a policy this object counts: a shared registry also evicts other enforcers' keys. */
    @Override
    public void evicted(String policy, String key, boolean lossless) {
        PolicyMetrics m = policies.get(policy);
        if (m != null) {
            m.recordEvicted(lossless);
        }
        try {
            next.evicted(policy, key, lossless);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    @Override
    public void storeDegraded(String store, Throwable cause) {
        health(store).degrade();
        try {
            next.storeDegraded(store, cause);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    @Override
    public void storeRecovered(String store) {
        health(store).recover();
        try {
            next.storeRecovered(store);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    private StoreHealth health(String store) {
        String name = String.valueOf(store);
        StoreHealth h = stores.get(name);
        if (h != null) {
            return h;
        }
        boolean[] created = new boolean[1];
        h = stores.computeIfAbsent(name, n -> {
            created[0] = true;
            return new StoreHealth(n, clock);
        });
        if (created[0]) {
            for (Observer o : observers) {
                try {
                    o.storeAdded(h);
                } catch (RuntimeException ignored) {
                    // See Observer.
                }
            }
        }
        return h;
    }

    @Override
    public String toString() {
        return "EnforcerMetrics{policies=" + order + ", next=" + next + '}';
    }

    /** Builds an {@link EnforcerMetrics}. Not thread-safe. */
    public static final class Builder {
        private EnforcementListener next = EnforcementListener.NONE;
        private Clock clock = Clock.system();
        private int topClients = TopClients.DEFAULT_SIZE;
        private boolean topClientsAdmitted;

        private Builder() {
        }

        /**
         * Sets how many heavy hitters each policy keeps ({@link PolicyMetrics#topClients}): the
         * counters of each minute's Space-Saving summary, and the longest list shown. Default
         * {@value TopClients#DEFAULT_SIZE}; {@code 0} keeps none, and then counting costs one null
         * test per decision.
         *
         * @param size {@code 0} to {@value TopClients#MAX_SIZE}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder topClients(int size) {
            this.topClients = TopClients.checkSize(size, "topClients");
            return this;
        }

        /**
         * Sets whether the heavy hitters by admitted requests are kept too, not only by refused ones.
         * Default {@code false}: this counts every admitted request (see {@code benchmarks/run.sh}
         * for its cost), where the default counts only refusals.
         *
         * @param admitted {@code true} to keep them (with {@link #topClients(int)} above 0)
         * @return this builder
         */
        public Builder topClientsAdmitted(boolean admitted) {
            this.topClientsAdmitted = admitted;
            return this;
        }

        /**
         * Sets the listener every event is passed on to. Default {@link EnforcementListener#NONE}.
         *
         * @param next the listener
         * @return this builder
         * @throws NullPointerException if null
         * @throws IllegalArgumentException if it is an {@code EnforcerMetrics} (events would be counted twice)
         */
        public Builder next(EnforcementListener next) {
            Objects.requireNonNull(next, "next");
            if (next instanceof EnforcerMetrics) {
                throw new IllegalArgumentException("next must not be an EnforcerMetrics (events would be counted twice)"
                        + " but was " + next);
            }
            this.next = next;
            return this;
        }

        /**
         * Sets the clock that times degraded stores. Default {@link Clock#system()}.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** @return the metrics, counting nothing yet */
        public EnforcerMetrics build() {
            return new EnforcerMetrics(this);
        }
    }
}
