package io.github.sluice.redis;

import io.github.sluice.redis.Acquisition.Member;
import io.github.sluice.redis.internal.ScriptCall;
import io.github.sluice.store.Decided;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;

/**
 * One request's acquisition, all or nothing, as {@link Acquisition} decides it, without blocking
 * the calling thread: the same steps (the denial cache, the circuit breaker, one script call per
 * cluster slot, the failure policy for a group that fails or times out, the refund of a partial
 * admission by receipt, the bounded wait of a concurrency limit), with the waits replaced.
 *
 * <ul>
 *   <li>The reply is not awaited: each call completes this acquisition's group on the client's
 *       I/O thread ({@link ScriptCall.Callback}); a {@code NOSCRIPT} or a missing function sends
 *       the source from there, within the same deadline.
 *   <li>The command timeout is the store's timer, set at the request's arrival: whichever comes
 *       first, the reply or the timer, decides a group, exactly once (one compare-and-set per
 *       group); a group the timer decides counts as a failure for the breaker and follows the
 *       failure policy, as on the synchronous path.
 *   <li>The polls of a bounded wait are scheduled on the timer rather than slept.
 * </ul>
 *
 * The result completes on the thread that decides the last group: the client's I/O thread, the
 * timer, or the calling thread when everything was decided at once (a cached denial, the breaker
 * open, a call refused because the client is disconnected); decided on the calling thread
 * without a wait, it is {@link Decided#ADMITTED} or {@link Decided#REFUSED}.
 *
 * <p>One attempt per object; a bounded wait makes a new one per poll, sharing the result.
 */
final class AsyncAcquisition implements ScriptCall.Callback, Runnable {

    private static final VarHandle PENDING;
    private static final VarHandle RESOLVED = MethodHandles.arrayElementVarHandle(int[].class);

