package io.github.sluice.redis;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.AsIsChange;
import io.github.sluice.redis.internal.Binding;
import io.github.sluice.redis.internal.Bindings;
import io.github.sluice.redis.internal.Connector;
import io.github.sluice.redis.internal.Endpoint;
import io.github.sluice.redis.internal.LeaseBook;
import io.github.sluice.redis.internal.Part;
import io.github.sluice.redis.internal.ScriptCall;
import io.github.sluice.store.Claim;
import io.github.sluice.store.Inheritance;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.Store;
import io.github.sluice.store.StoreLatency;
import io.github.sluice.store.StoreListener;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The distributed {@link Store}: every policy's state lives in Redis, so every instance of an
 * application shares the same limits. Each decision is one round trip: one Lua script decides,
 * atomically, for one policy or for all the policies of a request whose keys share a slot.
 * Concurrent decisions on the same keys share round trips: those that arrive while a call for
 * their keys is in flight are decided by the next call, one batch, each with its own answer
 * ({@linkplain Builder#coalescing coalescing}). Opt-in, {@linkplain Builder#leases lease mode}
 * decides a hot key's requests locally from a share of its quota, with a stated over-admission
 * bound.
 *
 * <pre>{@code
 * try (RedisStore store = RedisStore.builder()
 *         .uri("redis://127.0.0.1:6379")
 *         .failurePolicy(FailurePolicy.localFallback(4))
 *         .build()) {
 *     KeySpace perIp = store.keySpace("per-ip",
 *             TokenBucket.builder().rate(Rate.perMinute(100)).burst(20).build());
 *     MutableDecision d = new MutableDecision();
 *     if (perIp.acquire("203.0.113.7", 1, d)) { ... }
 * }
 * }</pre>
 *
 * <h2>Failures</h2>
 * No method throws because Redis is down or slow, and no request waits longer than the
 * {@linkplain Builder#commandTimeout command timeout}, counted from the request's arrival in the
 * store (a policy's explicit {@code maxWait} aside): commands are rejected at once while
 * disconnected, and a decision that Redis does not answer in time follows the
 * {@link FailurePolicy}, marked {@linkplain MutableDecision#degraded() degraded}. After
 * {@linkplain Builder#failureThreshold consecutive failures} a circuit breaker opens: decisions
 * stop going to Redis until a probe (every {@linkplain Builder#probeInterval probe interval}, on
 * the store's own thread) sees Redis answer a {@code PING} and run the script. A connection that
 * stays silent while the client believes it open is replaced by the probe.
 *
 * <p>Nothing that may block runs on a request thread: transitions are logged ({@link
 * System.Logger} {@code io.github.sluice.redis}) and reported to the {@linkplain Builder#listener
 * listener} by the store's event thread, {@code sluice-redis-events-<name>}, one at a time and in
 * order; every other log line goes through that thread too.
 *
 * <h2>Keys</h2>
 * {@code <prefix>:<policy>:{<hash of key>}}, with a TTL equal to the time until the key's state
 * is fresh again; client keys are hashed, never stored. See docs/redis.md.
 *
 * <p>Thread-safe. Close it to release the connection and its threads.
 */
public final class RedisStore implements Store {

    private static final Pattern POLICY_NAME = Pattern.compile("[a-z0-9-]{1,64}");

    /** How long {@link #close()} waits for the event thread to deliver what is queued. */
    private static final long CLOSE_EVENTS_NANOS = 1_000_000_000L;

    private final Engine engine;
    private final ConcurrentHashMap<String, RedisKeySpace> spaces = new ConcurrentHashMap<>();
    /** The policies with plans, by name: each plan a binding of its own on the policy's keys. */
    private final ConcurrentHashMap<String, RedisPlanKeySpace> planSpaces = new ConcurrentHashMap<>();
    /**
     * The probe and the lease renewals, on one thread: the probe runs (and may wait for Redis)
     * only while the breaker is open, when renewals are skipped.
     */
    private final ScheduledExecutorService scheduler;
    private final Duration leaseTimeout;
    private final long connectTimeoutNanos;
    private int rebinds;
    /** When probes began to fail on the connection Lettuce believes open, or 0. Probe only. */
    private long failingSince;

    private RedisStore(Builder b) {
        Connector connector = new Connector(b.endpoint(), b.commandTimeout, b.connectTimeout);
        this.engine = new Engine(b, connector);
        this.leaseTimeout = b.leaseTimeout;
        this.connectTimeoutNanos = b.connectTimeout.toNanos();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-redis-probe-" + b.name);
            t.setDaemon(true);
            return t;
        });
        try {
            // A connect timeout for connecting, another for loading and warming up the script:
            // the first connection of a JVM spends most of a second loading the client's classes.
            connector.connect(connectTimeoutNanos);
            check(engine.realClock.nanos(), connectTimeoutNanos, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            engine.breaker.open(e);
        } catch (Exception e) {
            // Start degraded rather than fail the application's startup; the probe connects later.
            engine.breaker.open(e);
        }
        long probe = b.probeInterval.toNanos();
        scheduler.scheduleWithFixedDelay(this::probe, probe, probe, TimeUnit.NANOSECONDS);
        long renew = Math.max(b.leaseTimeout.toNanos() / 3, 1_000_000L);
        scheduler.scheduleWithFixedDelay(this::renewLeases, renew, renew, TimeUnit.NANOSECONDS);
        if (b.leaseShare > 0) {
            long sweep = Math.max(b.leaseMaxAge.toNanos(), SWEEP_NANOS);
            scheduler.scheduleWithFixedDelay(this::sweepShares, sweep, sweep, TimeUnit.NANOSECONDS);
        }
    }

    /** How often, at least, the shares of idle keys are retired (lease mode). */
    private static final long SWEEP_NANOS = 1_000_000_000L;

    /** Retires the shares of keys idle since their share ended, giving back what is unspent. */
    private void sweepShares() {
        try {
            for (Leasing l : engine.leasings) {
                l.sweep();
            }
        } catch (RuntimeException e) {
            engine.log.log(Level.WARNING, "sluice-redis: sweeping lease shares failed", e);
        }
    }

    /** @return a builder; {@link Builder#uri(String)} or {@link Builder#cluster} is required */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Unlike the in-memory registry, binding a name again with a <em>different</em> algorithm
     * is allowed: a policy changed (say, on a configuration reload). The new key space replaces
     * the old one, and the old one's cached denials are forgotten. State already in Redis is
     * reused where the algorithms agree on its shape and otherwise treated as fresh.
     *
     * @throws IllegalArgumentException if the name is not {@code [a-z0-9-]{1,64}}, or the
     *     algorithm is not supported by the Redis store (warm-up; see docs/redis.md) or has a
     *     parameter beyond what the scripts compute exactly
     */
    @Override
    public KeySpace keySpace(String name, Algorithm<?> algorithm) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(algorithm, "algorithm");
        if (!POLICY_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "policy name must match [a-z0-9-]{1,64} but was '" + name + "'");
        }
        if (algorithm instanceof io.github.sluice.store.PlanAlgorithm plans) {
            return planSpaces.compute(name, (n, was) -> was != null && was.algorithm().equals(plans) ? was
                    : new RedisPlanKeySpace(this, engine, n, plans));
        }
        RedisKeySpace existing = spaces.get(name);
        if (existing != null && existing.binding.algorithm().equals(algorithm)) {
            return existing;
        }
        Binding binding = Bindings.of(algorithm, engine.leaseMicros);
        synchronized (this) {
            existing = spaces.get(name);
            if (existing != null && existing.binding.algorithm().equals(algorithm)) {
                return existing;
            }
            // The fallback registry refuses a rebinding, so a changed policy gets a new name there.
            String fallbackName = existing == null ? name : name + "~" + (++rebinds);
            RedisKeySpace space = new RedisKeySpace(engine, name, binding, fallbackName);
            spaces.put(name, space);
            if (existing != null) {
                existing.invalidate();
                engine.log.log(Level.INFO, "sluice-redis: policy ''{0}'' changed from {1} to {2}",
                        name, existing.binding.algorithm(), algorithm);
            }
            return space;
        }
    }

    /** The name of a plan's key space in the fallback registry, which refuses a name bound to another algorithm. */
    synchronized String planFallbackName(String name, int plan) {
        return name + "~plan" + plan + "~" + (++rebinds);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here the shared state of every key stays where it is and is read under the new parameters
     * (see {@link #keySpace}); {@code inheritance} is not applied key by key. Read so, most changes
     * never leave a key more than it had left plus what the change raises, which is what every
     * strategy but {@link Inheritance#RESET} promises, and are applied as they are; a key idle
     * across a change and its revert reads exactly as before. The others would read some key's
     * state as more permits than that, and are refused unless {@code inheritance} is {@code RESET},
     * under which no key is given more than a fresh one. Which is which, algorithm by algorithm
     * (docs/redis.md, "Policy changes"): a token bucket may change its rate if the time its bucket
     * takes to fill moves the other way or stays (so {@code 100/1m} to {@code 200/1m} or
     * {@code 50/1m} is applied); GCRA and the policing leaky bucket may raise their rate with any
     * burst, and lower it if a full burst takes no longer to earn back; the windows, the sliding
     * log, smooth-bursty and shaping may change only their limit (burst, capacity, slack); no
     * policy its algorithm.
     *
     * @throws IllegalArgumentException if the change is one of those refused and
     *     {@code inheritance} is not {@link Inheritance#RESET} (the message names the policy, what
     *     changes, why, and the ways to apply it), or as {@link #keySpace} throws
     */
    @Override
    public KeySpace rebind(KeySpace current, Algorithm<?> algorithm, Inheritance inheritance) {
        Objects.requireNonNull(current, "current");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(inheritance, "inheritance");
        Algorithm<?> before = current.algorithm();
        if (before.equals(algorithm)) {
            return current;
        }
        String unsafe = inheritance == Inheritance.RESET ? null : AsIsChange.unsafe(before, algorithm);
        if (unsafe != null) {
            throw new IllegalArgumentException("policy '" + current.name() + "': the Redis store reads each key's"
                    + " state as it is under the new parameters, and this change changes " + unsafe + "; it would"
                    + " break what " + inheritance + " promises (no key left more than it had plus what the change"
                    + " raises). Apply it with Inheritance.RESET (config-reload=reset), or give the policy a new"
                    + " name (see docs/redis.md, \"Policy changes\")");
        }
        return keySpace(current.name(), algorithm);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Policies whose Redis keys share a cluster slot (all the policies keyed by the same
     * client key do) are decided by one script call, atomically; other groups are sent in
     * parallel and awaited together within one command timeout, and given back if any denies.
     * Key spaces of another store are handled one after the other by the default algorithm.
     */
    @Override
    public boolean acquireAll(Claim claims) {
        int count = 0;
        for (Claim c = Objects.requireNonNull(claims, "claims"); c != null; c = c.next()) {
            if (!(c.space() instanceof RedisKeySpace r) || r.engine != engine) {
                return Store.super.acquireAll(claims);
            }
            count++;
        }
        Acquisition.Member[] members = new Acquisition.Member[count];
        Claim c = claims;
        for (int i = 0; i < count; i++, c = c.next()) {
            members[i] = new Acquisition.Member((RedisKeySpace) c.space(), c.key(), c.cost(), c.decision());
        }
        if (engine.leaseShare > 0 && Leasing.any(members)) {
            return Leasing.acquireAll(engine, members);
        }
        return Acquisition.run(engine, members) < 0;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The same decision as {@link #acquireAll}, through the client's asynchronous API: the
     * groups' script calls are sent and not awaited, the command timeout is a timer set at the
     * request's arrival (thread {@code sluice-redis-timer-<name>}), a group that fails or times
     * out follows the failure policy and counts for the circuit breaker, a partial admission is
     * refunded by receipt, and a concurrency limit's bounded wait polls on the timer. The stage
     * completes on the thread that decides last: the client's I/O thread on a reply, the timer on
     * a timeout, the calling thread when a cached denial, the open breaker or a refused call
     * decided at once (then it is {@link io.github.sluice.store.Decided#ADMITTED} or
     * {@code REFUSED} if nothing waited). Key spaces of another store (an enforcer's local
     * adaptive policies) are decided in turn with this store's, as the synchronous path does
     * ({@link Store#acquireInTurn}).
     */
    @Override
    public java.util.concurrent.CompletionStage<Boolean> acquireAllAsync(Claim claims) {
        int count = 0;
        for (Claim c = Objects.requireNonNull(claims, "claims"); c != null; c = c.next()) {
            if (!(c.space() instanceof RedisKeySpace r) || r.engine != engine) {
                return Store.acquireInTurn(claims);
            }
            count++;
        }
        Acquisition.Member[] members = new Acquisition.Member[count];
        Claim c = claims;
        for (int i = 0; i < count; i++, c = c.next()) {
            members[i] = new Acquisition.Member((RedisKeySpace) c.space(), c.key(), c.cost(), c.decision());
        }
        if (engine.leaseShare > 0 && Leasing.any(members)) {
            return Leasing.acquireAllAsync(engine, members);
        }
        return AsyncAcquisition.run(engine, members);
    }

    /** @return how many acquisitions wait in a queue for the next batch of their keys (tests) */
    int queuedForBatch() {
        return engine.queued();
    }

    /** @return {@code true} while decisions follow the failure policy (the breaker is open) */
    public boolean degraded() {
        return engine.breaker.isOpen();
    }

    /** @return the failure policy */
    public FailurePolicy failurePolicy() {
        return engine.failure;
    }

    /** @return the store's name, as given to the listener and in log lines */
    public String name() {
        return engine.name;
    }

    /**
     * The latency of this store's script calls, per operation: {@code acquire} (a decision),
     * {@code release} (a concurrency release or a refund), {@code renew} (a lease renewal) and
     * {@code probe} (the health check), each timed from the moment the call is handed to the
     * client until Redis's reply is read (an error reply included; a call that ends without a
     * reply is not timed, and shows as a degraded decision instead). The enforcer hands it to its
     * metrics, which export it as {@code sluice.store.latency}; timing a call takes no lock and
     * allocates nothing.
     *
     * @return the store's latency histogram, always the same object
     */
    @Override
    public StoreLatency latency() {
        return engine.latency;
    }

    /**
     * @return how many log lines the store dropped, and breaker transitions it merged, because
     *     the log handler or the listener could not keep up with the store's event thread (see
     *     docs/redis.md); 0 unless one of them is slow
     */
    public long droppedEvents() {
        return engine.log.dropped();
    }

    /**
     * Stops the probe, closes the connection and the client's threads. From now on every decision
     * follows the failure policy at once, without events. Waits at most about 3 s: 2 s for Lettuce
     * to shut down, 1 s for the event thread to deliver what is queued (a listener still blocked
     * then is interrupted and left behind). Idempotent.
     */
    @Override
    public void close() {
        engine.breaker.halt();
        for (Leasing l : engine.leasings) {
            l.close(); // dropped, not given back: see Builder#leases
        }
        scheduler.shutdownNow();
        engine.connector.close();
        engine.closeTimer();
        engine.log.close(CLOSE_EVENTS_NANOS);
    }

    /**
     * Checks that Redis decides: it answers {@code PING}, has the function library and the script
     * (loaded here if it did not; see {@link Builder#functions}), runs it, and accepts a write, on
     * every master of a cluster (the probe key of each is in a slot that master serves, and goes
     * through the same routing as a decision). At startup
     * this also loads the client's whole decision path, so that the first real decision does not
     * spend its short command timeout on class loading or on {@code NOSCRIPT}.
     *
     * <p>A PONG alone is no proof: a server under {@code CLIENT PAUSE WRITE}, or a primary
     * demoted to a read-only replica by a failover, answers PING and refuses every decision.
     *
     * @param start when the check began (real clock)
     * @param stepNanos how long each step (PING, the script's runs) may take; loading the script
     *     may take the connect timeout
     * @param write whether to write the probe keys (not at startup: the script's run is enough to
     *     warm up, and a store that merely starts leaves no key behind)
     * @throws IllegalStateException if there is no connection
     * @throws Exception if a step failed or took too long
     */
    private void check(long start, long stepNanos, boolean write) throws Exception {
        RedisClusterAsyncCommands<String, String> c = engine.connector.async();
        int[] masters = engine.connector.masterSlots();
        if (c == null || masters == null) {
            throw new IllegalStateException("not connected");
        }
        String pong = engine.await(c.ping().toCompletableFuture(), start + stepNanos);
        if (!"PONG".equals(pong)) {
            throw new IllegalStateException("PING answered " + pong);
        }
        engine.loadLibrary(start + connectTimeoutNanos);
        if (!engine.connector.cluster()) {
            // A cluster's masters load it through the probe's NOSCRIPT, each its own; the script
            // is loaded even where calls go by FCALL, for the EVALSHA they turn to if the library
            // is lost.
            engine.await(c.scriptLoad(engine.script.source()).toCompletableFuture(),
                    start + connectTimeoutNanos);
        } else if (masters.length == 0) {
            throw new IllegalStateException("the cluster has no master serving slots");
        }
        long ttl = write ? connectTimeoutNanos / 1_000_000 + 1 : 0;
        int[] slots = masters.length == 0 ? new int[] {0} : masters;
        ScriptCall[] calls = new ScriptCall[slots.length];
        for (int i = 0; i < slots.length; i++) {
            calls[i] = ScriptCall.probe(engine.script, engine.via(), engine.probePart(slots[i]), ttl,
                    engine.connector.cluster());
            engine.send(calls[i]);
        }
        long deadline = Math.min(start + connectTimeoutNanos, engine.realClock.nanos() + stepNanos);
        for (ScriptCall call : calls) {
            engine.await(call, deadline);
        }
    }

    /**
     * While the breaker is closed: load the function library again if a call found it missing
     * (see {@link Builder#functions}). While the breaker is open: connect if there is no
     * connection, {@linkplain #check check} that Redis decides, and only then close the breaker;
     * closing on a PONG would make requests pay
     * for a Redis that refuses them again and again. Runs on the store's probe thread, bounded by
     * the connect timeout (connecting, loading) and the command timeout (each other step). On a
     * cluster, a failed probe also asks the client to refresh its map of the cluster at once: a
     * replica may have taken over from a master that does not answer.
     */
    private void probe() {
        if (!engine.breaker.isOpen()) {
            failingSince = 0;
            engine.reloadIfLost(connectTimeoutNanos);
            return;
        }
        try {
            engine.connector.connect(connectTimeoutNanos);
            long start = engine.realClock.nanos();
            try {
                check(start, engine.timeoutNanos, true);
            } catch (Exception e) {
                replaceIfFailing(start);
                engine.connector.refreshTopology();
                throw e;
            }
            failingSince = 0;
            engine.breaker.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            engine.log.log(Level.DEBUG, "sluice-redis ''{0}'': probe failed: {1}", engine.name, e);
        }
    }

    /**
     * A probe failed on a connection that Lettuce believes open. Lettuce reconnects by itself only
     * when the connection breaks; a server whose host froze or vanished without a reset (or that
     * a firewall cut off) leaves it open for minutes, until the operating system gives up, and a
     * connection to a primary demoted by a failover stays open to the replica for good. Once the
     * probe has failed on the same open connection for the connect timeout, it is replaced: a new
     * connection resolves the address again.
     */
    private void replaceIfFailing(long now) {
        if (!engine.connector.isOpen()) {
            failingSince = 0;
            return;
        }
        if (failingSince == 0) {
            failingSince = now;
        } else if (now - failingSince >= connectTimeoutNanos) {
            engine.log.log(Level.INFO, "sluice-redis ''{0}'': the connection to {1} has failed every"
                    + " probe for {2}; replacing it", engine.name, engine.connector.describe(),
                    Engine.human(now - failingSince));
            engine.connector.replace();
            failingSince = 0;
        }
    }

    /** Extends the leases this instance holds, so a long request keeps its concurrency permit. */
    private void renewLeases() {
        if (engine.breaker.isOpen()) {
            return;
        }
        try {
            for (RedisKeySpace space : spaces.values()) {
                if (space.leases == null) {
                    continue;
                }
                for (Map.Entry<String, List<LeaseBook.Lease>> e : space.leases.redisLeases().entrySet()) {
                    List<LeaseBook.Lease> held = e.getValue();
                    Part[] parts = new Part[held.size()];
                    for (int i = 0; i < held.size(); i++) {
                        LeaseBook.Lease l = held.get(i);
                        Part p = new Part(space.binding, space.head, l.count());
                        p.key = e.getKey();
                        p.id = l.id();
                        p.first = l.first();
                        parts[i] = p;
                    }
                    engine.fireAndForget('n', engine.nowArg(engine.localClock.nanos()), parts, 0);
                }
            }
        } catch (RuntimeException e) {
            engine.log.log(Level.WARNING, "sluice-redis: lease renewal failed", e);
        }
    }

    @Override
    public String toString() {
        return "RedisStore{" + engine.name + ", " + engine.connector.describe() + ", "
                + engine.failure + (degraded() ? ", degraded" : "") + ", policies=" + spaces.keySet()
                + ", leaseTimeout=" + Engine.human(leaseTimeout.toNanos())
                + (engine.leaseShare > 0 ? ", leases=" + engine.leaseShare + "/" + Engine.human(engine.leaseMaxAgeNanos)
                        : "") + '}';
    }

    /**
     * Builds a {@link RedisStore}. Not thread-safe. Every setter has a default except
     * {@link #uri(String)} or {@link #cluster(String...)}, one of which is required.
     */
    public static final class Builder {
        private Endpoint uri;
        private Endpoint cluster;
        String name = "redis";
        String prefix = "sluice";
        byte[] keySecret;
        Duration commandTimeout = Duration.ofMillis(50);
        Duration connectTimeout = Duration.ofSeconds(1);
        Duration probeInterval = Duration.ofMillis(100);
        int failureThreshold = 3;
        FailurePolicy failurePolicy = FailurePolicy.failOpen();
        Clock clientClock;
        /**
         * The instance's own clock while the script reads Redis {@code TIME}: what calendar
         * windows' bounds are computed around, and what times the denial cache and the fallback.
         * The system clock; package-private so that tests can give an instance a skewed clock.
         */
        Clock systemClock = Clock.system();
        int denialCacheSize = 4096;
        Duration leaseTimeout = Duration.ofSeconds(30);
        StoreListener listener = StoreListener.NONE;
        boolean functions = true;
        boolean coalescing = true;
        int maxBatch = 128;
        double leaseShare;
        Duration leaseMaxAge = Duration.ofMillis(100);

        private Builder() {
        }

        /**
         * Sets where Redis is, in Lettuce's URI syntax: {@code redis://[password@]host[:port][/db]},
         * {@code rediss://} for TLS, {@code redis-sentinel://} for Sentinel; or a Redis Cluster by
         * its seed nodes, {@code redis-cluster://[password@]host:port,host:port,...}
         * ({@code rediss-cluster://} for TLS; the password and options apply to every node, a
         * port left out is 6379). Either this or {@link #cluster(String...)} is required.
         *
         * @param uri the URI
         * @return this builder
         * @throws NullPointerException if {@code uri} is null
         * @throws IllegalArgumentException if the URI is malformed (the message names it, without
         *     its password)
         */
        public Builder uri(String uri) {
            this.uri = Endpoint.parse(uri);
            return this;
        }

        /**
         * Sets a Redis Cluster by its seed nodes, each a {@code redis://} or {@code rediss://} URI:
         * the client discovers the other nodes from any seed that answers, follows the cluster's
         * redirections, and finds a replica that took over from a failed master. The same as
         * {@link #uri(String)} with a {@code redis-cluster://} URI. Either this or {@code uri} is
         * required.
         *
         * @param seeds at least one URI, e.g. {@code "redis://10.0.0.1:6379"}
         * @return this builder
         * @throws NullPointerException if {@code seeds} or one of them is null
         * @throws IllegalArgumentException if there is none, or one is malformed or not a single
         *     node's
         */
        public Builder cluster(String... seeds) {
            Objects.requireNonNull(seeds, "cluster");
            this.cluster = Endpoint.cluster(java.util.Arrays.asList(seeds));
            return this;
        }

        Endpoint endpoint() {
            return uri != null ? uri : cluster;
        }

        /**
         * Sets the name used in log lines and listener events. Default {@code redis}.
         *
         * @param name the name
         * @return this builder
         * @throws NullPointerException if {@code name} is null
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Sets the first segment of every Redis key. Default {@code sluice}.
         *
         * @param prefix a non-empty prefix without {@code ':'}, {@code '{'} or {@code '}'}
         * @return this builder
         * @throws NullPointerException if {@code prefix} is null
         * @throws IllegalArgumentException if it is empty or has a reserved character
         */
        public Builder prefix(String prefix) {
            Objects.requireNonNull(prefix, "prefix");
            if (prefix.isEmpty() || prefix.matches(".*[:{}].*")) {
                throw new IllegalArgumentException(
                        "prefix must be non-empty without ':', '{' or '}' but was '" + prefix + "'");
            }
            this.prefix = prefix;
            return this;
        }

        /**
         * Hashes client keys with HMAC-SHA-256 under this secret instead of plain SHA-256, so that
         * keys with few possible values (IPv4 addresses) cannot be recovered from Redis. Every
         * instance sharing the limits must use the same secret. Default: none.
         *
         * @param secret the secret, at least 16 characters
         * @return this builder
         * @throws NullPointerException if {@code secret} is null
         * @throws IllegalArgumentException if it is shorter than 16 characters
         */
        public Builder keySecret(String secret) {
            Objects.requireNonNull(secret, "keySecret");
            if (secret.length() < 16) {
                throw new IllegalArgumentException(
                        "keySecret must be at least 16 characters but was " + secret.length());
            }
            this.keySecret = secret.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /**
         * Sets the longest time a request waits for Redis. Default 50 ms.
         *
         * @param timeout between 1 ms and 10 s
         * @return this builder
         * @throws NullPointerException if {@code timeout} is null
         * @throws IllegalArgumentException if it is out of range
         */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = between("commandTimeout", timeout, Duration.ofMillis(1),
                    Duration.ofSeconds(10));
            return this;
        }

        /**
         * Sets the connect timeout, used at startup and by the probe, never on a request: the
         * longest wait for a connection (handshake included), and, separately, for loading the
         * script into Redis. A connection that has not answered for this long while the client
         * believes it open is replaced. Default 1 s.
         *
         * @param timeout between 10 ms and 60 s
         * @return this builder
         * @throws NullPointerException if {@code timeout} is null
         * @throws IllegalArgumentException if it is out of range
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = between("connectTimeout", timeout, Duration.ofMillis(10),
                    Duration.ofSeconds(60));
            return this;
        }

        /**
         * Sets how often the probe checks Redis while the breaker is open. Default 100 ms.
         *
         * @param interval between 10 ms and 10 s
         * @return this builder
         * @throws NullPointerException if {@code interval} is null
         * @throws IllegalArgumentException if it is out of range
         */
        public Builder probeInterval(Duration interval) {
            this.probeInterval = between("probeInterval", interval, Duration.ofMillis(10),
                    Duration.ofSeconds(10));
            return this;
        }

        /**
         * Sets how many consecutive failed calls open the circuit breaker. Default 3.
         *
         * @param failures {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if {@code failures < 1}
         */
        public Builder failureThreshold(int failures) {
            if (failures < 1) {
                throw new IllegalArgumentException("failureThreshold must be >= 1 but was " + failures);
            }
            this.failureThreshold = failures;
            return this;
        }

        /**
         * Sets what is decided while Redis is unavailable. Default {@link FailurePolicy#failOpen()}.
         *
         * @param policy the policy
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        public Builder failurePolicy(FailurePolicy policy) {
            this.failurePolicy = Objects.requireNonNull(policy, "failurePolicy");
            return this;
        }

        /**
         * Uses this clock instead of Redis {@code TIME}, for managed Redis services that forbid
         * {@code TIME} in scripts. Every instance sharing the limits must then have a synchronised
         * clock (NTP): the skew between two instances is an error on every window and rate. The
         * clock must also run at real speed, since key TTLs run on Redis's clock. Default: Redis
         * {@code TIME}.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if {@code clock} is null
         */
        public Builder clientClock(Clock clock) {
            this.clientClock = Objects.requireNonNull(clock, "clientClock");
            return this;
        }

        /**
         * Sets the slots of each policy's local denial cache, or {@code 0} to turn it off.
         * Default 4096.
         *
         * @param slots between 0 and 2^20
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder denialCacheSize(int slots) {
            if (slots < 0 || slots > 1 << 20) {
                throw new IllegalArgumentException(
                        "denialCacheSize must be between 0 and " + (1 << 20) + " but was " + slots);
            }
            this.denialCacheSize = slots;
            return this;
        }

        /**
         * Sets how long a concurrency permit survives without renewal: the permits of an instance
         * that crashed come back after this time. Leases of running requests are renewed every
         * third of it. Default 30 s.
         *
         * @param timeout between 1 s and 1 day
         * @return this builder
         * @throws NullPointerException if {@code timeout} is null
         * @throws IllegalArgumentException if out of range
         */
        public Builder leaseTimeout(Duration timeout) {
            this.leaseTimeout = between("leaseTimeout", timeout, Duration.ofSeconds(1),
                    Duration.ofDays(1));
            return this;
        }

        /**
         * Sets the listener told when the store degrades ({@link StoreListener#storeDegraded})
         * and recovers ({@link StoreListener#storeRecovered}), typically the enforcer's own
         * listener (an {@code EnforcementListener} is a {@code StoreListener}). Called on
         * the store's event thread ({@code sluice-redis-events-<name>}), never on a request
         * thread: one call at a time, in the order of the transitions (degraded, recovered,
         * degraded...), shortly after each. A listener that blocks delays only the store's later
         * events and log lines; transitions it misses meanwhile are merged (see
         * {@link RedisStore#droppedEvents()}). Default none.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder listener(StoreListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Sets whether decisions may go by a Redis 7 function ({@code FCALL}) rather than by the
         * script's digest ({@code EVALSHA}). Default {@code true}.
         *
         * <p>When on, the store loads its function library ({@code FUNCTION LOAD}: the same Lua
         * files as the script, every algorithm defined once, by the function's first call, rather
         * than on every call) at startup and whenever the probe checks Redis, on the server or on
         * every master of a cluster; a replica receives it from its master. Calls then go by {@code FCALL}, which spares the server
         * the script's definitions on every call (a few microseconds of its single thread per
         * decision). Where Redis refuses the library ({@code FUNCTION} unknown before Redis 7,
         * or denied by an ACL or a managed service), calls go by {@code EVALSHA}, and the reason
         * is logged once at INFO. A call that finds the function gone ({@code FUNCTION FLUSH}, a
         * node new to the cluster) is repeated with the script's source within its own timeout,
         * calls go by {@code EVALSHA} from then on, and the probe's thread loads the library
         * again within a {@linkplain #probeInterval probe interval}. Decisions are the same either
         * way. The library's name, {@code sluice_<12 hex digits>}, is a digest of its text: two
         * versions of Sluice sharing a server each load and call their own.
         *
         * <p>Turn it off where an application must not add functions to the server (the library
         * is persisted and replicated with the data, unlike the script cache).
         *
         * @param enabled {@code false} to call the script by {@code EVALSHA} only
         * @return this builder
         */
        public Builder functions(boolean enabled) {
            this.functions = enabled;
            return this;
        }

        /**
         * Sets whether concurrent decisions on the same keys share round trips. Default {@code
         * true}.
         *
         * <p>When on, a request whose keys (the same policies' keys for the same client key) are
         * already being decided by a call in flight from this store does not send its own call: it
         * queues, and every request queued meanwhile is decided by the next call, a batch, sent as
         * soon as the call in flight completes. The script decides a batch's requests one after the
         * other in queue order, each all or nothing exactly as its own call would be, so each gets
         * its own exact decision and no more permits are admitted than with one call each. A
         * queued request waits for at most the rest of the call in flight plus its own batch's
         * round trip, and never beyond the {@linkplain #commandTimeout command timeout}; a batch that
         * fails or times out is decided for each of its requests by the failure policy. A request
         * alone on its keys is sent at once, as without coalescing. See docs/redis.md,
         * "Coalescing".
         *
         * @param enabled {@code false} to send one call per request
         * @return this builder
         */
        public Builder coalescing(boolean enabled) {
            this.coalescing = enabled;
            return this;
        }

        /**
         * Sets how many requests one batch decides at most (see {@link #coalescing}); more queued
         * requests go as further batches, sent one after the other. Default 128.
         *
         * @param requests between 2 and 1024
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxBatch(int requests) {
            if (requests < 2 || requests > 1024) {
                throw new IllegalArgumentException("maxBatch must be between 2 and 1024 but was " + requests);
            }
            this.maxBatch = requests;
            return this;
        }

        /**
         * Turns on lease mode (off by default): per client key, this instance takes a share of the
         * key's quota from Redis in one call and decides that key's requests locally, with no round
         * trip, until the share is spent or {@code maxAge} has passed; then it takes the next share
         * (one take in flight per key; requests that find the share spent meanwhile wait for that
         * take, and are decided exactly, per request, if the requests ahead of them spend it).
         *
         * <p>The price is a bounded over-admission: in any window, each instance may admit up to
         * one share per key beyond what the policy allows, since a share's permits leave Redis
         * before they are admitted, and a share lives at most {@code maxAge}. A fixed window's
         * share also ends with its window, so a window's count is never exceeded. Leased: the
         * token bucket, GCRA, the policing leaky bucket and the fixed windows. Every other
         * algorithm (concurrency, shaping, the sliding window and log, smooth-bursty) is decided
         * per request as without leases, which is logged at WARNING when such a policy is bound;
         * each leased policy is logged at INFO with its share. A request whose cost exceeds the
         * share is decided exactly too.
         *
         * <p>A share's unspent permits, once it has ended, are given back to Redis by the take's
         * receipt (which gives back only what is still the take's: for a bucket, what it has not
         * refilled since the take); those of a store that closes are dropped. See docs/redis.md,
         * "Lease mode", for the bound, the RateLimit fields of a local decision, and failures.
         *
         * @param share each share's fraction of a policy's limit (a bucket's burst, a window's
         *     limit), in {@code (0, 1]}; a share is {@code max(1, floor(share * limit))} permits
         * @param maxAge how long a share may be spent, between 1 ms and 1 min
         * @return this builder
         * @throws NullPointerException if {@code maxAge} is null
         * @throws IllegalArgumentException if {@code share} or {@code maxAge} is out of range
         */
        public Builder leases(double share, Duration maxAge) {
            if (!(share > 0 && share <= 1)) {
                throw new IllegalArgumentException("leases share must be in (0, 1] (a fraction of each"
                        + " policy's limit) but was " + share);
            }
            this.leaseMaxAge = between("leases maxAge", maxAge, Duration.ofMillis(1), Duration.ofMinutes(1));
            this.leaseShare = share;
            return this;
        }

        /**
         * Builds the store and tries to connect, waiting at most twice the connect timeout (once
         * to connect, once to load and warm up the script), plus, for the first store of a JVM,
         * the time the client takes to load its classes. If Redis is unavailable the store starts
         * degraded and connects as soon as the probe succeeds.
         *
         * @return the store
         * @throws IllegalStateException if neither a URI nor cluster seeds were set, or both
         */
        public RedisStore build() {
            if (uri == null && cluster == null) {
                throw new IllegalStateException("uri (or cluster) must be set");
            }
            if (uri != null && cluster != null) {
                throw new IllegalStateException("set either uri (" + uri + ") or cluster (" + cluster
                        + "), not both");
            }
            return new RedisStore(this);
        }

        private static String human(Duration d) {
            if (d.abs().toDays() > 100_000) {
                return d.toDays() + "d"; // beyond a long of nanoseconds
            }
            return d.isNegative() ? "-" + Engine.human(d.negated().toNanos()) : Engine.human(d.toNanos());
        }

        private static Duration between(String name, Duration value, Duration min, Duration max) {
            Objects.requireNonNull(value, name);
            if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(
                        name + " must be between " + human(min) + " and " + human(max) + " but was " + human(value));
            }
            return value;
        }
    }
}
