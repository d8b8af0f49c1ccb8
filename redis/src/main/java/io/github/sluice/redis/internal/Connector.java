package io.github.sluice.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Owns the Lettuce client and its one connection (to a server, or to a cluster: one connection
 * per node behind one facade), configured for a rate limiter's needs:
 * <ul>
 *   <li>commands are <em>rejected</em> while disconnected instead of queued
 *       ({@code DisconnectedBehavior.REJECT_COMMANDS}), so a request never waits for a
 *       reconnection;
 *   <li>every command but the script's times out after the command timeout
 *       ({@code TimeoutOptions}), so Lettuce does not keep stale commands. A script call is timed
 *       by the request that waits for it (and a call nobody waits for is a release, which may
 *       take its time); sparing Lettuce a timer per decision keeps the decision path lean. A
 *       connection that stops answering altogether is {@linkplain #replace() replaced}, which
 *       fails what it still holds;
 *   <li>auto-reconnect is on, with a short capped back-off (10 ms doubling to 200 ms), so the
 *       connection is back within a fraction of a second of Redis;
 *   <li>a short connect timeout, which {@link #connect(long)} enforces itself: Lettuce's blocking
 *       connect waits for its handshake without a bound of its own (and a TLS handshake has a
 *       10 s timeout of its own).
 * </ul>
 * For a cluster, the client also follows {@code MOVED} and {@code ASK} redirections (up to
 * {@value #MAX_REDIRECTS}), and refreshes its map of slots to nodes on every sign of change
 * (redirections, reconnection attempts, failed nodes), at most once per
 * {@link #TOPOLOGY_REFRESH_MIN}, and every {@link #TOPOLOGY_REFRESH_PERIOD} regardless; nodes the
 * cluster marked as failed are left out of the map. {@link #refreshTopology()} asks for a
 * refresh at once: the probe does when a master does not answer, to find the replica that takes
 * over.
 *
 * <p>If the first connection fails, {@link #async()} returns {@code null} (and
 * {@link #dispatch} fails the call) until {@link #connect(long)} succeeds (the store's probe
 * retries it).
 *
 * <p>Thread-safe.
 */
public final class Connector implements AutoCloseable {

    /** Redirections a cluster call follows before it fails. */
    public static final int MAX_REDIRECTS = 5;
    /** The shortest interval between two refreshes of the cluster's map triggered by events. */
    public static final Duration TOPOLOGY_REFRESH_MIN = Duration.ofSeconds(1);
    /** The interval between two refreshes of the cluster's map without events. */
    public static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(30);

    private final Endpoint endpoint;
    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final Duration connectTimeout;
    private final AtomicReference<StatefulConnection<String, String>> connection =
            new AtomicReference<>();
    /** The connection attempt under way, or {@code null}. */
    private final AtomicReference<CompletableFuture<? extends StatefulConnection<String, String>>> pending =
            new AtomicReference<>();
    private volatile boolean closed;

    /**
     * Creates the client; does not connect.
     *
     * @param uri a Redis URI, e.g. {@code redis://host:6379/0}, {@code rediss://...}, or a
     *     cluster's {@code redis-cluster://host:port,host:port}
     * @param commandTimeout the command timeout
     * @param connectTimeout the connect timeout
     * @throws IllegalArgumentException if the URI is malformed
     */
    public Connector(String uri, Duration commandTimeout, Duration connectTimeout) {
        this(Endpoint.parse(uri), commandTimeout, connectTimeout);
    }

    /**
     * Creates the client; does not connect.
     *
     * @param endpoint where Redis is
     * @param commandTimeout the command timeout
     * @param connectTimeout the connect timeout
     */
    public Connector(Endpoint endpoint, Duration commandTimeout, Duration connectTimeout) {
        this.endpoint = endpoint;
        this.connectTimeout = connectTimeout;
        this.resources = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofMillis(200), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        TimeoutOptions timeouts = TimeoutOptions.builder()
                .timeoutSource(new ExceptScriptCalls(commandTimeout)).build();
        SocketOptions socket = SocketOptions.builder().connectTimeout(connectTimeout).build();
        if (endpoint.cluster()) {
            List<RedisURI> seeds = new ArrayList<>();
            for (RedisURI seed : endpoint.seeds()) {
                // The URI's timeout bounds the connection handshake (HELLO, AUTH), which a cold
                // JVM can take long over; commands have their own timeout.
                seed.setTimeout(connectTimeout);
                seeds.add(seed);
            }
            RedisClusterClient c = RedisClusterClient.create(resources, seeds);
            c.setOptions(ClusterClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(timeouts)
                    .socketOptions(socket)
                    .maxRedirects(MAX_REDIRECTS)
                    .nodeFilter(n -> !n.is(RedisClusterNode.NodeFlag.FAIL)
                            && !n.is(RedisClusterNode.NodeFlag.NOADDR))
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .adaptiveRefreshTriggersTimeout(TOPOLOGY_REFRESH_MIN)
                            .refreshTriggersReconnectAttempts(3)
                            .enablePeriodicRefresh(TOPOLOGY_REFRESH_PERIOD)
                            .dynamicRefreshSources(true)
                            .closeStaleConnections(true)
                            .build())
                    .build());
            this.client = c;
        } else {
            RedisClient c = RedisClient.create(resources, single());
            c.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(timeouts)
                    .socketOptions(socket)
                    .build());
            this.client = c;
        }
    }

    /**
     * Connects if not connected yet, waiting at most {@code timeoutNanos}: call it at startup or
     * from the probe, never from a request. An attempt that completes after the wait is not
     * wasted: the connection is taken when it comes (the first connection of a JVM may spend a
     * second loading the client's classes), and a later call waits for that same attempt rather
     * than starting another.
     *
     * @param timeoutNanos the longest wait, nanoseconds
     * @throws RedisConnectionException if the attempt failed or did not complete in time
     */
    public synchronized void connect(long timeoutNanos) {
        if (connection.get() != null || closed) {
            return;
        }
        CompletableFuture<? extends StatefulConnection<String, String>> f = pending.get();
        if (f == null) {
            CompletableFuture<? extends StatefulConnection<String, String>> started = start();
            pending.set(started);
            // On a Lettuce thread: takes no lock, never blocks.
            started.whenComplete((c, e) -> {
                pending.compareAndSet(started, null);
                if (c != null) {
                    adopt(c);
                }
            });
            f = started;
        }
        try {
            adopt(f.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            throw new RedisConnectionException("could not connect to " + describe() + " within "
                    + Human.duration(timeoutNanos) + " (the attempt goes on)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisConnectionException("interrupted while connecting to " + describe(), e);
        } catch (ExecutionException e) {
            throw new RedisConnectionException("could not connect to " + describe() + ": "
                    + e.getCause(), e.getCause());
        }
    }

    private CompletableFuture<? extends StatefulConnection<String, String>> start() {
        if (client instanceof RedisClusterClient c) {
            // Lettuce's asynchronous connect needs the cluster's map loaded first (its blocking
            // connect loads it itself, without a bound on the wait).
            return c.refreshPartitionsAsync().toCompletableFuture()
                    .thenCompose(loaded -> c.connectAsync(StringCodec.UTF8));
        }
        RedisClient c = (RedisClient) client;
        return c.connectAsync(StringCodec.UTF8, single()).toCompletableFuture();
    }

    /** @return the single server's URI with the connect timeout, which bounds the handshake */
    private RedisURI single() {
        // The URI's timeout bounds the connection handshake (HELLO, AUTH, SELECT), which a cold
        // JVM can take long over; commands have their own timeout.
        RedisURI uri = endpoint.single();
        uri.setTimeout(connectTimeout);
        return uri;
    }

    /** Takes a new connection unless there is one already or the connector is closed. */
    private void adopt(StatefulConnection<String, String> c) {
        if (connection.get() == c) {
            return;
        }
        if (closed || (!connection.compareAndSet(null, c) && connection.get() != c)) {
            c.closeAsync();
        } else if (closed && connection.compareAndSet(c, null)) {
            // close() ran meanwhile and did not see this connection.
            c.closeAsync();
        }
    }

    /** @return whether there is a connection and Lettuce believes it is open */
    public boolean isOpen() {
        StatefulConnection<String, String> c = connection.get();
        return c != null && c.isOpen();
    }

    /** @return whether this connects to a Redis Cluster */
    public boolean cluster() {
        return endpoint.cluster();
    }

    /**
     * Closes the connection without waiting, so that the next {@link #connect(long)} opens a new
     * one: for a connection that Lettuce believes open but that no longer answers. Commands still
     * waiting on it fail at once.
     */
    public void replace() {
        StatefulConnection<String, String> c = connection.getAndSet(null);
        if (c != null) {
            c.closeAsync();
        }
    }

    /**
     * Sends a script call. Never blocks; if there is no connection, or the client refuses the call
     * (disconnected), the call is completed exceptionally before this method returns.
     *
     * @param call the call
     */
    public void dispatch(ScriptCall call) {
        StatefulConnection<String, String> c = connection.get();
        if (c == null || closed) {
            call.completeExceptionally(new RedisConnectionException("not connected to " + describe()));
            return;
        }
        try {
            c.dispatch(call);
        } catch (RuntimeException e) {
            call.completeExceptionally(e);
        }
    }

    /**
     * @return the asynchronous commands of the connection (of a cluster: routed by key, or to any
     *     node for commands without a key), or {@code null} if there is no connection
     */
    public RedisClusterAsyncCommands<String, String> async() {
        StatefulConnection<String, String> c = connection.get();
        if (c == null || closed) {
            return null;
        }
        if (c instanceof StatefulRedisClusterConnection<String, String> cc) {
            return cc.async();
        }
        return ((StatefulRedisConnection<String, String>) c).async();
    }

    /**
     * @return for a cluster, one slot of each master in the client's current map (the probe checks
     *     every master through the slots it serves); for a single server, an empty array; {@code
     *     null} if there is no connection
     * @throws IllegalStateException if the map leaves a slot without a master: between a master's
     *     failure and its replica's promotion, the failed node is left out of the map and its
     *     slots' keys cannot be decided, so the store must stay degraded rather than recover and
     *     fail again on the first request for one of them
     */
    public int[] masterSlots() {
        StatefulConnection<String, String> c = connection.get();
        if (c == null || closed) {
            return null;
        }
        if (!(c instanceof StatefulRedisClusterConnection<String, String> cc)) {
            return new int[0];
        }
        List<Integer> slots = new ArrayList<>();
        BitSet served = new BitSet(SlotHash.SLOT_COUNT);
        for (RedisClusterNode node : cc.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
                slots.add(node.getSlots().get(0));
                for (int slot : node.getSlots()) {
                    served.set(slot);
                }
            }
        }
        if (served.cardinality() < SlotHash.SLOT_COUNT) {
            throw new IllegalStateException("the cluster's map has a master for "
                    + served.cardinality() + " of " + SlotHash.SLOT_COUNT + " slots (slot "
                    + served.nextClearBit(0) + " has none)");
        }
        return slots.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Sends {@code FUNCTION LOAD} of a library to the server, or to every master of a cluster in
     * the client's current map (the command has no key; a replica gets the library from its
     * master, which replicates and persists functions). Does not wait.
     *
     * @param library the library's text
     * @return for each node (the server, or each master, as {@code host:port}), its answer; {@code
     *     null} if there is no connection
     */
    public Map<String, CompletableFuture<String>> functionLoad(String library) {
        StatefulConnection<String, String> c = connection.get();
        if (c == null || closed) {
            return null;
        }
        Map<String, CompletableFuture<String>> answers = new LinkedHashMap<>();
        if (c instanceof StatefulRedisClusterConnection<String, String> cc) {
            for (RedisClusterNode node : cc.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
                    RedisURI at = node.getUri();
                    answers.put(at.getHost() + ":" + at.getPort(), cc.getConnectionAsync(node.getNodeId())
                            .thenCompose(n -> n.async().functionLoad(library).toCompletableFuture()));
                }
            }
        } else {
            answers.put(describe(), ((StatefulRedisConnection<String, String>) c).async()
                    .functionLoad(library).toCompletableFuture());
        }
        return answers;
    }

    /** For a cluster, asks the client to refresh its map of slots to nodes now, without waiting. */
    public void refreshTopology() {
        if (client instanceof RedisClusterClient c && connection.get() != null && !closed) {
            // A refresh that fails leaves the map as it was; the next probe asks again.
            c.refreshPartitionsAsync();
        }
    }

    /** @return where Redis is, without the password, for messages */
    public String describe() {
        return endpoint.describe();
    }

    /** @return the connect timeout */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * Closes the connection and shuts the client down, waiting at most about 2 s for Lettuce. A
     * connection attempt still under way closes its connection when it completes.
     */
    @Override
    public void close() {
        closed = true;
        // The client's shutdown closes the connection (closing it here too only makes Lettuce
        // warn that it is already closed); an attempt still under way closes its own.
        connection.set(null);
        client.shutdown(0, 2, TimeUnit.SECONDS);
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /** Lettuce's timeout for every command but a script call, which its request times. */
    private static final class ExceptScriptCalls extends TimeoutOptions.TimeoutSource {
        private final long nanos;

        ExceptScriptCalls(Duration timeout) {
            this.nanos = timeout.toNanos();
        }

        @Override
        public long getTimeout(RedisCommand<?, ?, ?> command) {
            return command != null && CommandWrapper.unwrap(command, ScriptCall.class) != null ? 0 : nanos;
        }

        @Override
        public TimeUnit getTimeUnit() {
            return TimeUnit.NANOSECONDS;
        }
    }
}