    static {
        try {
            PENDING = MethodHandles.lookup().findVarHandle(AsyncAcquisition.class, "pending", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Engine e;
    private final Member[] m;
    /** When the request entered the store, real clock: a bounded wait counts from it. */
    private final long arrival;
    /** The pause before the next poll of a bounded wait. */
    private final long pause;
    /** Completed with the decision when it was not taken at once; shared by the polls. */
    private CompletableFuture<Boolean> result;
    /** This attempt's reading of the local clock (the denial cache, the script's clock). */
    private long now;
    /** Per group: 0 while undecided, 1 once its reply or the timer decided it. */
    private int[] resolved;
    /** Groups not yet decided. */
    @SuppressWarnings("unused") // through PENDING
    private volatile int pending;
    /** The command timeout of this attempt, cancelled once every group is decided. */
    private volatile ScheduledFuture<?> timeout;

    private AsyncAcquisition(Engine e, Member[] m, long arrival, long pause, CompletableFuture<Boolean> result) {
        this.e = e;
        this.m = m;
        this.arrival = arrival;
        this.pause = pause;
        this.result = result;
    }

    /**
     * Acquires, without blocking.
     *
     * @return {@code true} when every member was admitted
     */
    static CompletionStage<Boolean> run(Engine e, Member[] m) {
        return run(e, m, e.realClock.nanos());
    }

    /**
     * As {@link #run(Engine, Member[])}, for a request that entered the store at {@code arrival}
     * (real clock) and already waited (lease mode: for a refill).
     */
    static CompletionStage<Boolean> run(Engine e, Member[] m, long arrival) {
        return new AsyncAcquisition(e, m, arrival, Acquisition.POLL_MIN_NANOS, null).start(arrival + e.timeoutNanos);
    }

    /** One attempt, whose replies count until {@code deadline} (real clock). */
    private CompletionStage<Boolean> start(long deadline) {
        now = e.localClock.nanos();
        int cached = Acquisition.cached(m, now);
        if (cached >= 0) {
            return finish(cached);
        }
        if (e.breaker.isOpen()) {
            Acquisition.degradeAll(m, false);
            return finish(Acquisition.settle(e, m, now));
        }
        int groups = Acquisition.prepare(e, m, now);
        resolved = new int[groups];
        PENDING.setVolatile(this, groups);
        if (result == null) {
            result = new CompletableFuture<>();
        }
        CompletableFuture<Boolean> r = result;
        ScheduledFuture<?> t = e.schedule(this, deadline - e.realClock.nanos());
        timeout = t;
        long clock = e.nowArg(now);
        for (int g = 0; g < groups; g++) {
            ScriptCall call = e.call('a', clock, m, g, this);
            for (Member a : m) {
                if (a.group == g) {
                    a.call = call;
                }
            }
            e.send(call);
        }
        if (t == null) {
            run(); // the store closed: no timer; what has not answered by now is decided by the failure policy
        }
        return r;
    }

    /** A call completed, on the client's I/O thread (or on the sending thread if refused at once). */
    @Override
    public void completed(ScriptCall call) {
        if (call.missing() && !call.sendsSource()) {
            if (call.noFunction()) {
                e.functionMissing();
            }
            e.send(call.withSource()); // the same callback; the timer still counts from arrival
            return;
        }
        int g = call.group();
        if (!RESOLVED.compareAndSet(resolved, g, 0, 1)) {
            return; // the timer decided this group already
        }
        Throwable failure = call.failure();
        if (failure == null) {
            e.breaker.success();
            if (!Acquisition.decodeGroup(e, g, call.values(), m)) {
                Acquisition.degradeGroup(m, g, false);
            }
        } else {
            e.log.log(Level.DEBUG, "sluice-redis ''{0}'': call failed: {1}", e.name, failure);
            e.breaker.failure(failure);
            Acquisition.degradeGroup(m, g, false);
        }
        groupDone();
    }

    /** The command timeout: every group Redis has not answered follows the failure policy. */
    @Override
    public void run() {
        int[] groups = resolved;
        for (int g = 0; g < groups.length; g++) {
            if (RESOLVED.compareAndSet(groups, g, 0, 1)) {
                for (Member a : m) {
                    if (a.group == g && a.call != null) {
                        a.call.abandon(); // still queued for a batch: never sent
                    }
                }
                TimeoutException late = new TimeoutException("Redis did not answer in time");
                e.log.log(Level.DEBUG, "sluice-redis ''{0}'': call failed: {1}", e.name, late);
                e.breaker.failure(late);
                Acquisition.degradeGroup(m, g, false);
                groupDone();
            }
        }
    }

    private void groupDone() {
        if ((int) PENDING.getAndAdd(this, -1) != 1) {
            return;
        }
        ScheduledFuture<?> t = timeout;
        if (t != null) {
            t.cancel(false);
        }
        finish(Acquisition.settle(e, m, now));
    }

    /**
     * Ends the attempt: completes the result, or, when the denying policy allows a bounded wait
     * that is not over, schedules the next poll.
     *
     * @param denied the index of the first denial, or {@code -1}
     */
    private CompletionStage<Boolean> finish(int denied) {
        long wait = denied < 0 ? 0 : Acquisition.waitFor(m[denied]);
        long left = wait == 0 ? 0 : arrival + wait - e.realClock.nanos();
        if (left <= 0) {
            if (result == null) {
                return Decided.of(denied < 0);
            }
            result.complete(denied < 0);
            return result;
        }
        if (result == null) {
            result = new CompletableFuture<>();
        }
        CompletableFuture<Boolean> r = result;
        Member[] next = new Member[m.length];
        for (int i = 0; i < m.length; i++) {
            next[i] = m[i].again();
        }
        AsyncAcquisition poll = new AsyncAcquisition(e, next, arrival,
                Math.min(2 * pause, Acquisition.POLL_MAX_MILLIS * 1_000_000L), r);
        if (e.schedule(() -> poll.start(e.realClock.nanos() + e.timeoutNanos), Math.min(pause, left)) == null) {
            r.complete(Boolean.FALSE); // the store closed during the wait: the denial stands
        }
        return r;
    }
}
