package io.github.sluice.redis;

import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.CircuitBreaker;
import io.github.sluice.redis.internal.Connector;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.internal.Micros;
import io.github.sluice.redis.internal.Part;
import io.github.sluice.redis.internal.Reporter;
import io.github.sluice.redis.internal.Script;
import io.github.sluice.redis.internal.SlotTags;
import io.github.sluice.redis.internal.ScriptCall;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.StoreListener;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every key space of one {@link RedisStore} shares: the connection, the script, the circuit
 * breaker, the clocks, the failure policy and its fallback registry, and the reporter that logs
 * and tells the listener off the request path. Thread-safe.
 */
final class Engine implements Reporter.Sink {

    /** Retry-after of a fail-closed refusal: the breaker's probe decides again well within it. */
    static final long FAIL_CLOSED_RETRY_NANOS = 1_000_000_000L;

    /** Log lines waiting for the reporter's thread, at most; more are dropped and counted. */
    static final int LOG_CAPACITY = 1024;

    /** Where log lines end up. Called only on the reporter's thread (see {@link #log}). */
    private static final System.Logger BACKEND = System.getLogger("io.github.sluice.redis");

    final String name;
    final Connector connector;
    final Script script;
    final CircuitBreaker breaker;
    final KeyNames keys;
    /** The client clock, or {@code null} to read Redis {@code TIME} inside the script. */
    final Clock clientClock;
    /** Times the denial cache and the fallback: the client clock if set, else the system clock. */
    final Clock localClock;
    /** Times the command timeout: always the real clock. */
    final Clock realClock = Clock.system();
    final long timeoutNanos;
    final FailurePolicy failure;
    final ShardedRegistry fallback;
    final int denialCacheSize;
    final long leaseMicros;
    final StoreListener listener;
    /**
     * The store's logger: it queues lines for the reporter's thread and never blocks, so any
     * thread may log, a request thread or a Lettuce I/O thread included.
     */
    final Reporter log;
    private final String instanceId;
    private final byte[] probeHead;
    private final AtomicLong leaseSeq = new AtomicLong();

    Engine(RedisStore.Builder b, Connector connector) {
        this.name = b.name;
        this.connector = connector;
        this.script = Script.load();
        this.keys = new KeyNames(b.prefix, b.keySecret);
        this.clientClock = b.clientClock;
        this.localClock = b.clientClock != null ? b.clientClock : Clock.system();
        this.timeoutNanos = b.commandTimeout.toNanos();
        this.failure = b.failurePolicy;
        this.fallback = b.failurePolicy.mode() == FailurePolicy.Mode.LOCAL_FALLBACK
                ? ShardedRegistry.builder().clock(localClock).build() : null;
        this.denialCacheSize = b.denialCacheSize;
        this.leaseMicros = b.leaseTimeout.toNanos() / 1000;
        this.listener = b.listener;
        this.instanceId = Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
        this.probeHead = (probeKey() + ':').getBytes(StandardCharsets.US_ASCII);
        // Last: the reporter's thread starts here and sees every field above.
        this.log = new Reporter(name, BACKEND, this, LOG_CAPACITY);
        this.breaker = new CircuitBreaker(b.failureThreshold, realClock, log);
    }

    /**
     * @return the key the probe writes to check that Redis accepts writes: {@code
     *     <prefix>:~probe:<instance id>}, which no policy's key can be ({@code '~'} is not allowed
     *     in policy names)
     */
    String probeKey() {
        return keys.prefix() + ":~probe:" + instanceId;
    }

    /**
     * @param slot a cluster slot (any, for a single server)
     * @return the part of the probe's call for the master of that slot: the key {@code
     *     <prefix>:~probe:<instance id>:{<tag>}}, the tag landing in the slot
     */
    Part probePart(int slot) {
        Part p = new Part(null, probeHead, 0);
        String tag = connector.cluster() ? SlotTags.of(slot) : "";
        p.tag = new KeyNames.Tag("", ("{" + tag + "}").getBytes(StandardCharsets.US_ASCII), slot);
        return p;
    }

    /** @return the script's clock argument: the client clock in microseconds, or Redis TIME */
    long nowArg(long localNow) {
        return clientClock == null ? ScriptCall.REDIS_TIME : Micros.floor(localNow);
    }

    /**
     * @return an id unique across instances (a random instance id, then a sequence), starting
     *     with a letter so that the script never reads it as a number
     */
    String newLeaseId() {
        return "L" + instanceId + '.' + Long.toString(leaseSeq.incrementAndGet(), 36);
    }

    /**
     * Builds the call for one group of parts.
     *
     * @param op {@code 'a'}, {@code 'r'} or {@code 'n'}
     * @param now the clock argument ({@link #nowArg})
     * @param parts the parts, with their tags
     * @param group the group
     * @param callback told when the call completes, or {@code null} if it is awaited
     * @return the call, not yet sent
     */
    ScriptCall call(char op, long now, Part[] parts, int group, ScriptCall.Callback callback) {
        return ScriptCall.of(script, op, now, parts, group, connector.cluster(), callback);
    }

