package io.github.sluice.redis;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.LeaseBook;
import io.github.sluice.redis.internal.Part;
import io.github.sluice.redis.internal.ScriptCall;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One request's acquisition on one or more policies of a {@link RedisStore}, all or nothing.
 *
 * <ol>
 *   <li>A cached denial of any policy answers at once, without Redis.
 *   <li>If the circuit breaker is open, the failure policy decides every policy.
 *   <li>Otherwise policies are grouped by cluster slot (the same client key gives the same hash
 *       tag, hence one slot); each group is one script call, decided atomically by the script;
 *       groups are sent together and awaited against one deadline: the command timeout, counted
 *       from the moment the request entered the store (hashing keys and sending included). On a
 *       cluster each group goes to the master of its slot, so a script never touches keys of two
 *       slots.
 *   <li>A group that fails or times out is decided by the failure policy.
 *   <li>If any policy denied, permits taken by the others are given back (without waiting): a
 *       group that Redis admitted is refunded by one more script call, each policy carrying the
 *       receipt its script returned, so that the refund lands in the window, slot, log entries
 *       or schedule its admission took, however long the round trip took and whatever other
 *       requests did meanwhile; a policy the local fallback admitted is refunded there.
 * </ol>
 *
 * <p>Not instantiated: a static procedure over the request's {@linkplain Member members}.
 */
final class Acquisition {

    private static final int REPLY = ScriptCall.REPLY;
    static final long POLL_MIN_NANOS = 1_000_000L;
    static final long POLL_MAX_MILLIS = 20;

    private Acquisition() {
    }

    /**
     * One policy of one request: its part of a script call, and what the request learnt about it.
     * A member is sent at most once; a request that asks again (a bounded wait) makes new ones.
     */
    static final class Member extends Part {
        final RedisKeySpace space;
        final MutableDecision out;
        /** Permits taken: by Redis (a whole group admitted) or by the failure policy. */
        boolean charged;
        /** Decided by Redis, not by the failure policy. */
        boolean fromRedis;
        /** Decided after a denial in its group: at cost 0, not to be cached. */
        boolean peek;
        /** Its group's call, once sent (asynchronously: what a timeout abandons). */
        ScriptCall call;

        /**
         * @throws NullPointerException if {@code key} or {@code out} is null
         * @throws IllegalArgumentException if {@code cost < 0}
         */
        Member(RedisKeySpace space, String key, long cost, MutableDecision out) {
            super(space.binding, space.head, checkCost(cost));
            this.space = space;
            this.key = Objects.requireNonNull(key, "key");
            this.out = Objects.requireNonNull(out, "out");
        }

        Member again() {
            return new Member(space, key, cost, out);
        }
    }

