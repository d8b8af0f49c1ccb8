package io.github.sluice.http;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.ForwardedHeader;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.key.Keys;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.PolicyParser;
import io.github.sluice.request.RequestView;
import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.Inheritance;
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
 *       and skip the policy if its allow-list matches. Read the request's cost if the policy's
 *       comes from the request ({@code cost=header:}, {@code body}, {@code bean:}): a bad one, or
 *       one above the policy's limit, refuses the request before the store is asked, as a
 *       missing key with {@code unresolved=deny} does (see {@link io.github.sluice.policy.RequestCost}).
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
 * allocates its {@link Verdict} and, per applied policy, one entry, which is also its
 * {@link io.github.sluice.core.MutableDecision} and carries the request's cost; there is no array,
 * and the entries are the chain given to {@link Store#acquireAll} as they are. A cost read from the
 * request ({@code cost=header:}, {@code body}) is parsed in place, allocating nothing of its own
 * beyond the iterator the adapter's {@link RequestView#headers} returns (so that a second header
 * line can be refused); a {@code cost=bean:} allocates what its function does. Resolvers allocate the key strings they build:
 * {@code ip} returns a direct IPv4 peer's own string, {@code global}, {@code constant} and
 * {@code principal} return existing strings, {@code header} allocates only to trim whitespace, a
 * fallback chain allocates its tagged key. Headers are formatted only when
 * {@link Verdict#writeHeaders} is called: {@code RateLimit-Policy} is formatted once per set of
 * applied policies and reused, so the {@code RateLimit} value is the only string an allowed
 * request allocates. No lock is taken; the store's acquisitions are lock-free.
 * {@link #enforceAsync} allocates the same, plus the completed stage it returns, when the store
 * decides at once (the in-memory store), and a shared stage when no policy applies.
 *
 * <h2>Changing the policies while serving</h2>
 * {@link #reconfigure(String, Inheritance)} replaces the policies atomically: each request reads
 * the policies in force once, when it starts, and is decided, counted and answered (headers,
 * problem body) entirely under them, whatever is swapped meanwhile. An unchanged policy keeps its
 * key space, and so every key's state; a changed one keeps each key's state as the
 * {@link Inheritance} says; a removed one decides nothing more, and the requests it admitted
 * release their permits to it as before.
 *
 * <h2>Adaptive policies stay local</h2>
 * An adaptive policy ({@code io.github.sluice.adaptive}) learns the latency of this instance's own
 * requests, so its state lives in an in-memory registry of the enforcer's whatever the
 * {@linkplain Builder#store store}: with a Redis store, the other policies are shared by every
 * instance and each instance's adaptive limits are its own. A request's claims on both are then
 * decided one after the other (still all or nothing) rather than in one round trip.
 *
 * <p>Thread-safe. {@link #close()} closes the store if the enforcer created it, and the local
 * registry of adaptive policies.
 */
public final class Enforcer implements AutoCloseable {

    /** The policies in force: swapped whole by {@link #reconfigure}, read once per request. */
    private volatile Table table;
    /** Key spaces of removed policies, by name, for a policy that comes back; guarded by {@code this}. */
    private final Map<String, KeySpace> removed = new HashMap<>();
    /** Every distinct selection made, checked against a new set of policies; guarded by {@code this}. */
    private final Map<PolicySet, PolicySet> selections = new java.util.LinkedHashMap<>();
    private final boolean dryRun;
    /** The resolvers registered by name ({@code key=bean:NAME}), for policies given to {@link #reconfigure}. */
    private final Map<String, KeyResolver> namedResolvers;
    /** The override lookups registered by name ({@code override=bean:NAME}). */
    private final Map<String, java.util.function.Function<String, String>> overrideLookups;
    /** The clock of the override cache's expiry: the builder's. */
    private final io.github.sluice.core.Clock overrideClock;
    /**
     * The clock whose readings the store records in its decisions ({@link MutableDecision#nanos()}):
     * the in-memory registry's; {@code null} for another store, whose readings are not used.
     */
    private final io.github.sluice.core.Clock decisionClock;
    /** The threads that run override lookups; made when a policy first needs them. Guarded by {@code this}. */
    private java.util.concurrent.ExecutorService lookups;
    /** The cost functions registered by name ({@code cost=bean:NAME}), for policies given to {@link #reconfigure}. */
    private final Map<String, io.github.sluice.policy.CostFunction> namedCosts;
    /** How headers are formatted, shared by every group of every table. */
    private final RateLimitHeaders.Plan plan;
    private final Store store;
    private final boolean ownsStore;
    /**
     * The in-memory registry of the adaptive policies when the store is another (e.g. Redis):
     * an adaptive limit learns this instance's own latency, so it is local whatever the store.
     * Owned and closed by the enforcer; {@code null} if not needed.
     */
    private ShardedRegistry local;
    /** Builds {@link #local} when first needed; guarded by {@code this}. */
    private final ShardedRegistry.Builder registry;
    private final int maxKeyLengthForLocal;
    /** The key spaces that live in {@link #local}; guarded by {@code this}. */
    private final Map<KeySpace, Boolean> localSpaces = new java.util.IdentityHashMap<>();
    private final HeaderOptions headers;
    private final DenialBody denialBody;
    /** Who is told of events: the metrics, which pass them on, or the configured listener. */
    private final EnforcementListener listener;
    /** The listener the builder was given. */
    private final EnforcementListener configured;
    private final ClientAddress addresses;
    private final int maxKeyLength;
    /** Methods no policy applies to unless its match names them (upper case); usually {@code OPTIONS}. */
    private final String[] exempt;
    /** Bit {@code n} set if an exempt method has {@code n} characters (up to 63): most methods are ruled out by one test. */
    private final long exemptLengths;
    private final EnforcerMetrics metrics;
    /** Run once by {@link #close()}: e.g. the JMX registration's removal ({@link EnforcerJmx}). */
    private final List<Runnable> onClose = new java.util.concurrent.CopyOnWriteArrayList<>();

    private Enforcer(Builder b, List<Policy> applied, ClientAddress addresses, Store store, boolean ownsStore,
            EnforcerMetrics metrics, EnforcementListener listener) {
        this.configured = b.listener;
        Policy[] policies = applied.toArray(new Policy[0]);
        this.metrics = metrics;
        this.listener = listener;
        this.store = store;
        this.ownsStore = ownsStore;
        this.dryRun = b.dryRun;
        this.namedResolvers = Map.copyOf(b.keyResolvers);
        this.overrideLookups = Map.copyOf(b.overrideLookups);
        this.overrideClock = b.clock;
        this.decisionClock = store instanceof ShardedRegistry r ? r.clock() : null;
        this.namedCosts = Map.copyOf(b.costFunctions);
        this.registry = b.registry;
        this.maxKeyLengthForLocal = b.maxKeyLength;
        KeySpace[] spaces = new KeySpace[policies.length];
        try {
            for (int i = 0; i < policies.length; i++) {
                spaces[i] = home(policies[i]).keySpace(policies[i].name(), stored(policies[i]));
                if (spaces[i] != null && isLocal(policies[i])) {
                    localSpaces.put(spaces[i], Boolean.TRUE);
                }
            }
        } catch (RuntimeException e) {
            if (local != null) {
                local.close();
            }
            throw e;
        }
        metrics.track(List.of(policies), List.of(spaces));
        metrics.track(store.latency());
        this.headers = b.headers;
        this.plan = new RateLimitHeaders.Plan(headers);
        this.table = new Table(this, policies, spaces, plan);
        this.denialBody = b.denialBody;
        this.addresses = addresses;
        this.maxKeyLength = b.maxKeyLength;
        this.exempt = b.exempt.toArray(new String[0]);
        long lengths = 0;
        for (String m : exempt) {
            lengths |= 1L << Math.min(m.length(), 63);
        }
        this.exemptLengths = lengths;
        if (configured instanceof LoggingListener l) {
            l.started(this);
        }
    }

    /**
     * Starts an enforcer: the one builder of Sluice's HTTP layer, in code, or filled from
     * init-params and properties files by {@code io.github.sluice.config.SluiceConfig}.
     *
     * @return a builder with the defaults documented on its setters
     */
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
        return decide(entries(request), request);
    }

    /** The entries of the policies whose match fits the request, or {@code null} if none applies. */
    private Verdict entries(RequestView request) {
        String method = request.method();
        String path = request.path();
        boolean exempt = exempt(method);
        Verdict v = null;
        for (Enforcement e : table.all.members) {
            if (e.match.matches(method, path) && (!exempt || e.match.names(method))) {
                v = add(v, request, e);
            }
        }
        return v;
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
        return decide(entries(request, selection), request);
    }

    /** The entries of the selected policies that apply to the request, or {@code null} if none does. */
    private Verdict entries(RequestView request, PolicySet selection) {
        Objects.requireNonNull(request, "request");
        if (selection.enforcer != this) {
            throw new IllegalArgumentException(selection + " was not selected from this enforcer");
        }
        boolean exempt = exempt(request.method());
        Verdict v = null;
        for (Enforcement e : selection.group(table).members) {
            if (!exempt || e.match.names(request.method())) {
                v = add(v, request, e);
            }
        }
        return v;
    }

    /**
     * Decides a request as {@link #enforce(RequestView)} does, for an adapter that must not block
     * its thread (a reactive event loop). The returned stage completes with the verdict; the
     * verdict's lifecycle ({@link ReleaseHandle}) is the same as a synchronous one's.
     *
     * <p>The decision goes through the store's asynchronous methods
     * ({@link Store#acquireAllAsync}): nothing on the calling thread waits for a remote store.
     * What the store decides at once continues on the calling thread: with the in-memory store
     * the whole decision is taken before this method returns, and costs what {@link #enforce}
     * costs plus the completed stage (none at all when no policy applies). A decision that waits
     * for a remote store completes on the store's threads (for Redis: its client's I/O thread on
     * a reply, its timer thread on a timeout), and the stage's dependent actions run there: they
     * must not block, and an adapter that has more to do than write a response may move to its
     * own executor. The store's failure policy applies exactly as on the synchronous path.
     *
     * @param request the request
     * @return the verdict, when decided; never completes exceptionally for a store failure (the
     *     store's failure policy decides instead)
     * @throws NullPointerException if {@code request} is null
     */
    public java.util.concurrent.CompletionStage<Verdict> enforceAsync(RequestView request) {
        return decideAsync(entries(request), request);
    }

    /**
     * Decides a request against a selection as {@link #enforce(RequestView, PolicySet)} does,
     * without blocking the calling thread; see {@link #enforceAsync(RequestView)}.
     *
     * @param request the request
     * @param selection policies and cost, from {@link #select}
     * @return the verdict, when decided
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the selection comes from another enforcer
     */
    public java.util.concurrent.CompletionStage<Verdict> enforceAsync(RequestView request, PolicySet selection) {
        return decideAsync(entries(request, selection), request);
    }

    /**
     * Whether {@link #enforce} decides without waiting on anything but memory
     * ({@link Store#decidesAtOnce()}: the in-memory store) and no policy in force may wait for a
     * permit (a concurrency limit with {@code max-wait}, which {@code enforce} waits for on its
     * thread and {@link #enforceAsync} polls): an adapter on an event loop may then call
     * {@code enforce} directly and save the stage of {@link #enforceAsync}. Adaptive policies,
     * which stay in a local in-memory registry whatever the store, never make a decision wait.
     * The answer may change when the policies are {@linkplain #reconfigure reconfigured}: ask per
     * request (one volatile read), or call {@link #enforceAsync}, which costs the same then.
     *
     * @return {@code true} if a synchronous decision never blocks
     */
    public boolean decidesAtOnce() {
        return store.decidesAtOnce() && !table.waits;
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
        List<String> ordered = new ArrayList<>(names);
        synchronized (this) {
            Table t = table;
            PolicySet set = new PolicySet(this, group(t, ordered, cost, null), ordered, cost);
            PolicySet known = selections.putIfAbsent(set, set);
            return known != null ? known : set;
        }
    }

    /**
     * The group of {@code names} in {@code t}, with {@code cost}.
     *
     * @param context who asks, for the message of an error; {@code null} for a new selection
     * @throws IllegalArgumentException if a name is unknown in {@code t} or repeated, or the cost
     *     exceeds a selected policy's limit
     */
    PolicyGroup group(Table t, List<String> names, long cost, String context) {
        Policy[] chosen = new Policy[names.size()];
        KeySpace[] chosenSpaces = new KeySpace[chosen.length];
        for (int k = 0; k < chosen.length; k++) {
            String name = names.get(k);
            Integer i = t.byName.get(name);
            if (i == null) {
                throw new IllegalArgumentException("unknown policy '" + name + "'" + (context == null ? "" : " in "
                        + context) + "; known policies: " + t.byName.keySet());
            }
            if (names.subList(0, k).contains(name)) {
                throw new IllegalArgumentException("policy '" + name + "' is selected twice");
            }
            if (cost > t.policies[i].algorithm().limit()) {
                throw new IllegalArgumentException("cost must be <= the limit " + t.policies[i].algorithm().limit()
                        + " of policy '" + name + "' but was " + cost + (context == null ? "" : " (" + context + ")"));
            }
            chosen[k] = t.policies[i];
            chosenSpaces[k] = t.spaces[i];
        }
        return new PolicyGroup(this, t, chosen, chosenSpaces, cost, plan);
    }

    /**
     * Replaces the policies while serving, as {@link #reconfigure(Collection, Inheritance)} does,
     * with policies written in the policy language.
     *
     * <pre>{@code
     * enforcer.reconfigure("per-ip = token-bucket 200/1m key=ip match=/api/*", Inheritance.KEEP_CONSUMED);
     * }</pre>
     *
     * @param text policy lines, as {@link Builder#policies(String)} takes them
     * @param inheritance what each key of a changed policy keeps
     * @throws NullPointerException if an argument is null
     * @throws io.github.sluice.policy.ConfigException naming the line, policy, parameter and value,
     *     if a line is invalid; the policies in force stay
     * @throws IllegalArgumentException as {@link #reconfigure(Collection, Inheritance)} does
     */
    public void reconfigure(String text, Inheritance inheritance) {
        Objects.requireNonNull(inheritance, "inheritance");
        reconfigure(PolicyParser.parse(Objects.requireNonNull(text, "text"), "policies"), inheritance);
    }

    /**
     * Replaces the policies while serving: an atomic swap, after which every new request is
     * decided by {@code policies} (in their order) and no request is decided by a mix of old and
     * new ones. The policies are applied as the builder applies them (the client-address settings
     * behind {@code ip} keys, the enforcer's dry-run). The settings of the enforcer itself (store,
     * clock, headers, denial body, trusted proxies, key length, listener) cannot change at run time;
     * build a new enforcer for those.
     *
     * <p>Policy by policy, matched by name:
     * <ul>
     *   <li><b>unchanged algorithm</b> (same kind and parameters): the policy keeps its key space,
     *       the very same object, and every key its state, even if its key, match, cost, status,
     *       allow-list or dry-run changed;
     *   <li><b>changed algorithm</b>: the store binds the new one ({@link Store#rebind}); the
     *       in-memory store carries each key's state over by {@code inheritance}, lazily, on the
     *       key's next request, so that the swap itself costs the same for a million keys as for
     *       one, and through every change a key sleeps through (no sequence of changes leaves a
     *       key more than it had left plus the raises; docs/operations.md states it in full). The
     *       Redis store reads the shared state as it is, and refuses a change of rate, window or
     *       algorithm unless {@code inheritance} is {@code RESET}. A concurrency limit always
     *       keeps its permits in flight;
     *   <li><b>removed</b>: decides nothing more. Requests it admitted still release their permits
     *       to it; nothing else happens to them. A policy added again later under the same name
     *       starts fresh if its algorithm differs;
     *   <li><b>added</b>: bound like at start-up; its counters appear in {@link #metrics()}.
     * </ul>
     * Requests already deciding finish under the policies they started with, and their permits
     * go back where they were taken. Selections made by {@link #select} follow the change by name:
     * a new set that lacks a selected name, or whose limit is below a selection's cost, is
     * refused, since a JAX-RS resource method would then have no policy. Calls are serialised;
     * a refused set changes nothing.
     *
     * @param policies the new policies, in order; may be empty (nothing is limited)
     * @param inheritance what each key of a changed policy keeps
     * @throws NullPointerException if an argument or an element is null
     * @throws IllegalArgumentException if two policies share a name, a policy's {@code ip} key has
     *     client-address settings that differ from the enforcer's, a selection's policy is missing
     *     or its cost exceeds the new limit, or the store refuses a policy (the memory budget)
     */
    public synchronized void reconfigure(Collection<Policy> policies, Inheritance inheritance) {
        Objects.requireNonNull(inheritance, "inheritance");
        List<Policy> next = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Policy p : Objects.requireNonNull(policies, "policies")) {
            Objects.requireNonNull(p, "policy");
            if (seen.contains(p.name())) {
                throw new IllegalArgumentException("policy name '" + p.name() + "' is used twice");
            }
            seen.add(p.name());
            next.add(CostReader.bind(Builder.applied(p, addresses, dryRun, namedResolvers), namedCosts));
        }
        Table old = table;
        Policy[] ps = next.toArray(new Policy[0]);
        // Check the selections before binding anything in the store.
        KeySpace[] spaces = old.spaces.clone();
        Table probe = new Table(this, ps, new KeySpace[ps.length], plan, false);
        for (PolicySet set : selections.keySet()) {
            group(probe, set.names(), set.cost(), "the new policies, for " + set);
        }
        KeySpace[] bound = new KeySpace[ps.length];
        for (int i = 0; i < ps.length; i++) {
            Integer was = old.byName.get(ps[i].name());
            KeySpace before = was != null ? spaces[was] : removed.get(ps[i].name());
            Store home = home(ps[i]);
            boolean sameHome = before != null && localSpaces.containsKey(before) == isLocal(ps[i]);
            bound[i] = !sameHome ? home.keySpace(ps[i].name(), stored(ps[i]))
                    : home.rebind(before, stored(ps[i]), was != null ? inheritance : Inheritance.RESET);
            if (isLocal(ps[i])) {
                localSpaces.put(bound[i], Boolean.TRUE);
            }
        }
        for (int i = 0; i < old.policies.length; i++) {
            if (!seen.contains(old.policies[i].name())) {
                removed.put(old.policies[i].name(), old.spaces[i]);
            }
        }
        for (Policy p : ps) {
            removed.remove(p.name());
        }
        metrics.track(List.of(ps), List.of(bound));
        table = new Table(this, ps, bound, plan);
    }

    /** The algorithm the store keeps for {@code p}: its plans' when it has plans, else its own. */
    private static io.github.sluice.core.Algorithm<?> stored(Policy p) {
        return p.plans() == null ? p.algorithm() : p.plans().newAlgorithm();
    }

    /**
     * @param p a policy with {@code override=}
     * @return the lookup its override names: a registered one, or the file's
     * @throws IllegalArgumentException if it names a lookup that was not registered
     */
    java.util.function.Function<String, String> overrideLookup(Policy p) {
        String source = p.plans().override();
        if (source.startsWith("file:")) {
            return FileOverrides.of(java.nio.file.Path.of(source.substring(5)), overrideClock);
        }
        String name = source.substring(5);
        java.util.function.Function<String, String> f = overrideLookups.get(name);
        if (f == null) {
            throw new IllegalArgumentException("override=bean:" + name + " names no lookup registered with"
                    + " Enforcer.Builder.overrideLookup (registered: " + overrideLookups.keySet() + ") (policy '"
                    + p.name() + "')");
        }
        return f;
    }

    /** @return the clock of the override cache */
    io.github.sluice.core.Clock overrideClock() {
        return overrideClock;
    }

    /**
     * @return the clock of the readings the store records in its decisions, or {@code null} if
     *     they are not known to be on one clock (a store other than the in-memory registry)
     */
    io.github.sluice.core.Clock decisionClock() {
        return decisionClock;
    }

    /** @return the threads that run override lookups, made on first use and stopped by {@link #close()} */
    synchronized java.util.concurrent.Executor lookupExecutor() {
        if (lookups == null) {
            java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(4, 4,
                    30, java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.ArrayBlockingQueue<>(1024),
                    r -> {
                        Thread t = new Thread(r, "sluice-override-lookup");
                        t.setDaemon(true);
                        return t;
                    });
            pool.allowCoreThreadTimeOut(true);
            lookups = pool;
            onClose.add(pool::shutdownNow);
        }
        return lookups;
    }

    /** Whether {@code p} lives in the enforcer's local registry: an adaptive policy when the store is another. */
    private boolean isLocal(Policy p) {
        return p.algorithm() instanceof AdaptiveLimit && !(store instanceof ShardedRegistry);
    }

    /** The store that holds {@code p}'s state; builds the local registry when first needed. Guarded by {@code this}. */
    private synchronized Store home(Policy p) {
        if (!isLocal(p)) {
            return store;
        }
        if (local == null) {
            local = registry.maxKeyLength(maxKeyLengthForLocal).listener(listener).build();
        }
        return local;
    }

    /** Whether no policy applies to this method unless it names it; compares lengths first, allocates nothing. */
    private boolean exempt(String method) {
        if ((exemptLengths & (1L << Math.min(method.length(), 63))) == 0) {
            return false;
        }
        for (String m : exempt) {
            if (m.length() == method.length() && m.equalsIgnoreCase(method)) {
                return true;
            }
        }
        return false;
    }

    private Verdict add(Verdict v, RequestView request, Enforcement e) {
        String key = e.constantKey;
        if (key == null) {
            key = Keys.bound(e.key.resolve(request), maxKeyLength);
        }
        if ((key == null && !e.policy.unresolved().denies())
                || (e.allow != null && e.allow.allows(key, request, addresses))) {
            return v; // no key (unresolved=skip), or allowed
        }
        long now = MutableDecision.NO_READING;
        if (e.plans != null && key != null) {
            // The client's contract, else its plan.
            Overrides overrides = e.plans.overrides;
            Enforcement contract = null;
            if (overrides != null) {
                // The override cache's expiry needs the time: the request's one reading, which
                // the store then decides at too (Claim.nanos), rather than a second one.
                now = overrideClock.nanos();
                Overrides.Slot answer = overrides.fresh(key, now);
                if (answer != null) {
                    contract = overrides.answer(answer, now);
                } else {
                    contract = overrides.find(key, now); // a lookup, which the request may wait for
                    now = MutableDecision.NO_READING; // so the store reads the clock after the wait
                }
            }
            e = contract != null ? contract : e.plans.plan(request);
            if (e.unlimited) {
                return v;
            }
        }
        if (v == null) {
            v = new Verdict();
        }
        v.add(e, key, e.partitionOf(request), e.requestCost == null ? e.cost : CostReader.read(e.requestCost, request),
                now);
        return v;
    }

    private Verdict decide(Verdict v, RequestView request) {
        return v == null ? Verdict.NONE : v.decide(store, listener, request);
    }

    /** The asynchronous {@link #decide}: a shared stage when no policy applies. */
    private java.util.concurrent.CompletionStage<Verdict> decideAsync(Verdict v, RequestView request) {
        return v == null ? NONE_DECIDED : AsyncDecision.decide(v, store, listener, request);
    }

    /** The stage of a request no policy applies to: shared, immutable. */
    private static final java.util.concurrent.CompletionStage<Verdict> NONE_DECIDED =
            java.util.concurrent.CompletableFuture.completedStage(Verdict.NONE);

    /**
     * @return the policies as applied, in configuration order: with the enforcer's client-address
     *     settings behind their {@code ip} keys, and dry-run if the enforcer was
     */
    public List<Policy> policies() {
        return List.of(table.policies);
    }

    /** @return the applied policies, in order, without a copy (for this package's readers) */
    Policy[] policyArray() {
        return table.policies;
    }

    /** @return each applied policy's key space, in the order of {@link #policyArray()}, without a copy */
    KeySpace[] spaceArray() {
        return table.spaces;
    }

    /** @return the policies in force, as one request reads them */
    Table table() {
        return table;
    }

    /**
     * The policies in force at one moment, immutable: their key spaces, the group of all of them
     * and the index of their names. A request reads the enforcer's table once.
     */
    static final class Table {
        final Policy[] policies;
        final KeySpace[] spaces;
        final PolicyGroup all;
        final Map<String, Integer> byName = new HashMap<>();
        /** Whether a policy may wait for a permit (a concurrency limit with a max-wait). */
        final boolean waits;

        Table(Enforcer enforcer, Policy[] policies, KeySpace[] spaces, RateLimitHeaders.Plan plan) {
            this(enforcer, policies, spaces, plan, true);
        }

        /** @param groups whether to build the group of all policies (a probe for names needs none) */
        Table(Enforcer enforcer, Policy[] policies, KeySpace[] spaces, RateLimitHeaders.Plan plan, boolean groups) {
            this.policies = policies;
            this.spaces = spaces;
            boolean anyWaits = false;
            for (int i = 0; i < policies.length; i++) {
                byName.put(policies[i].name(), i);
                anyWaits |= policies[i].algorithm() instanceof io.github.sluice.algorithm.Concurrency c
                        && c.maxWaitNanos() > 0;
            }
            this.waits = anyWaits;
            this.all = groups ? new PolicyGroup(enforcer, this, policies, spaces, 0, plan) : null;
        }
    }

    /**
     * @return the store holding the policies' state, except adaptive policies' when it is not an
     *     in-memory registry: those stay in a local registry of the enforcer's (see the class
     *     description)
     */
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

    /**
     * @return the listener this enforcer was configured with; its {@link #metrics()} count every
     *     event before passing it on to it
     */
    public EnforcementListener listener() {
        return configured;
    }

    /** @return who is told of events: the metrics (passing them on) or, with counting off, the listener */
    EnforcementListener told() {
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

    /** @return the client-address settings behind {@code ip} keys and allow-lists */
    public ClientAddress clientAddress() {
        return addresses;
    }

    // ---- inspecting and resetting keys (for operators: an admin endpoint, an actuator) ----------

    /**
     * Reads a client key's state under every policy, consuming nothing.
     *
     * @param key the key as the policies resolve it (e.g. {@code 192.0.2.1}, an API key, or for a
     *     chain {@code ip:192.0.2.1}); one longer than {@link #maxKeyLength()} is hashed as
     *     requests' keys are
     * @return one state per policy, in configuration order; a key never seen reads as fresh
     * @throws NullPointerException if {@code key} is null
     */
    public List<KeyState> inspect(String key) {
        String k = Keys.bound(Objects.requireNonNull(key, "key"), maxKeyLength);
        Table t = table;
        List<KeyState> out = new ArrayList<>(t.policies.length);
        for (int i = 0; i < t.policies.length; i++) {
            out.add(state(t, i, k));
        }
        return out;
    }

    /**
     * Reads a client key's state under one policy, consuming nothing.
     *
     * @param key the key, as for {@link #inspect(String)}
     * @param policy the policy's name
     * @return the state
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if no policy has that name
     */
    public KeyState inspect(String key, String policy) {
        String k = Keys.bound(Objects.requireNonNull(key, "key"), maxKeyLength);
        Table t = table;
        return state(t, indexOf(t, policy), k);
    }

    private static KeyState state(Table t, int i, String key) {
        io.github.sluice.core.MutableDecision d = new io.github.sluice.core.MutableDecision();
        t.spaces[i].inspect(key, d);
        Policy p = t.policies[i];
        return KeyState.of(p.name(), p.algorithm().kind(), p.concurrency(), d);
    }

    /**
     * Forgets a client key's state under every policy, so that its next request finds a fresh
     * quota. Concurrency limits are left as they are: their state is the requests still running,
     * whose permits come back when they end (see {@link KeySpace#reset}).
     *
     * @param key the key, as for {@link #inspect(String)}
     * @return the names of the policies whose state for the key was forgotten, in configuration
     *     order (empty if it had none)
     * @throws NullPointerException if {@code key} is null
     * @throws UnsupportedOperationException if the store cannot reset keys
     */
    public List<String> reset(String key) {
        String k = Keys.bound(Objects.requireNonNull(key, "key"), maxKeyLength);
        Table t = table;
        List<String> out = new ArrayList<>();
        for (int i = 0; i < t.policies.length; i++) {
            if (t.spaces[i].reset(k)) {
                out.add(t.policies[i].name());
            }
        }
        return out;
    }

    /**
     * Forgets a client key's state under one policy, as {@link #reset(String)} does.
     *
     * @param key the key, as for {@link #inspect(String)}
     * @param policy the policy's name
     * @return {@code true} if the key had state under it, now forgotten
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if no policy has that name
     * @throws UnsupportedOperationException if the store cannot reset keys
     */
    public boolean reset(String key, String policy) {
        String k = Keys.bound(Objects.requireNonNull(key, "key"), maxKeyLength);
        Table t = table;
        return t.spaces[indexOf(t, policy)].reset(k);
    }

    private static int indexOf(Table t, String policy) {
        Integer i = t.byName.get(Objects.requireNonNull(policy, "policy"));
        if (i == null) {
            throw new IllegalArgumentException("unknown policy '" + policy + "'; known policies: " + t.byName.keySet());
        }
        return i;
    }

    /**
     * @return the methods exempt from every policy whose match does not name them, upper case, in
     *     the order given ({@code [OPTIONS]} by default)
     */
    public List<String> exemptMethods() {
        return List.of(exempt);
    }

    /**
     * Describes the enforcer in one line: its policies in the policy language, the header style,
     * the trusted proxies, the exempt methods and the store, then a {@code WARNING:} for each
     * partition or allow-list exemption chosen by a header any client writes (e.g.
     * {@code partition=header:X-Tier}). The default {@link LoggingListener}
     * logs it at {@code INFO} when the enforcer is built. Holds no client key and no secret.
     *
     * @return e.g. {@code Sluice enforcer: policies [per-ip = token-bucket 100/1m key=ip]; headers draft; ...}
     */
    public String description() {
        return StartupLine.describe(this);
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
        ShardedRegistry l;
        synchronized (this) {
            l = local;
        }
        if (l != null) {
            l.close();
        }
    }

    @Override
    public String toString() {
        return "Enforcer{policies=" + table.byName.keySet() + ", store=" + store + '}';
    }

    /**
     * Builds an {@link Enforcer}: the policies, where their state lives, how clients are
     * identified, and how responses look. A setting has the name of its init-param in
     * {@code docs/configuration.md}, in camel case ({@code trusted-proxies} is
     * {@link #trustedProxies}), except the header settings, which are one {@link HeaderOptions},
     * and the body settings, one {@link DenialBody}. A setter refuses a bad value at once;
     * {@link #build()} applies and checks the settings together, so the order of the calls never
     * matters.
     *
     * <pre>{@code
     * Enforcer enforcer = Enforcer.builder()
     *         .policies("per-ip = token-bucket 100/1m key=ip match=/api/*")
     *         .trustedProxies("10.0.0.0/8")
     *         .build();
     * }</pre>
     *
     * <p>Not thread-safe.
     */
    public static final class Builder {
        /** The largest {@link #maxKeys}: a billion keys per policy is tens of gigabytes, so a larger number is a slip. */
        private static final int MAX_KEYS = 1_000_000_000;

        private final List<Policy> policies = new ArrayList<>();
        /** The resolvers {@code key=bean:<name>} refers to, by name. */
        private final Map<String, KeyResolver> keyResolvers = new java.util.LinkedHashMap<>();
        private final Map<String, java.util.function.Function<String, String>> overrideLookups =
                new java.util.LinkedHashMap<>();
        /** The functions {@code cost=bean:<name>} refers to, by name. */
        private final Map<String, io.github.sluice.policy.CostFunction> costFunctions = new java.util.LinkedHashMap<>();
        private Store store;
        /** The default store, configured by the registry settings; built only if no store is given. */
        private final ShardedRegistry.Builder registry = ShardedRegistry.builder();
        /** The registry settings given, name to value, for the message if a store is given too. */
        private final Map<String, Object> registrySettings = new java.util.LinkedHashMap<>();
        private final ClientAddress.Builder addresses = ClientAddress.builder();
        private HeaderOptions headers = HeaderOptions.DEFAULT;
        private DenialBody denialBody = ProblemBody.standard();
        private EnforcementListener listener = new LoggingListener();
        private boolean dryRun;
        private int maxKeyLength = Keys.DEFAULT_MAX_LENGTH;
        private List<String> exempt = List.of("OPTIONS");
        private boolean metrics = true;
        private int topClients = TopClients.DEFAULT_SIZE;
        private boolean topClientsAdmitted;
        private Clock clock = Clock.system();

        private Builder() {
        }

        // ---- policies -------------------------------------------------------------------------

        /**
         * Adds a policy, applied after those added before it.
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
         * Adds policies written in the policy language, one per line, e.g.
         * {@code per-ip = token-bucket 100/1m key=ip match=/api/*} (see
         * {@link io.github.sluice.policy.PolicyParser}). The text is parsed now, so an error is
         * thrown here; its {@code ip} keys get the client-address settings at {@link #build()},
         * whether those are set before this call or after.
         *
         * @param text policy lines; blank lines and {@code #} comments are ignored
         * @return this builder
         * @throws NullPointerException if {@code text} is null
         * @throws io.github.sluice.policy.ConfigException naming the line, policy, parameter and
         *     value, if a line is invalid
         */
        public Builder policies(String text) {
            return policies(PolicyParser.parse(text, "policies"));
        }

        /**
         * Registers a key resolver under a name, for policies keyed {@code key=bean:<name>} (see
         * {@link io.github.sluice.key.KeyResolvers#bean}), alone or in a {@code |} fallback chain.
         * The references are bound at {@link #build()}, so the order of the calls does not matter.
         *
         * @param name the name the policy language uses, e.g. {@code tenantResolver}
         * @param resolver the resolver; an exception it throws yields no key (the policy does not apply)
         * @return this builder
         * @throws NullPointerException if an argument is null
         * @throws IllegalArgumentException if {@code name} is blank or holds whitespace, if a
         *     resolver is registered under it already
         */
        public Builder keyResolver(String name, KeyResolver resolver) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(resolver, "resolver");
            KeyResolvers.bean(name); // checks the name as the policy language would read it
            if (keyResolvers.putIfAbsent(name, resolver) != null) {
                throw new IllegalArgumentException("keyResolver name must be unique but '" + name
                        + "' is registered twice");
            }
            return this;
        }

        /**
         * Registers a contract lookup under a name, for policies with {@code override=bean:<name>}
         * (see {@link io.github.sluice.policy.Plans}): given a request's key, it returns the key's
         * contract limit as a plan's limit is written ({@code 5000/1m}, {@code unlimited},
         * {@code blocked}), or {@code null} if the key has none. It may be slow (a database): it
         * runs on the enforcer's lookup threads, its answers are cached, and a request waits for it
         * at most the policy's {@code override-timeout}.
         *
         * @param name the name, as {@code bean:} key resolvers are named
         * @param lookup the lookup; thread-safe
         * @return this builder
         * @throws IllegalArgumentException if the name is invalid or registered already
         */
        public Builder overrideLookup(String name, java.util.function.Function<String, String> lookup) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(lookup, "lookup");
            KeyResolvers.bean(name); // checks the name as the policy language would read it
            if (overrideLookups.putIfAbsent(name, lookup) != null) {
                throw new IllegalArgumentException("overrideLookup name must be unique but '" + name
                        + "' is registered twice");
            }
            return this;
        }

        /**
         * Registers a cost function under a name, for policies whose cost is written
         * {@code cost=bean:<name>} (see {@link io.github.sluice.policy.RequestCost#bean}). The
         * references are bound at {@link #build()} (and by {@link Enforcer#reconfigure}), so the
         * order of the calls does not matter.
         *
         * @param name the name the policy language uses, e.g. {@code exportCost}
         * @param function the function; what it returns is checked as a cost read from a header is
         *     (below 1 or an exception: a bad cost; above the limit: refused)
         * @return this builder
         * @throws NullPointerException if an argument is null
         * @throws IllegalArgumentException if {@code name} is not a valid name or is registered already
         */
        public Builder costFunction(String name, io.github.sluice.policy.CostFunction function) {
            Objects.requireNonNull(function, "function");
            io.github.sluice.policy.RequestCost.bean(name); // checks the name as the policy language reads it
            if (costFunctions.putIfAbsent(name, function) != null) {
                throw new IllegalArgumentException("costFunction name must be unique but '" + name
                        + "' is registered twice");
            }
            return this;
        }

        /**
         * Makes every policy dry-run: each is evaluated and reported (headers, listener) but never
         * blocks or delays. Default: each policy's own setting.
         *
         * @param dryRun {@code true} for dry-run everywhere
         * @return this builder
         */
        public Builder dryRun(boolean dryRun) {
            this.dryRun = dryRun;
            return this;
        }

        /**
         * Sets the methods that policies do not apply to unless their match names the method
         * ({@code match=OPTIONS:/api/*} still limits {@code OPTIONS}). Default {@code OPTIONS}:
         * a browser's CORS preflight is sent before the request it announces, by the browser and
         * not by the script, and counting it would spend a client's quota twice per request and
         * turn a denial into a CORS error the script cannot read. No arguments exempt nothing.
         *
         * @param methods HTTP methods (tokens such as {@code OPTIONS}, {@code HEAD}), any case
         * @return this builder
         * @throws NullPointerException if an element is null
         * @throws IllegalArgumentException if an element is not a registered HTTP method
         *     ({@link io.github.sluice.policy.Match#METHODS}), or repeats
         */
        public Builder exemptMethods(String... methods) {
            List<String> list = new ArrayList<>();
            for (String m : methods) {
                Objects.requireNonNull(m, "exempt method");
                if (!m.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
                    throw new IllegalArgumentException("exempt-methods must be HTTP methods such as OPTIONS but was '"
                            + m + "'");
                }
                String upper = m.toUpperCase(java.util.Locale.ROOT);
                if (!io.github.sluice.policy.Match.METHODS.contains(upper)) {
                    // As in a policy's match: a typo (OPTINS) must not silently exempt nothing.
                    String near = io.github.sluice.internal.Suggest.nearest(upper, List.of("OPTIONS", "HEAD", "GET",
                            "POST", "PUT", "DELETE", "PATCH", "TRACE", "CONNECT", "QUERY"));
                    throw new IllegalArgumentException("exempt-methods must be registered HTTP methods such as OPTIONS"
                            + " but was '" + m + "'" + (near == null ? "" : " (did you mean '" + near + "'?)"));
                }
                if (list.contains(upper)) {
                    throw new IllegalArgumentException("exempt-methods names " + upper + " twice");
                }
                list.add(upper);
            }
            this.exempt = List.copyOf(list);
            return this;
        }

        // ---- the client's address -------------------------------------------------------------

        /**
         * Adds reverse proxies whose forwarding header is believed: the client is the first address
         * not trusted, reading the header from the right. Used by every {@code ip} key
         * ({@link io.github.sluice.key.KeyResolvers#ip()}, {@code key=ip}) and by the networks of
         * allow-lists. Default: none, the TCP peer is the client.
         *
         * @param cidrs networks such as {@code 10.0.0.0/8}, {@code 2001:db8::/32} or single addresses
         * @return this builder
         * @throws NullPointerException if an element is null
         * @throws IllegalArgumentException if an element is not a network, or holds every IPv4 or
         *     every IPv6 address
         */
        public Builder trustedProxies(String... cidrs) {
            addresses.trustedProxies(cidrs);
            return this;
        }

        /**
         * Sets the header that the {@link #trustedProxies} write. Default
         * {@link ForwardedHeader#X_FORWARDED_FOR}.
         *
         * @param header the header
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder forwardedHeader(ForwardedHeader header) {
            addresses.header(header);
            return this;
        }

        /**
         * Sets how IPv6 clients are grouped for {@code ip} keys: by the network of this prefix
         * length. Default 64.
         *
         * @param bits 1..128 (128: one key per address)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder ipv6Prefix(int bits) {
            addresses.ipv6Prefix(bits);
            return this;
        }

        // ---- where state lives ----------------------------------------------------------------

        /**
         * Sets where state lives, e.g. a Redis store. Default: a new in-memory
         * {@link ShardedRegistry}, configured by {@link #clock}, {@link #maxKeys},
         * {@link #memoryBudget}, {@link #shards} and {@link #maxKeyLength}, told of evictions
         * through the {@link #listener}, and closed with the enforcer.
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
         * Sets the clock of the default store. Default {@link Clock#system()}; tests pass a fake.
         * Not combined with {@link #store}, which has its own clock.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder clock(Clock clock) {
            registry.clock(clock);
            this.clock = clock;
            registrySettings.put("clock", clock);
            return this;
        }

        /**
         * Sets the default store's bound on keys per policy, checked against the
         * {@link #memoryBudget} when the enforcer is built. Default: each policy's share of the
         * budget, at most 1,000,000. Not combined with {@link #store}.
         *
         * @param maxKeys between 1 and 1,000,000,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxKeys(int maxKeys) {
            if (maxKeys > MAX_KEYS) {
                throw new IllegalArgumentException("maxKeys must be at most " + MAX_KEYS + " but was " + maxKeys);
            }
            registry.maxKeys(maxKeys);
            registrySettings.put("maxKeys", maxKeys);
            return this;
        }

        /**
         * Sets the most heap that the default store's keys may take at worst (see
         * {@link ShardedRegistry}). Default 256 MiB. Not combined with {@link #store}.
         *
         * @param bytes {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder memoryBudget(long bytes) {
            registry.memoryBudget(bytes);
            registrySettings.put("memoryBudget", bytes);
            return this;
        }

        /**
         * Sets the default store's shards per policy. Default four per processor, at least 16. Not
         * combined with {@link #store}.
         *
         * @param shards a power of two between 1 and 65536
         * @return this builder
         * @throws IllegalArgumentException if not a power of two in range
         */
        public Builder shards(int shards) {
            registry.shards(shards);
            registrySettings.put("shards", shards);
            return this;
        }

        /**
         * Sets the bound on key length; longer keys are replaced by a digest ({@link Keys}), and
         * the default store counts keys this long in its memory budget. Default 128.
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

        // ---- responses and events -------------------------------------------------------------

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
         * Sets who is told of decisions and of the default store's evictions. Default a
         * {@link LoggingListener}. The enforcer's {@link Enforcer#metrics() metrics} count first
         * and pass every event on to it; a listener that is an {@link EnforcerMetrics} becomes the
         * enforcer's metrics (e.g. one a Redis store also reports to).
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
         * Sets how many heavy hitters each policy's metrics keep ({@link TopClients}; see
         * {@link EnforcerMetrics.Builder#topClients(int)}). Default {@value TopClients#DEFAULT_SIZE},
         * by refused requests; {@code 0} keeps none. Ignored when the listener is an
         * {@link EnforcerMetrics}, which was given its own.
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
         * Sets whether the heavy hitters by admitted requests are kept too
         * ({@link EnforcerMetrics.Builder#topClientsAdmitted(boolean)}). Default {@code false}.
         *
         * @param admitted {@code true} to keep them
         * @return this builder
         */
        public Builder topClientsAdmitted(boolean admitted) {
            this.topClientsAdmitted = admitted;
            return this;
        }

        /**
         * Builds the enforcer: applies the client-address settings to every {@code ip} key (see
         * {@link io.github.sluice.key.KeyResolvers#withClientAddress}) and {@link #dryRun}, binds
         * every policy in the store, and creates the default store unless one was given.
         *
         * @return the enforcer
         * @throws IllegalArgumentException if two policies share a name; if a policy's key names a
         *     resolver ({@code bean:<name>}) that was not registered with {@link #keyResolver}
         *     (the message names the policy and the name); if a policy's {@code ip}
         *     key has client-address settings of its own that differ from this builder's; or if the
         *     store refuses a policy (the in-memory store: one whose keys do not fit the memory
         *     budget)
         * @throws IllegalStateException if a store was given together with settings of the default
         *     store ({@link #clock}, {@link #maxKeys}, {@link #memoryBudget}, {@link #shards})
         */
        public Enforcer build() {
            ClientAddress clientAddress = addresses.build();
            List<Policy> applied = new ArrayList<>();
            List<String> seen = new ArrayList<>();
            for (Policy p : policies) {
                if (seen.contains(p.name())) {
                    throw new IllegalArgumentException("policy name '" + p.name() + "' is used twice");
                }
                seen.add(p.name());
                applied.add(CostReader.bind(applied(p, clientAddress), costFunctions));
            }
            EnforcerMetrics counts = listener instanceof EnforcerMetrics m ? m
                    : EnforcerMetrics.builder().next(listener).clock(clock).topClients(topClients)
                            .topClientsAdmitted(topClientsAdmitted).build();
            EnforcementListener told = metrics ? counts : listener;
            if (store != null) {
                if (!registrySettings.isEmpty()) {
                    List<String> given = new ArrayList<>();
                    registrySettings.forEach((name, value) -> given.add(name + "=" + value));
                    throw new IllegalStateException(String.join(", ", given)
                            + " configure the default in-memory store, but a store was given (" + store
                            + "); configure that store instead");
                }
                return new Enforcer(this, applied, clientAddress, store, false, counts, told);
            }
            ShardedRegistry own = registry.maxKeyLength(maxKeyLength).listener(told).build();
            try {
                return new Enforcer(this, applied, clientAddress, own, true, counts, told);
            } catch (RuntimeException e) {
                own.close();
                throw e;
            }
        }

        /** The policy with the client-address settings behind its {@code ip} key, and dry-run if all are. */
        private Policy applied(Policy p, ClientAddress clientAddress) {
            return applied(p, clientAddress, dryRun, keyResolvers);
        }

        /** The policy with the client-address settings behind its {@code ip} key, and dry-run if all are. */
        static Policy applied(Policy p, ClientAddress clientAddress, boolean dryRun,
                Map<String, KeyResolver> keyResolvers) {
            KeyResolver key;
            try {
                key = KeyResolvers.withNamed(KeyResolvers.withClientAddress(p.key(), clientAddress),
                        keyResolvers::get);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + " (policy '" + p.name() + "')", e);
            }
            boolean dry = dryRun && !p.dryRun();
            io.github.sluice.policy.Plans plans = p.plans();
            if (plans != null && plans.resolver() != null) {
                try {
                    plans = plans.withResolver(KeyResolvers.withNamed(
                            KeyResolvers.withClientAddress(plans.resolver(), clientAddress), keyResolvers::get));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(e.getMessage() + " (policy '" + p.name() + "', plan=)", e);
                }
            }
            if (plans != p.plans()) {
                return p.toBuilder().key(key).plans(plans).dryRun(p.dryRun() || dryRun).build();
            }
            return key == p.key() && !dry ? p : p.toBuilder().key(key).dryRun(p.dryRun() || dryRun).build();
        }
    }
}