    /** Sends a call; never throws, never blocks: a failure completes the call. */
    void send(ScriptCall call) {
        connector.dispatch(call);
    }

    /**
     * Sends the call and does not wait: releases, refunds and renewals. A {@code NOSCRIPT} is
     * answered by sending the source; a failure is logged by the reporter (this runs on a Lettuce
     * I/O thread, or inline if the call failed at once).
     */
    void fireAndForget(char op, long now, Part[] parts, int group) {
        send(call(op, now, parts, group, forgotten));
    }

    /** Completes fire-and-forget calls. */
    private final ScriptCall.Callback forgotten = this::forgotten;

    /** Sends the script's source after a NOSCRIPT; logs a failure. */
    private void forgotten(ScriptCall call) {
        if (call.noScript() && !call.sendsSource()) {
            send(call.withSource());
            return;
        }
        Throwable failure = call.failure();
        if (failure != null) {
            log.log(Level.DEBUG, "sluice-redis ''{0}'': a release or renewal was lost; leases"
                    + " and TTLs restore the state: {1}", name, failure);
        }
    }

    /**
     * Sends a call and waits for its reply until the deadline of the real clock; on {@code
     * NOSCRIPT} (Redis restarted, or a replica took over, with an empty script cache) sends the
     * source within the same deadline.
     *
     * @return the completed call, whose {@link ScriptCall#failure()} is {@code null}
     * @throws TimeoutException when the deadline passes
     * @throws ExecutionException when the call failed (the cause says why)
     * @throws InterruptedException when the request thread is interrupted
     */
    ScriptCall await(ScriptCall call, long deadline)
            throws TimeoutException, ExecutionException, InterruptedException {
        if (!call.await(deadline, realClock)) {
            throw new TimeoutException("Redis did not answer in time");
        }
        if (call.noScript() && !call.sendsSource()) {
            ScriptCall again = call.withSource();
            send(again);
            return await(again, deadline);
        }
        Throwable failure = call.failure();
        if (failure != null) {
            throw new ExecutionException(failure);
        }
        return call;
    }

    /** A duration for a log line or a message: see {@link io.github.sluice.redis.internal.Human}. */
    static String human(long nanos) {
        return io.github.sluice.redis.internal.Human.duration(nanos);
    }

    /**
     * Waits for a reply until the deadline of the real clock.
     *
     * @throws TimeoutException when the deadline passes
     * @throws ExecutionException when the command failed
     * @throws InterruptedException when the request thread is interrupted
     */
    <T> T await(CompletableFuture<T> f, long deadline)
            throws TimeoutException, ExecutionException, InterruptedException {
        long left = deadline - realClock.nanos();
        if (left <= 0 && !f.isDone()) {
            throw new TimeoutException("Redis did not answer in time");
        }
        return f.get(Math.max(0, left), TimeUnit.NANOSECONDS);
    }

    /**
     * Writes one policy's decision from the script's reply (five integers from {@code at}), whose
     * durations are nanoseconds if {@code nanos}, else microseconds.
     */
    static void decode(long[] reply, int at, long limit, boolean nanos, MutableDecision out) {
        long admitted = reply[at];
        long remaining = reply[at + 1];
        long reset = nanos ? Math.max(0, reply[at + 2]) : Micros.toNanos(reply[at + 2]);
        long retry = reply[at + 3];
        long delay = nanos ? Math.max(0, reply[at + 4]) : Micros.toNanos(reply[at + 4]);
        if (admitted == 1) {
            if (delay > 0) {
                out.shape(limit, remaining, reset, delay);
            } else {
                out.allow(limit, remaining, reset);
            }
        } else {
            out.deny(limit, remaining, reset, retry < 0 ? Decision.NEVER
                    : nanos ? retry : Micros.toNanos(retry));
        }
    }

    /** Logs and tells the listener; on the reporter's thread. */
    @Override
    public void degraded(Throwable cause) {
        BACKEND.log(Level.WARNING, "sluice-redis: store ''{0}'' ({1}) is degraded, requests follow"
                + " {2} until Redis answers: {3}", name, connector.describe(), failure, String.valueOf(cause));
        try {
            listener.storeDegraded(name, cause);
        } catch (RuntimeException e) {
            BACKEND.log(Level.WARNING, "sluice-redis: store '" + name + "': the listener failed", e);
        }
    }

    /** Logs and tells the listener; on the reporter's thread. */
    @Override
    public void recovered(long downNanos) {
        BACKEND.log(Level.INFO, "sluice-redis: store ''{0}'' ({1}) recovered after {2}",
                name, connector.describe(), human(downNanos));
        try {
            listener.storeRecovered(name);
        } catch (RuntimeException e) {
            BACKEND.log(Level.WARNING, "sluice-redis: store '" + name + "': the listener failed", e);
        }
    }
}
