package io.github.sluice.redis;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.Acquisition.Member;
import io.github.sluice.redis.internal.Micros;
import io.github.sluice.redis.internal.Part;
import io.github.sluice.redis.internal.ScriptCall;
import io.github.sluice.redis.internal.ShareSlot;
import io.github.sluice.store.Decided;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The lease mode of one policy ({@link RedisStore.Builder#leases}): per client key, a share of
 * the key's quota taken from Redis in one script call (op {@code 'l'}), spent locally by one
 * compare-and-set per request ({@link ShareSlot}) until it is spent or ends, then refilled, one
 * refill in flight per key; requests that find the share spent meanwhile join that refill. See
 * docs/redis.md, "Lease mode", for the over-admission bound this buys.
 *
 * <p>Which algorithms lease: those whose take of {@code n} permits at one instant is exactly
 * {@code n} admissions at that instant: the token bucket, GCRA, the policing leaky bucket (a
 * share ends at its maximum age) and the fixed windows, epoch-aligned, first-request or calendar
 * (a share ends at its maximum age or its window's end, whichever is first, so that a window's
 * count is never exceeded). The others (concurrency, shaping, the sliding window and log,
 * smooth-bursty) are decided per request as without leases.
 *
 * <p>Thread-safe. The local decision takes no lock and allocates nothing.
 */
final class Leasing {

    private static final Set<String> LEASED = Set.of("token-bucket", "gcra", "leaky-bucket",
            "fixed-window", "fixed-window-calendar");
    private static final Set<String> WINDOWED = Set.of("fixed-window", "fixed-window-calendar");

    private final Engine e;
    private final RedisKeySpace space;
    /** Permits a refill asks for. */
    final long share;
    private final long maxAgeNanos;
    /** Whether a share also ends at its window's end (Redis's reset). */
    private final boolean windowEnds;
    private final ConcurrentHashMap<String, ShareSlot> slots = new ConcurrentHashMap<>();

    private Leasing(Engine e, RedisKeySpace space, long share) {
        this.e = e;
        this.space = space;
        this.share = share;
        this.maxAgeNanos = e.leaseMaxAgeNanos;
        this.windowEnds = WINDOWED.contains(space.binding.kind());
    }

    /**
     * @return the lease mode of a policy, or {@code null} if the store's leases are off or the
     *     policy's algorithm does not lease (logged once, at bind time: WARNING, since the store's
     *     setting does nothing for it)
     */
    static Leasing of(Engine e, RedisKeySpace space) {
        if (e.leaseShare <= 0) {
            return null;
        }
        String kind = space.binding.kind();
        if (!LEASED.contains(kind)) {
            e.log.log(Level.WARNING, "sluice-redis ''{0}'': leases are on, but policy ''{1}'' ({2}) cannot"
                    + " be leased with a bounded error: every request of it is decided by Redis, exactly,"
                    + " as without leases (docs/redis.md, \"Lease mode\")", e.name, space.name, kind);
            return null;
        }
        long share = shareOf(e.leaseShare, space.limit);
        e.log.log(Level.INFO, "sluice-redis ''{0}'': policy ''{1}'' ({2}) leases shares of {3} of its {4}"
                + " permits per key, for at most {5} each{6}", e.name, space.name, kind, share, space.limit,
                Engine.human(e.leaseMaxAgeNanos), WINDOWED.contains(kind)
                        ? " or until their window ends: no window counts more than its limit"
                        : "; each instance may admit up to one share per key beyond the policy's own allowance"
                        + " in any window (docs/redis.md, \"Lease mode\")");
        return new Leasing(e, space, share);
    }

    /**
     * @param fraction the share's fraction of the limit, in {@code (0, 1]}
     * @param limit the policy's limit
     * @return permits per share: {@code max(1, floor(fraction * limit))}
     */
    static long shareOf(double fraction, long limit) {
        double s = Math.floor(fraction * limit);
        return s < 1 ? 1 : s >= limit ? limit : (long) s;
    }

    /** @return whether a request of this cost is decided from a share (else exactly, per request) */
    boolean applies(long cost) {
        return cost > 0 && cost <= share;
    }

    private ShareSlot slot(String key) {
        ShareSlot s = slots.get(key);
        return s != null ? s : slots.computeIfAbsent(key, k -> new ShareSlot(space.limit));
    }

    /** @return the permits left in the key's current share, or -1 if it has none (tests) */
    long left(String key) {
        ShareSlot s = slots.get(key);
        return s == null ? -1 : s.grant().left();
    }

    /** @return slots held now (tests, diagnostics) */
    int size() {
        return slots.size();
    }

    /** As {@link RedisKeySpace#acquire}, from the key's share. */
    boolean acquire(String key, long cost, MutableDecision out) {
        ShareSlot s = slot(key);
        ShareSlot.Grant seen = s.grant();
        ShareSlot.Taken t = s.take(cost, e.localClock, out);
        if (t != ShareSlot.Taken.SPENT) {
            return t == ShareSlot.Taken.ADMITTED; // the hot path: one clock reading, one CAS
        }
        // Read once the share is found spent: the real clock times the wait, not the local decision.
        long arrival = e.realClock.nanos();
        for (int attempt = 0; attempt < 4; attempt++) {
            if (attempt > 0) {
                s = slot(key);
                seen = s.grant();
                t = s.take(cost, e.localClock, out);
                if (t != ShareSlot.Taken.SPENT) {
                    return t == ShareSlot.Taken.ADMITTED;
                }
            }
            if (e.breaker.isOpen()) {
                break; // the failure policy decides, exactly as without leases
            }
            Object f = claimOrJoin(s, seen, key, cost);
            if (!(f instanceof Refill r)) {
                continue; // a grant arrived meanwhile, or the slot was retired: take again
            }
            try {
                r.get(Math.max(0, arrival + e.timeoutNanos - e.realClock.nanos()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return space.degraded(key, cost, out);
            } catch (ExecutionException | TimeoutException ex) {
                return space.degraded(key, cost, out); // the refill counted for the breaker
            }
            t = s.take(cost, e.localClock, out);
            if (t != ShareSlot.Taken.SPENT) {
                return t == ShareSlot.Taken.ADMITTED;
            }
            // The requests ahead spent the new share: this one is decided exactly, within what
            // is left of its command timeout.
            return Acquisition.run(e, new Member[] {new Member(space, key, cost, out)}, arrival) < 0;
        }
        return Acquisition.run(e, new Member[] {new Member(space, key, cost, out)}, arrival) < 0;
    }

    /** As {@link RedisKeySpace#acquireAsync}, from the key's share; never blocks. */
    CompletionStage<Boolean> acquireAsync(String key, long cost, MutableDecision out) {
        long arrival = 0;
        for (int attempt = 0; attempt < 4; attempt++) {
            ShareSlot s = slot(key);
            ShareSlot.Grant seen = s.grant();
            ShareSlot.Taken t = s.take(cost, e.localClock, out);
            if (t != ShareSlot.Taken.SPENT) {
                return Decided.of(t == ShareSlot.Taken.ADMITTED);
            }
            if (attempt == 0) {
                arrival = e.realClock.nanos(); // only once a wait may follow
            }
            if (e.breaker.isOpen()) {
                break;
            }
            Object f = claimOrJoin(s, seen, key, cost);
            if (f instanceof Refill r) {
                long since = arrival;
                return r.handle((ok, failure) -> afterRefill(s, key, cost, out, failure, since))
                        .thenCompose(Function.identity());
            }
        }
        return exactAsync(key, cost, out, arrival);
    }

    private CompletionStage<Boolean> afterRefill(ShareSlot s, String key, long cost, MutableDecision out,
            Throwable failure, long arrival) {
        if (failure != null) {
            return Decided.of(space.degraded(key, cost, out, false));
        }
        ShareSlot.Taken t = s.take(cost, e.localClock, out);
        if (t != ShareSlot.Taken.SPENT) {
            return Decided.of(t == ShareSlot.Taken.ADMITTED);
        }
        return exactAsync(key, cost, out, arrival);
    }

    private CompletionStage<Boolean> exactAsync(String key, long cost, MutableDecision out, long arrival) {
        return AsyncAcquisition.run(e, new Member[] {new Member(space, key, cost, out)}, arrival);
    }

    /**
     * A member's local take, for a request of several policies: admitted or refused from the
     * share, or {@code SPENT}, when a refill is started if none is in flight (not awaited: the
     * member is decided exactly this time).
     */
    ShareSlot.Taken takeOrRefill(String key, long cost, MutableDecision out) {
        ShareSlot s = slot(key);
        ShareSlot.Grant seen = s.grant();
        ShareSlot.Taken t = s.take(cost, e.localClock, out);
        if (t == ShareSlot.Taken.SPENT && !e.breaker.isOpen()) {
            claimOrJoin(s, seen, key, cost);
        }
        return t;
    }

    /** @return whether any member of a request is decided from a share */
    static boolean any(Member[] m) {
        for (Member a : m) {
            if (a.space.lease != null && a.space.lease.applies(a.cost)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A request of several policies, all or nothing, some of them leased: first the leased ones
     * take from their shares (a share that is spent starts its refill, not awaited: that member
     * is decided exactly this time); a local refusal refuses the request at once, without Redis
     * (what the others took locally goes back to their shares, and the policies not consulted
     * report their full quota, as for a cached denial). Then the others are decided by Redis, as
     * without leases; if one refuses, the local admissions go back to their shares.
     *
     * @return the members still to be decided by Redis, or {@code null} if the request was
     *     refused locally; {@code local[i]} tells which members were admitted from a share
     */
    static Member[] takeLocal(Member[] m, boolean[] local) {
        int rest = m.length;
        for (int i = 0; i < m.length; i++) {
            Member a = m[i];
            Leasing l = a.space.lease;
            if (l == null || !l.applies(a.cost)) {
                continue;
            }
            ShareSlot.Taken t = l.takeOrRefill(a.key, a.cost, a.out);
            if (t == ShareSlot.Taken.ADMITTED) {
                local[i] = true;
                rest--;
            } else if (t == ShareSlot.Taken.DENIED) {
                giveBackLocal(m, local);
                for (int j = 0; j < m.length; j++) {
                    if (j != i) {
                        m[j].out.allow(m[j].space.limit, m[j].space.limit, 0).at(a.out.nanos());
                    }
                }
                return null;
            }
        }
        Member[] others = new Member[rest];
        for (int i = 0, k = 0; i < m.length; i++) {
            if (!local[i]) {
                others[k++] = m[i];
            }
        }
        return others;
    }

    /** Gives the local admissions of a refused request back to their shares. */
    static void giveBackLocal(Member[] m, boolean[] local) {
        for (int i = 0; i < m.length; i++) {
            if (local[i]) {
                m[i].space.lease.giveBack(m[i].key, m[i].cost, m[i].out.receipt());
            }
        }
    }

    /** As {@link RedisStore#acquireAll}, some members leased. */
    static boolean acquireAll(Engine e, Member[] m) {
        boolean[] local = new boolean[m.length];
        Member[] others = takeLocal(m, local);
        if (others == null) {
            return false;
        }
        if (others.length > 0 && Acquisition.run(e, others) >= 0) {
            giveBackLocal(m, local);
            return false;
        }
        return true;
    }

    /** As {@link RedisStore#acquireAllAsync}, some members leased; never blocks. */
    static CompletionStage<Boolean> acquireAllAsync(Engine e, Member[] m) {
        boolean[] local = new boolean[m.length];
        Member[] others = takeLocal(m, local);
        if (others == null) {
            return Decided.REFUSED;
        }
        if (others.length == 0) {
            return Decided.ADMITTED;
        }
        return AsyncAcquisition.run(e, others).thenApply(admitted -> {
            if (!admitted) {
                giveBackLocal(m, local);
            }
            return admitted;
        });
    }

    /**
     * Gives back a local admission's permits to its share (a refund by outcome, or another policy
     * of the request refused it); dropped if its share has ended.
     */
    void giveBack(String key, long cost, long receipt) {
        ShareSlot s = slots.get(key);
        if (s != null) {
            s.giveBack(cost, receipt);
        }
    }

    /**
     * Joins the refill in flight on the slot, or starts one: drains the spent grant {@code seen}
     * (its unspent permits go back to Redis by receipt), then sends the take of a share.
     *
     * @return the refill to await, or {@code null} / {@link ShareSlot#RETIRED} to take again
     */
    private Object claimOrJoin(ShareSlot s, ShareSlot.Grant seen, String key, long least) {
        Object f = s.refill();
        if (f != null) {
            retireStale(s, key, f);
            return f;
        }
        Refill r = new Refill(s, key);
        f = s.claimRefill(seen, r);
        if (f != r) {
            retireStale(s, key, f);
            return f;
        }
        giveBackToRedis(key, seen);
        r.send(least);
        return r;
    }

    /** A retired slot found by a request: it is out of the map already, or about to be. */
    private void retireStale(ShareSlot s, String key, Object f) {
        if (f == ShareSlot.RETIRED) {
            slots.remove(key, s);
        }
    }

    /**
     * Drains a grant and gives its unspent permits back to Redis, with the take's receipt: the
     * script gives back only what is still the take's (for a bucket, what has not refilled since
     * the take; for a window, nothing once the window is over).
     */
    private void giveBackToRedis(String key, ShareSlot.Grant g) {
        long unspent = g.close();
        if (unspent > 0 && !g.denial() && !e.breaker.isOpen()) {
            space.refund(key, null, 0, unspent, g.receipt);
        }
    }

    /**
     * Retires the slots whose grant is over and that no refill holds, giving their unspent
     * permits back to Redis; on the store's probe thread.
     */
    void sweep() {
        long now = e.localClock.nanos();
        for (Map.Entry<String, ShareSlot> entry : slots.entrySet()) {
            ShareSlot s = entry.getValue();
            ShareSlot.Grant g = s.retire(now);
            if (g != null) {
                giveBackToRedis(entry.getKey(), g);
                // Only this slot: a request that found it retired may have put a new one already.
                slots.remove(entry.getKey(), s);
            }
        }
    }

    /** Drops the key's share, not given back (the key was reset: Redis's state is fresh). */
    void drop(String key) {
        ShareSlot s = slots.get(key);
        if (s != null) {
            s.grant().close();
        }
    }

    /** Drops every share (the store closes): see docs/redis.md, "Lease mode". */
    void close() {
        for (ShareSlot s : slots.values()) {
            s.grant().close();
        }
    }

    /**
     * One refill: the take of a share for one key, completed by Redis's reply on the client's I/O
     * thread, or by the store's timer after the command timeout, whichever is first; its waiters
     * (requests that found the share spent) then take from the new grant.
     */
    final class Refill extends CompletableFuture<Void> implements ScriptCall.Callback, Runnable {
        private final ShareSlot slot;
        private final String key;
        /** When the call was made, local clock: the take's clock argument. */
        private final long at;
        private final AtomicBoolean settled = new AtomicBoolean();
        private volatile ScheduledFuture<?> timer;

        Refill(ShareSlot slot, String key) {
            this.slot = slot;
            this.key = key;
            this.at = e.localClock.nanos();
        }

        void send(long least) {
            Part p = new Part(space.binding, space.head, share);
            p.key = key;
            p.receipt = least;
            p.at = at;
            ScriptCall call = e.call('l', e.nowArg(at), new Part[] {p}, 0, this);
            ScheduledFuture<?> t = e.schedule(this, e.timeoutNanos);
            timer = t;
            e.send(call);
            if (t == null) {
                run(); // the store closed: nothing will time this out
            }
        }

        @Override
        public void completed(ScriptCall call) {
            if (call.missing() && !call.sendsSource()) {
                if (call.noFunction()) {
                    e.functionMissing();
                }
                e.send(call.withSource());
                return;
            }
            Throwable failure = call.failure();
            if (!settled.compareAndSet(false, true)) {
                // Late: the timer gave up on it; what it took goes back.
                if (failure == null && call.values()[0] > 0) {
                    space.refund(key, null, 0, call.values()[0], call.values()[5]);
                }
                return;
            }
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
            if (failure != null) {
                e.log.log(Level.DEBUG, "sluice-redis ''{0}'': a lease's refill failed: {1}", e.name, failure);
                e.breaker.failure(failure);
                slot.refillFailed();
                completeExceptionally(failure);
                return;
            }
            e.breaker.success();
            install(call.values());
            complete(null);
        }

        private void install(long[] v) {
            boolean nanos = space.binding.nanosReply();
            long reset = nanos ? Math.max(0, v[2]) : Micros.toNanos(v[2]);
            // The script's clock read at or after `at` (Redis TIME), or `at` cut to microseconds
            // (a client clock): instants counted from the cut reading never fall after Redis's.
            long base = Math.floorDiv(at, 1000) * 1000;
            if (v[0] > 0) {
                long ends = at + maxAgeNanos;
                if (windowEnds) {
                    ends = Math.min(ends, base + reset);
                }
                slot.installShare(v[0], ends, v[1], base + reset, v[5], at);
            } else {
                long retry = v[3] < 0 ? Decision.NEVER : nanos ? v[3] : Micros.toNanos(v[3]);
                long until = retry == Decision.NEVER ? at + maxAgeNanos : base + retry;
                slot.installDenial(until, retry, v[1], base + reset, at);
            }
        }

        /** The command timeout: the refill fails; its waiters follow the failure policy. */
        @Override
        public void run() {
            if (!settled.compareAndSet(false, true)) {
                return;
            }
            TimeoutException late = new TimeoutException("Redis did not answer a lease's refill in time");
            e.log.log(Level.DEBUG, "sluice-redis ''{0}'': {1}", e.name, late.getMessage());
            e.breaker.failure(late);
            slot.refillFailed();
            completeExceptionally(late);
        }
    }
}
