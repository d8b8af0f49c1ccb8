package io.github.sluice.redis.internal;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ConnectionFuture;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

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
 *   <li>a short connect timeout, which {@link #connect(long)} enforces itself: Lettuce's blocking
 *       connect waits for its handshake without a bound of its own (and a TLS handshake has a
 *       10 s timeout of its own).
 * </ul>
 * If the first connection fails, {@link #async()} returns {@code null} until
 * {@link #connect(long)} succeeds (the store's probe retries it). A connection that Lettuce
 * believes open but that no longer answers (the server's host vanished without a reset) is
 * {@linkplain #replace() replaced} by the probe.
 *
 * <p>Thread-safe.
 */
public final class Connector implements AutoCloseable {

    private final ClientResources resources;
    private final RedisClient client;
    private final RedisURI uri;
    private final Duration connectTimeout;
    private final AtomicReference<StatefulRedisConnection<String, String>> connection =
            new AtomicReference<>();
    /** The connection attempt under way, or {@code null}. */
    private final AtomicReference<ConnectionFuture<StatefulRedisConnection<String, String>>> pending =
            new AtomicReference<>();
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
        ConnectionFuture<StatefulRedisConnection<String, String>> f = pending.get();
        if (f == null) {
            ConnectionFuture<StatefulRedisConnection<String, String>> started =
                    client.connectAsync(StringCodec.UTF8, uri);
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
                    + Duration.ofNanos(timeoutNanos) + " (the attempt goes on)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisConnectionException("interrupted while connecting to " + describe(), e);
        } catch (ExecutionException e) {
            throw new RedisConnectionException("could not connect to " + describe() + ": "
                    + e.getCause(), e.getCause());
        }
    }

    /** Takes a new connection unless there is one already or the connector is closed. */
    private void adopt(StatefulRedisConnection<String, String> c) {
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
        StatefulRedisConnection<String, String> c = connection.get();
        return c != null && c.isOpen();
    }

    /**
     * Closes the connection without waiting, so that the next {@link #connect(long)} opens a new
     * one: for a connection that Lettuce believes open but that no longer answers. Commands still
     * waiting on it fail at once.
     */
    public void replace() {
        StatefulRedisConnection<String, String> c = connection.getAndSet(null);
        if (c != null) {
            c.closeAsync();
        }
    }

    /**
     * @return the asynchronous commands of the connection, or {@code null} if there is no
     *     connection (never connected, or closed)
     */
    public RedisAsyncCommands<String, String> async() {
        StatefulRedisConnection<String, String> c = connection.get();
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
}