    static long checkCost(long cost) {
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be >= 0 but was " + cost);
        }
        return cost;
    }

    /**
     * Acquires; when the denying policy allows a bounded wait (a concurrency limit with a
     * {@code maxWait}), asks again until it admits or the wait is over. The permits are released
     * by other instances, which cannot signal this one, so the wait polls: after 1 ms, then
     * doubling up to {@value #POLL_MAX_MILLIS} ms between calls.
     *
     * <p>Every deadline counts from the request's arrival: the first call's reply is awaited until
     * arrival + command timeout; polls start until arrival + {@code maxWait}, each awaited one
     * command timeout. The request therefore returns by arrival + command timeout without a
     * wait, and by arrival + {@code maxWait} + command timeout with one.
     *
     * @return {@code -1} if all were admitted, otherwise the index of the first denial
     */
    static int run(Engine e, Member[] m) {
        return run(e, m, e.realClock.nanos());
    }

    /**
     * As {@link #run(Engine, Member[])}, for a request that entered the store at {@code arrival}
     * (real clock) and already waited (lease mode: for a refill).
     */
    static int run(Engine e, Member[] m, long arrival) {
        int denied = once(e, m, arrival + e.timeoutNanos);
        long wait = denied < 0 ? 0 : waitFor(m[denied]);
        if (wait == 0) {
            return denied;
        }
        long deadline = arrival + wait;
        long pause = POLL_MIN_NANOS;
        while (true) {
            long left = deadline - e.realClock.nanos();
            if (left <= 0) {
                return denied;
            }
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.currentThread().isInterrupted()) {
                return denied;
            }
            for (int i = 0; i < m.length; i++) {
                m[i] = m[i].again();
            }
            denied = once(e, m, e.realClock.nanos() + e.timeoutNanos);
            if (denied < 0 || waitFor(m[denied]) == 0) {
                return denied;
            }
            pause = Math.min(2 * pause, POLL_MAX_MILLIS * 1_000_000L);
        }
    }

    /** @return how long this denial may be waited out: never a degraded or a hopeless one */
    static long waitFor(Member denial) {
        if (denial.out.degraded() || denial.out.retryAfterNanos() == Decision.NEVER) {
            return 0;
        }
        return denial.space.binding.maxWaitNanos();
    }

    /**
     * Records the attempt's reading of the local clock in every member's decision that has none
     * ({@link MutableDecision#nanos()}; the local fallback records its own, on the same clock):
     * the instant the store decided, as the client saw it.
     */
    static void stamp(Member[] m, long now) {
        for (Member a : m) {
            if (a.out.nanos() == MutableDecision.NO_READING) {
                a.out.at(now);
            }
        }
    }

    /** One decision; a reply from Redis is awaited until {@code deadline} (real clock). */
    private static int once(Engine e, Member[] m, long deadline) {
        long now = e.localClock.nanos();
        int cached = cached(m, now);
        if (cached >= 0) {
            return cached;
        }
        if (e.breaker.isOpen()) {
            degradeAll(m);
        } else {
            viaRedis(e, m, now, deadline);
        }
        return settle(e, m, now);
    }

    /**
     * Answers from the denial cache, if a policy has a cached denial for its key.
     *
     * @return the index of the cached denial, or {@code -1} if none answers
     */
    static int cached(Member[] m, long now) {
        for (int i = 0; i < m.length; i++) {
            Member a = m[i];
            if (a.cost > 0 && a.space.cache != null
                    && a.space.cache.lookup(a.key, a.cost, now, a.space.limit, a.out)) {
                // The other policies are not consulted (that is the point of the cache): they are
                // not charged and report their full quota.
                for (int j = 0; j < m.length; j++) {
                    if (j != i) {
                        m[j].out.allow(m[j].space.limit, m[j].space.limit, 0);
                    }
                }
                stamp(m, now);
                return i;
            }
        }
        return -1;
    }

    /** Decides every member by the failure policy (the breaker is open). */
    static void degradeAll(Member[] m) {
        degradeAll(m, true);
    }

    /** @param wait whether the local fallback may wait for a concurrency permit on this thread */
    static void degradeAll(Member[] m, boolean wait) {
        boolean denied = false;
        for (Member a : m) {
            denied = degradeOne(a, denied, wait);
        }
    }

    /** Decides one member by the failure policy. @return whether the request is denied now */
    private static boolean degradeOne(Member a, boolean deniedBefore) {
        return degradeOne(a, deniedBefore, true);
    }

    private static boolean degradeOne(Member a, boolean deniedBefore, boolean wait) {
        if (deniedBefore) {
            a.space.degraded(a.key, 0, a.out, wait);
            return true;
        }
        if (!a.space.degraded(a.key, a.cost, a.out, wait)) {
            return true;
        }
        a.charged = a.cost > 0;
        return false;
    }

    private static void viaRedis(Engine e, Member[] m, long now, long deadline) {
        int groups = prepare(e, m, now);
        long clock = e.nowArg(now);
        ScriptCall[] calls = new ScriptCall[groups];
        for (int g = 0; g < groups; g++) {
            calls[g] = e.call('a', clock, m, g, null);
            e.send(calls[g]);
        }
        for (int g = 0; g < groups; g++) {
            ScriptCall done = awaitReply(e, calls[g], deadline);
            if (done != null && decodeGroup(e, g, done.values(), m)) {
                continue;
            }
            degradeGroup(m, g);
        }
    }

    /**
     * Redis did not answer for group {@code g} (a failure, a timeout, a malformed reply): the
     * failure policy decides its members. If the script ran after all, its concurrency leases are
     * removed (releasing a lease by its id is idempotent; a rate limit's permits stay taken, the
     * strict side).
     */
    static void degradeGroup(Member[] m, int g) {
        degradeGroup(m, g, true);
    }

    /** @param wait whether the local fallback may wait for a concurrency permit on this thread */
    static void degradeGroup(Member[] m, int g, boolean wait) {
        boolean denied = false;
        for (Member a : m) {
            if (a.group != g) {
                continue;
            }
            if (a.id != null && a.space.leases != null) {
                a.space.refund(a.key, a.id, 1, a.cost, MutableDecision.NO_RECEIPT);
            }
            denied = degradeOne(a, denied, wait);
        }
    }

    /**
     * Groups the members by cluster slot (the same client key gives the same hash tag, hence one
     * slot; a request with one policy is one group, and its key is hashed only when the call is
     * written), names the leases of concurrency members, and stamps each with
     * the instance's reading {@code now} (a calendar window sends the bounds around it).
     *
     * @return the number of groups, each one script call
     */
    static int prepare(Engine e, Member[] m, long now) {
        int groups = 0;
        int[] slots = m.length == 1 ? null : new int[m.length];
        for (int i = 0; i < m.length; i++) {
            Member a = m[i];
            a.at = now;
            if (slots != null) {
                // Policies of one client key share its slot: hashed once per distinct key
                int same = sameKeyBefore(m, i);
                int slot = same >= 0 ? slots[m[same].group] : e.keys.slot(a.key);
                int g = 0;
                while (g < groups && slots[g] != slot) {
                    g++;
                }
                if (g == groups) {
                    slots[groups++] = slot;
                }
                a.group = g;
            } else {
                groups = 1;
            }
            if (a.space.binding.needsRequestId() && a.cost > 0) {
                a.id = e.newLeaseId();
            }
        }
        return groups;
    }

    /** @return the first member before {@code i} with the same client key, or {@code -1} */
    private static int sameKeyBefore(Member[] m, int i) {
        for (int j = 0; j < i; j++) {
            if (m[j].key.equals(m[i].key)) {
                return j;
            }
        }
        return -1;
    }

    private static ScriptCall awaitReply(Engine e, ScriptCall call, long deadline) {
        try {
            ScriptCall done = e.await(call, deadline);
            e.breaker.success();
            return done;
        } catch (InterruptedException ex) {
            // Not Redis's fault: degrade this request, keep the interrupt for the caller.
            Thread.currentThread().interrupt();
            return null;
        } catch (TimeoutException | ExecutionException | RuntimeException ex) {
            Throwable cause = ex instanceof ExecutionException && ex.getCause() != null
                    ? ex.getCause() : ex;
            e.log.log(Level.DEBUG, "sluice-redis ''{0}'': call failed: {1}", e.name, cause);
            e.breaker.failure(cause);
            return null;
        }
    }

    /** @return {@code false} if the reply is malformed (then nothing was written to out) */
    static boolean decodeGroup(Engine e, int g, long[] reply, Member[] m) {
        boolean denied = false;
        int at = 0;
        for (Member a : m) {
            if (a.group != g) {
                continue;
            }
            if (at + REPLY > reply.length) {
                e.log.log(Level.WARNING, "sluice-redis ''{0}'': a script reply has {1} integers,"
                        + " too few for its policies", e.name, reply.length);
                return false;
            }
            Engine.decode(reply, at, a.space.limit, a.space.binding.nanosReply(), a.out);
            if (a.out.allowed() && !denied && a.cost > 0) {
                a.out.receipt(reply[at + REPLY - 1]);
            }
            a.fromRedis = true;
            a.peek = denied;
            denied |= !a.out.allowed();
            at += REPLY;
        }
        if (!denied) {
            for (Member a : m) {
                if (a.group == g) {
                    a.charged = a.cost > 0;
                }
            }
        }
        return true;
    }

    static int settle(Engine e, Member[] m, long now) {
        stamp(m, now);
        int first = -1;
        for (int i = 0; i < m.length && first < 0; i++) {
            if (!m[i].out.allowed()) {
                first = i;
            }
        }
        if (first < 0) {
            for (Member a : m) {
                if (a.space.leases != null && a.charged) {
                    a.space.leases.push(a.key, a.fromRedis
                            ? new LeaseBook.Lease(LeaseBook.Where.REDIS, a.id, 1, a.cost)
                            : new LeaseBook.Lease(a.space.degradedWhere(), null, 1, a.cost));
                }
            }
            return -1;
        }
        giveBack(e, m);
        for (Member a : m) {
            if (a.fromRedis && !a.peek && !a.out.allowed() && a.cost > 0 && a.space.cache != null) {
                a.space.cache.put(a.key, a.cost, now, a.out);
            }
        }
        return first;
    }

    /**
     * Gives back what a denied request took: one refund call per Redis group, each policy with
     * its admission's receipt (the policies it did not charge at cost 0); the local fallback's
     * admissions are refunded there.
     */
    private static void giveBack(Engine e, Member[] m) {
        int groups = 0;
        for (Member a : m) {
            groups = Math.max(groups, a.group + 1);
            if (a.charged && !a.fromRedis) {
                if (a.space.leases != null) {
                    a.space.giveBack(a.key,
                            new LeaseBook.Lease(a.space.degradedWhere(), null, 1, a.cost));
                } else if (a.space.fallback != null) {
                    a.space.fallback.refund(a.key, a.cost, a.out);
                }
            }
        }
        for (int g = 0; g < groups; g++) {
            int members = 0;
            boolean any = false;
            for (Member a : m) {
                if (a.group == g) {
                    members++;
                    any |= a.charged && a.fromRedis;
                }
            }
            if (!any) {
                continue;
            }
            Part[] refund = new Part[members];
            int k = 0;
            for (Member a : m) {
                if (a.group == g) {
                    Part p = new Part(a.binding, a.head, a.charged ? a.cost : 0);
                    p.key = a.key;
                    p.id = a.id;
                    p.receipt = a.charged ? a.out.receipt() : MutableDecision.NO_RECEIPT;
                    p.at = a.at;
                    refund[k++] = p;
                }
            }
            e.fireAndForget('r', e.nowArg(e.localClock.nanos()), refund, 0);
        }
    }
}
