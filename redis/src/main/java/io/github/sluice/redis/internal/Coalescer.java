package io.github.sluice.redis.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Coalescing of concurrent acquisitions on the same keys: while one call for a set of keys is in
 * flight, later acquisitions on the same keys queue, and join the next call, a batch that the
 * script decides one request after the other, in queue order, each all or nothing as its own call
 * would be (op {@code 'b'}). Each queued call is completed with its own share of the batch's
 * reply, or with the batch's failure, so that whoever waits for it (a request thread, an
 * asynchronous acquisition's callback, a timeout) handles it as it handles any call.
 *
 * <h2>Lanes</h2>
 * A fixed array of lanes, chosen by a spread of the keys ({@link ScriptCall#keyHash}). A lane is
 * empty, or holds the call in flight ({@code marker}), or a stack of queued calls over that
 * marker ({@link Queued}). An acquisition that finds its lane empty takes it with one
 * compare-and-set and is sent as it would be without coalescing: no allocation. One that finds a
 * call in flight on the same keys pushes itself (one node, one compare-and-set). One that finds
 * another set of keys in its lane (two key sets sharing a lane) is sent at once, uncoalesced:
 * correctness never depends on the lane, only the number of round trips does.
 *
 * <p>When the call in flight completes, on the client's I/O thread, whoever completed it first
 * wakes the threads that wait for a batch's members, then takes the whole stack, with one
 * compare-and-set that makes its oldest member the lane's new marker, and sends the batch
 * ({@link #maxBatch} requests per call at most; more go as further calls, one after the other on
 * the connection), and only then completes the members that have callbacks. Woken first, the
 * threads of a hot key decide again while the stack is still open and join that batch rather than
 * the one after it: at 16 and 64 threads on one key a batch holds nearly every waiting request
 * (one call per 14 and 60 decisions, against 7 and 30 when the batch left first; measured in
 * docs/PERFORMANCE.md). A queued request therefore waits for at most the rest of the call in
 * flight (with the wake-ups of its members, a few microseconds each) and its own batch's round
 * trip, and within its own deadline anyway: one that gives up while still queued ({@link
 * ScriptCall#abandon}) is left out of its batch.
 *
 * <p>Thread-safe and lock-free.
 */
public final class Coalescer implements ScriptCall.Callback {

    /** Lanes (a power of two). */
    static final int LANES = 256;
    /** References per lane: lanes a cache line apart, so that CASes on two do not contend. */
    private static final int SPREAD = 16;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    private final Object[] lanes = new Object[LANES * SPREAD];
    private final Script script;
    private final Supplier<ScriptCall.Via> via;
    private final boolean cluster;
    private final int maxBatch;
    private final Consumer<ScriptCall> dispatch;
    private final Runnable functionMissing;
    /** Completes a lane's holder: hands the lane to what queued meanwhile. */
    private final ScriptCall.Callback release = call -> next(laneOf(call), call);
    /** Told by a completed batch when to send its lane's next batch (a lane's last batch only). */
    private final ScriptCall.Callback sendNext = batch -> {
        ScriptCall marker = batch.marker();
        if (marker != null) {
            next(batch.laneIndex(), marker);
        }
    };

    /**
     * @param script the script
     * @param via how calls name the script now
     * @param cluster whether the connection is to a cluster
     * @param maxBatch requests per call at most, {@code >= 2}
     * @param dispatch sends a call (never throws; a failure completes the call)
     * @param functionMissing told when a batch found the function library gone
     */
    public Coalescer(Script script, Supplier<ScriptCall.Via> via, boolean cluster, int maxBatch,
            Consumer<ScriptCall> dispatch, Runnable functionMissing) {
        if (maxBatch < 2) {
            throw new IllegalArgumentException("maxBatch must be >= 2 but was " + maxBatch);
        }
        this.script = script;
        this.via = via;
        this.cluster = cluster;
        this.maxBatch = maxBatch;
        this.dispatch = dispatch;
        this.functionMissing = functionMissing;
    }

    /** A queued acquisition over the lane's marker, and those queued before it. */
    private static final class Queued {
        final ScriptCall marker;
        final ScriptCall call;
        final Queued before;
        final int depth;

        Queued(ScriptCall marker, ScriptCall call, Queued before) {
            this.marker = marker;
            this.call = call;
            this.before = before;
            this.depth = before == null ? 1 : before.depth + 1;
        }
    }

    /**
     * Sends an acquisition, or queues it behind the call in flight on the same keys.
     *
     * @param call an acquisition ({@link ScriptCall#acquisition()}), not yet sent
     */
    public void submit(ScriptCall call) {
        int lane = laneOf(call);
        Queued node = null;
        while (true) {
            Object s = SLOT.getVolatile(lanes, lane);
            if (s == null) {
                if (SLOT.compareAndSet(lanes, lane, null, call)) {
                    // Only its keys (final fields) are read by others before it is sent.
                    call.holdLane(release);
                    dispatch.accept(call);
                    return;
                }
                continue;
            }
            ScriptCall marker = s instanceof Queued q ? q.marker : (ScriptCall) s;
            if (!marker.sameKeys(call)) {
                dispatch.accept(call); // another key set in this lane: sent on its own
                return;
            }
            Queued before = s instanceof Queued q ? q : null;
            if (node == null || node.before != before || node.marker != marker) {
                node = new Queued(marker, call, before);
            }
            if (SLOT.compareAndSet(lanes, lane, s, node)) {
                return;
            }
        }
    }

    /** @return the index of the lane of an acquisition's keys (recomputed rather than kept in each call) */
    private static int laneOf(ScriptCall call) {
        return (call.keyHash() & (LANES - 1)) * SPREAD;
    }

    /** @return how many acquisitions are queued now, over every lane (for tests and diagnostics) */
    public int queued() {
        int n = 0;
        for (int i = 0; i < lanes.length; i += SPREAD) {
            if (SLOT.getVolatile(lanes, i) instanceof Queued q) {
                n += q.depth;
            }
        }
        return n;
    }

    /**
     * The call that marks lane {@code lane} completed: the lane goes to what queued meanwhile,
     * sent as one batch, or is emptied.
     */
    private void next(int lane, ScriptCall marker) {
        while (true) {
            Object s = SLOT.getVolatile(lanes, lane);
            if (s == marker) {
                if (SLOT.compareAndSet(lanes, lane, marker, null)) {
                    return;
                }
                continue;
            }
            if (!(s instanceof Queued q) || q.marker != marker) {
                return; // not this marker's lane (cannot happen): leave it
            }
            // Oldest first: the stack holds the newest on top.
            ScriptCall[] queued = new ScriptCall[q.depth];
            int n = 0;
            for (Queued x = q; x != null; x = x.before) {
                queued[q.depth - 1 - n++] = x.call;
            }
            if (!SLOT.compareAndSet(lanes, lane, s, queued[0])) {
                continue;
            }
            send(lane, queued);
            return;
        }
    }

    /** Sends the batch(es) of the calls taken from a lane; the first one marks it now. */
    private void send(int lane, ScriptCall[] queued) {
        ScriptCall marker = queued[0];
        int k = 0;
        long now = Long.MIN_VALUE;
        for (ScriptCall c : queued) {
            if (c.take()) {
                queued[k++] = c;
                now = Math.max(now, c.now());
            }
        }
        if (k == 0) {
            next(lane, marker); // every one gave up while queued
            return;
        }
        ScriptCall.Via v = via.get();
        for (int from = 0; from < k; from += maxBatch) {
            int to = Math.min(k, from + maxBatch);
            boolean last = to == k;
            ScriptCall batch = ScriptCall.batch(script, v, now, queued, from, to, cluster, this, lane,
                    last ? marker : null);
            dispatch.accept(batch);
        }
    }

    /** A batch completed, on the client's I/O thread (or the sending thread if refused at once). */
    @Override
    public void completed(ScriptCall batch) {
        if (batch.missing() && !batch.sendsSource()) {
            if (batch.noFunction()) {
                functionMissing.run();
            }
            dispatch.accept(batch.withSource()); // the lane stays with it
            return;
        }
        // The next batch leaves once this one's waiting threads are woken (see
        // ScriptCall.completeMembers): most of them join it.
        batch.completeMembers(sendNext);
    }
}
