package io.github.sluice.redis.internal;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Owns the Lettuce client and its one connection, configured for a rate limiter's needs:
 * <ul>
 *   <li>commands are <em>rejected</em> while disconnected instead of queued
 *       ({@code DisconnectedBehavior.REJECT_COMMANDS}), so a request never waits for a
 *       reconnection;
 *   <li>every command times out after the command timeout ({@code TimeoutOptions}), so Lettuce
 *       does not keep stale commands either;
 *   <li>auto-reconnect is on, with a short capped back-off (10 ms doubling to 200 ms), so the
 *       connection is back within a fraction of a second of Redis;
 *   <li>a short connect timeout.
 * </ul>
 * If the first connection fails, {@link #async()} returns {@code null} until
 * {@link #connect()} succeeds (the store's probe retries it).
 *
 * <p>Thread-safe.
 */
public final class Connector implements AutoCloseable {

    private final ClientResources resources;
    private final RedisClient client;
    private final RedisURI uri;
    private final Duration connectTimeout;
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile boolean closed;

    /**
     * Creates the client; does not connect.
     *
     * @param uri a Redis URI, e.g. {@code redis://host:6379/0} or {@code rediss://...}
     * @param commandTimeout the command timeout
     * @param connectTimeout the connect timeout
     * @throws IllegalArgumentException if the URI is malformed
     */
    public Connector(String uri, Duration commandTimeout, Duration connectTimeout) {
        this.uri = RedisURI.create(uri);
        // The URI's timeout bounds the connection handshake (HELLO, AUTH, SELECT), which a cold
        // JVM can take long over; commands have their own timeout below.
        this.uri.setTimeout(connectTimeout);
        this.connectTimeout = connectTimeout;
        this.resources = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofMillis(200), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        this.client = RedisClient.create(resources, this.uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.builder().timeoutCommands(true)
                        .fixedTimeout(commandTimeout).build())
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                .build());
    }

    /**
     * Connects if not connected yet. Blocks up to the connect timeout: call it at startup or from
     * the probe, never from a request.
     *
     * @throws RuntimeException what Lettuce threw if the connection failed
     */
    public void connect() {
        if (connection != null || closed) {
            return;
        }
        synchronized (this) {
            if (connection == null && !closed) {
                connection = client.connect(StringCodec.UTF8, uri);
            }
        }
    }

    /**
     * @return the asynchronous commands of the connection, or {@code null} if there is no
     *     connection (never connected, or closed)
     */
    public RedisAsyncCommands<String, String> async() {
        StatefulRedisConnection<String, String> c = connection;
        return c == null || closed ? null : c.async();
    }

    /** @return the URI without its password, for messages */
    public String describe() {
        if (uri.getSentinelMasterId() != null) {
            return "sentinel master " + uri.getSentinelMasterId();
        }
        if (uri.getHost() == null) {
            return String.valueOf(uri.getSocket());
        }
        return uri.getHost() + ':' + uri.getPort();
    }

    /** @return the connect timeout */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    @Override
    public void close() {
        closed = true;
        StatefulRedisConnection<String, String> c;
        synchronized (this) {
            c = connection;
            connection = null;
        }
        if (c != null) {
            c.closeAsync();
        }
        client.shutdown(0, 2, TimeUnit.SECONDS);
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
