package io.github.sluice.redis;

import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.CircuitBreaker;
import io.github.sluice.redis.internal.Coalescer;
import io.github.sluice.redis.internal.Connector;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.internal.Micros;
import io.github.sluice.redis.internal.Part;
import io.github.sluice.redis.internal.Reporter;
import io.github.sluice.redis.internal.Script;
import io.github.sluice.redis.internal.SlotTags;
import io.github.sluice.redis.internal.ScriptCall;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.StoreLatency;
import io.github.sluice.store.StoreListener;
import java.lang.System.Logger.Level;
import io.lettuce.core.RedisCommandExecutionException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every key space of one {@link RedisStore} shares: the connection, the script and how it is
 * called, the circuit breaker, the clocks, the failure policy and its fallback registry, and the
 * reporter that logs and tells the listener off the request path. Thread-safe.
 *
 * <h2>FCALL or EVALSHA</h2>
 * Calls go by {@code FCALL} once the function library is loaded on the server (on every master of
 * a cluster) by {@link #loadLibrary}, at startup and by the probe; by {@code EVALSHA} before, when
 * Functions are off ({@link RedisStore.Builder#functions}), or when Redis refused the library
 * ({@code FUNCTION LOAD} unknown before Redis 7, denied by an ACL or a managed service), which is
 * logged once at INFO. A call answered that the function is not found ({@code FUNCTION FLUSH}, a
 * node new to a cluster) is repeated with {@code EVAL} within its deadline, as a {@code
 * NOSCRIPT} is; from then on calls go by {@code EVALSHA} until the probe's thread has loaded the
 * library again ({@link #reloadIfLost}), within a probe interval. Which way a call goes is one
 * volatile read; nothing on the request path waits for a load.
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
    /** The round trips' latency per operation ({@link ScriptCall#OPERATIONS}), timed by {@link #send}. */
    final StoreLatency latency;
    private final ScriptCall.Timing timing;
    /**
     * The store's logger: it queues lines for the reporter's thread and never blocks, so any
     * thread may log, a request thread or a Lettuce I/O thread included.
     */
    final Reporter log;
    /** Whether the builder allows calls by function. */
    final boolean functions;
    /** Whether calls go by {@code FCALL} (else {@code EVALSHA}): the library is loaded. */
    private final AtomicBoolean byFunction = new AtomicBoolean();
    /** The library went missing: the probe's thread loads it again. */
    private volatile boolean libraryLost;
    /** Whether a refusal of the library was logged at INFO (only the first is). */
    private final AtomicBoolean refusalLogged = new AtomicBoolean();
    /** Whether a loss of the library was logged at INFO (only the first is; later ones at DEBUG). */
    private final AtomicBoolean lossLogged = new AtomicBoolean();
    private final String instanceId;
    private final byte[] probeHead;
    private final AtomicLong leaseSeq = new AtomicLong();
    /** Lease mode: each share's fraction of a policy's limit, or 0 when off ({@link RedisStore.Builder#leases}). */
    final double leaseShare;
    /** Lease mode: a share's maximum age, nanoseconds. */
    final long leaseMaxAgeNanos;
    /** The policies' lease modes, swept by the probe's thread ({@link Leasing#sweep}). */
    final java.util.List<Leasing> leasings = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Queues acquisitions on the same keys behind the call in flight; {@code null} when off. */
    private final Coalescer coalescer;

    Engine(RedisStore.Builder b, Connector connector) {
        this.name = b.name;
        this.connector = connector;
        this.script = Script.load();
        this.keys = new KeyNames(b.prefix, b.keySecret);
        this.clientClock = b.clientClock;
        this.localClock = b.clientClock != null ? b.clientClock : b.systemClock;
        this.timeoutNanos = b.commandTimeout.toNanos();
        this.failure = b.failurePolicy;
        this.fallback = b.failurePolicy.mode() == FailurePolicy.Mode.LOCAL_FALLBACK
                ? ShardedRegistry.builder().clock(localClock).build() : null;
        this.denialCacheSize = b.denialCacheSize;
        this.leaseMicros = b.leaseTimeout.toNanos() / 1000;
        this.listener = b.listener;
        this.latency = new StoreLatency(b.name, ScriptCall.OPERATIONS);
        this.timing = new ScriptCall.Timing(latency, realClock);
        this.functions = b.functions;
        this.instanceId = Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
        this.probeHead = (probeKey() + ':').getBytes(StandardCharsets.US_ASCII);
        this.leaseShare = b.leaseShare;
        this.leaseMaxAgeNanos = b.leaseMaxAge.toNanos();
        this.coalescer = b.coalescing ? new Coalescer(script, this::via, connector.cluster(), b.maxBatch,
                this::dispatch, this::functionMissing) : null;
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
        String tag = connector.cluster() ? SlotTags.of(slot) : "";
        byte[] tagBytes = ("{" + tag + "}").getBytes(StandardCharsets.US_ASCII);
        byte[] key = Arrays.copyOf(probeHead, probeHead.length + tagBytes.length);
        System.arraycopy(tagBytes, 0, key, probeHead.length, tagBytes.length);
        return new Part(null, KeyNames.Head.whole(key), 0);
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
        return ScriptCall.of(script, via(), op, now, parts, group, connector.cluster(), callback);
    }

    /** @return how calls name the script now: {@code FCALL} while the library is loaded */
    ScriptCall.Via via() {
        return byFunction.get() ? ScriptCall.Via.FCALL : ScriptCall.Via.EVALSHA;
    }

    /**
     * Loads the function library with {@code FUNCTION LOAD} on the server, or on every master of
     * a cluster, unless Functions are off; calls go by {@code FCALL} if every node has it (a
     * library of the same name already there is the same text: the name is its digest's), and by
     * {@code EVALSHA} if a node refused it (logged once at INFO with its reason). For the startup
     * check, the probe's check and {@link #reloadIfLost}; never on a request thread.
     *
     * @param deadline the deadline on the real clock
     * @throws IllegalStateException if there is no connection
     * @throws TimeoutException when a node does not answer by the deadline
     * @throws ExecutionException when a node could not be reached (an error a node answers
     *     instead, such as {@code READONLY}, {@code BUSY}, {@code LOADING} or {@code OOM}, leaves
     *     calls on {@code EVALSHA}, and the probe's thread tries again)
     * @throws InterruptedException when the thread is interrupted
     */
    void loadLibrary(long deadline) throws TimeoutException, ExecutionException, InterruptedException {
        if (!functions) {
            return;
        }
        Map<String, CompletableFuture<String>> answers = connector.functionLoad(script.library());
        if (answers == null) {
            throw new IllegalStateException("not connected");
        }
        String notNow = null;
        for (Map.Entry<String, CompletableFuture<String>> answer : answers.entrySet()) {
            try {
                await(answer.getValue(), deadline);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (!(cause instanceof RedisCommandExecutionException)) {
                    throw e;
                }
                String message = String.valueOf(cause.getMessage());
                if (message.contains("already exists")) {
                    continue;
                }
                if (message.startsWith("ERR") || message.startsWith("NOPERM")) {
                    // Unknown command (before Redis 7), denied by an ACL, or not a valid library.
                    libraryRefused(answer.getKey(), message);
                    return;
                }
                // Read-only (a demoted primary), busy, loading, out of memory: says nothing of
                // the library; the check's own steps tell whether the node decides.
                notNow = answer.getKey() + ": " + message;
            }
        }
        if (notNow != null) {
            byFunction.set(false);
            libraryLost = true;
            log.log(Level.DEBUG, "sluice-redis ''{0}'': the function library is not loaded ({1});"
                    + " calls go by EVALSHA until it is", name, notNow);
            return;
        }
        libraryLost = false;
        byFunction.set(true);
    }

    private void libraryRefused(String node, String reason) {
        byFunction.set(false);
        libraryLost = false;
        if (refusalLogged.compareAndSet(false, true)) {
            log.log(Level.INFO, "sluice-redis ''{0}'': Redis at {1} refused the function library {2}"
                    + " (FUNCTION LOAD: {3}); calls go by EVALSHA", name, node, script.libraryName(), reason);
        }
    }

    /**
     * A call found the function missing ({@code FUNCTION FLUSH}, a node new to a cluster): calls go
     * by {@code EVALSHA} from now on, and the probe's thread loads the library again. Any thread.
     */
    void functionMissing() {
        if (byFunction.compareAndSet(true, false)) {
            libraryLost = true;
            log.log(lossLogged.compareAndSet(false, true) ? Level.INFO : Level.DEBUG,
                    "sluice-redis ''{0}'': Redis ({1}) has lost the function library {2} (FUNCTION FLUSH,"
                    + " or a node new to the cluster); calls go by EVALSHA until it is loaded again",
                    name, connector.describe(), script.libraryName());
        }
    }

    /**
     * Loads the library again if a call found it missing, or a node could not load it then (read
     * only, busy, loading, out of memory). On the probe's thread, while the breaker is closed; a
     * failed load is tried again on the next run.
     *
     * @param timeoutNanos how long the load may take
     */
    void reloadIfLost(long timeoutNanos) {
        if (!libraryLost) {
            return;
        }
        try {
            loadLibrary(realClock.nanos() + timeoutNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.log(Level.DEBUG, "sluice-redis ''{0}'': loading the function library again failed: {1}",
                    name, e);
        }
    }

    /**
     * The timer of asynchronous decisions (their command timeouts, the polls of a bounded wait),
     * started by the first one; {@code null} before. A thread of its own, so that a timeout is
     * never late behind the probe, which may wait for Redis.
     */
    private volatile ScheduledThreadPoolExecutor timer;
    /** The timer was shut down: no new one is started. Guarded by {@code this}. */
    private boolean timerClosed;

    /**
     * Runs {@code task} on the timer after {@code delayNanos}; never blocks the caller for long
     * (the timer's queue is taken briefly, as Reactor's own timers take it).
     *
     * @return the scheduled task, or {@code null} if the store is closed (nothing was scheduled)
     */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        ScheduledThreadPoolExecutor t = timer;
        if (t == null) {
            t = startTimer();
            if (t == null) {
                return null;
            }
        }
        try {
            return t.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            return null;
        }
    }

    private synchronized ScheduledThreadPoolExecutor startTimer() {
        if (timer == null && !timerClosed) {
            ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
                Thread thread = new Thread(r, "sluice-redis-timer-" + name);
                thread.setDaemon(true);
                return thread;
            });
            t.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            // A command timeout is cancelled when Redis answers, nearly always, on the client's
            // I/O thread, which must not take the queue's lock (remove-on-cancel would): kept until
            // its deadline, it held its decision and woke this thread then (5-15 us of this thread's
            // CPU per decision on the gateway benchmark). And arming a timeout that becomes the
            // queue's head wakes this thread, with one request at a time on every decision. So a
            // task every half timeout purges the cancelled ones on this thread, before their
            // deadlines, and is itself always the nearer head: arming never wakes the thread.
            long beat = Math.max(1, timeoutNanos / 2);
            t.scheduleAtFixedRate(t::purge, beat, beat, TimeUnit.NANOSECONDS);
            timer = t;
        }
        return timer;
    }

    /**
     * Stops the timer; the timeouts still pending run now, on the closing thread, so that every
     * asynchronous decision still waiting is decided (by the failure policy) rather than left
     * incomplete.
     */
    void closeTimer() {
        ScheduledThreadPoolExecutor t;
        synchronized (this) {
            timerClosed = true;
            t = timer;
        }
        if (t != null) {
            for (Runnable pending : t.shutdownNow()) {
                pending.run();
            }
        }
    }

    /** @return how many acquisitions are queued for a batch now; 0 when coalescing is off */
    int queued() {
        return coalescer == null ? 0 : coalescer.queued();
    }

    /**
     * Sends a call; never throws, never blocks: a failure completes the call. An acquisition may
     * instead queue behind the call in flight on the same keys, and be completed by its batch
     * (see {@link Coalescer}); a retry with the script's source is always sent on its own.
     */
    void send(ScriptCall call) {
        if (coalescer != null && call.acquisition() && !call.sendsSource()) {
            coalescer.submit(call);
        } else {
            dispatch(call);
        }
    }

    /**
     * Dispatches a call, timing its round trip (a batch's is one acquisition's); never throws,
     * never blocks: a failure completes the call.
     */
    private void dispatch(ScriptCall call) {
        call.timed(timing);
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
        if (call.missing() && !call.sendsSource()) {
            if (call.noFunction()) {
                functionMissing();
            }
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
     * NOSCRIPT} (Redis restarted, or a replica took over, with an empty script cache), or a
     * function not found (see the class comment), sends the source within the same deadline.
     *
     * @return the completed call, whose {@link ScriptCall#failure()} is {@code null}
     * @throws TimeoutException when the deadline passes
     * @throws ExecutionException when the call failed (the cause says why)
     * @throws InterruptedException when the request thread is interrupted
     */
    ScriptCall await(ScriptCall call, long deadline)
            throws TimeoutException, ExecutionException, InterruptedException {
        boolean done;
        try {
            done = call.await(deadline, realClock);
        } catch (InterruptedException e) {
            call.abandon(); // still queued for a batch: never sent
            throw e;
        }
        if (!done) {
            call.abandon();
            throw new TimeoutException("Redis did not answer in time");
        }
        if (call.missing() && !call.sendsSource()) {
            if (call.noFunction()) {
                functionMissing();
            }
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
