package io.github.sluice.redis;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.Binding;
import io.github.sluice.redis.internal.LeaseBook;
import io.lettuce.core.cluster.SlotHash;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
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
 *       from the moment the request entered the store (hashing keys and sending included).
 *   <li>A group that fails or times out is decided by the failure policy.
 *   <li>If any policy denied, permits taken by the others are given back (without waiting): a
 *       group that Redis admitted is refunded by one more script call, each policy carrying the
 *       receipt its script returned, so that the refund lands in the window, slot, log entries
 *       or schedule its admission took, however long the round trip took and whatever other
 *       requests did meanwhile; a policy the local fallback admitted is refunded there.
 * </ol>
 *
 * <p>Not instantiated: a static procedure over the caller's arrays.
 */
final class Acquisition {

    /** Integers per policy in the script's reply: the decision's five, then its receipt. */
    private static final int REPLY = 6;
    private static final long POLL_MIN_NANOS = 1_000_000L;
    private static final long POLL_MAX_MILLIS = 20;

    private Acquisition() {
    }

    static void checkCost(long cost) {
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be >= 0 but was " + cost);
        }
    }

    /** @return a receipt as the script's argument: the number, or none */
    static String receiptArg(long receipt) {
        return receipt == MutableDecision.NO_RECEIPT ? Binding.NO_RECEIPT : Long.toString(receipt);
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
    static int run(Engine e, RedisKeySpace[] ks, String[] keys, long[] costs, MutableDecision[] out,
            int n) {
        long arrival = e.realClock.nanos();
        int denied = once(e, ks, keys, costs, out, n, arrival + e.timeoutNanos);
        long wait = denied < 0 ? 0 : waitFor(ks[denied], out[denied]);
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
            denied = once(e, ks, keys, costs, out, n, e.realClock.nanos() + e.timeoutNanos);
            if (denied < 0 || waitFor(ks[denied], out[denied]) == 0) {
                return denied;
            }
            pause = Math.min(2 * pause, POLL_MAX_MILLIS * 1_000_000L);
        }
    }

    /** @return how long this denial may be waited out: never a degraded or a hopeless one */
    private static long waitFor(RedisKeySpace space, MutableDecision denial) {
        if (denial.degraded() || denial.retryAfterNanos() == Decision.NEVER) {
            return 0;
        }
        return space.binding.maxWaitNanos();
    }

    /** One decision; a reply from Redis is awaited until {@code deadline} (real clock). */
    private static int once(Engine e, RedisKeySpace[] ks, String[] keys, long[] costs,
            MutableDecision[] out, int n, long deadline) {
        for (int i = 0; i < n; i++) {
            Objects.requireNonNull(keys[i], "key");
            Objects.requireNonNull(out[i], "out");
            checkCost(costs[i]);
        }
        long now = e.localClock.nanos();
        for (int i = 0; i < n; i++) {
            if (costs[i] > 0 && ks[i].cache != null
                    && ks[i].cache.lookup(keys[i], costs[i], now, ks[i].limit, out[i])) {
                // The other policies are not consulted (that is the point of the cache): they are
                // not charged and report their full quota.
                for (int j = 0; j < n; j++) {
                    if (j != i) {
                        out[j].allow(ks[j].limit, ks[j].limit, 0);
                    }
                }
                return i;
            }
        }
        State s = new State(n);
        if (e.breaker.isOpen()) {
            s.degradeAll(ks, keys, costs, out);
        } else {
            s.viaRedis(e, ks, keys, costs, out, now, deadline);
        }
        return s.settle(e, ks, keys, costs, out, now);
    }

    /** Per-request bookkeeping. */
    private static final class State {
        final int n;
        final boolean[] charged;
        final boolean[] fromRedis;
        final boolean[] peek;
        final String[] leaseIds;
        int[] group;
        int groups;

        State(int n) {
            this.n = n;
            this.charged = new boolean[n];
            this.fromRedis = new boolean[n];
            this.peek = new boolean[n];
            this.leaseIds = new String[n];
        }

        void degradeAll(RedisKeySpace[] ks, String[] keys, long[] costs, MutableDecision[] out) {
            boolean denied = false;
            for (int i = 0; i < n; i++) {
                denied = degradeOne(i, denied, ks, keys, costs, out);
            }
        }

        boolean degradeOne(int i, boolean deniedBefore, RedisKeySpace[] ks, String[] keys,
                long[] costs, MutableDecision[] out) {
            if (deniedBefore) {
                ks[i].degraded(keys[i], 0, out[i]);
                return true;
            }
            if (!ks[i].degraded(keys[i], costs[i], out[i])) {
                return true;
            }
            charged[i] = costs[i] > 0;
            return false;
        }

        void viaRedis(Engine e, RedisKeySpace[] ks, String[] keys, long[] costs,
                MutableDecision[] out, long now, long deadline) {
            String[] redisKeys = new String[n];
            int[] slots = new int[n];
            group = new int[n];
            for (int i = 0; i < n; i++) {
                redisKeys[i] = e.keys.key(ks[i].name, keys[i]);
                int slot = SlotHash.getSlot(redisKeys[i]);
                int g = 0;
                while (g < groups && slots[g] != slot) {
                    g++;
                }
                if (g == groups) {
                    slots[groups++] = slot;
                }
                group[i] = g;
                if (ks[i].binding.needsRequestId() && costs[i] > 0) {
                    leaseIds[i] = e.newLeaseId();
                }
            }
            List<CompletableFuture<List<Object>>> futures = new ArrayList<>(groups);
            String nowArg = e.nowArg(now);
            for (int g = 0; g < groups; g++) {
                futures.add(e.submit(keysOf(g, redisKeys),
                        argvOf(g, "a", nowArg, ks, costs, null)));
            }
            for (int g = 0; g < groups; g++) {
                List<Object> reply = awaitReply(e, futures.get(g), deadline);
                if (reply != null && decodeGroup(e, g, reply, ks, costs, out)) {
                    continue;
                }
                // Redis did not answer: the failure policy decides this group. If the script ran
                // after all, its concurrency leases are removed (releasing a lease by its id is
                // idempotent; a rate limit's permits stay taken, the strict side).
                boolean denied = false;
                for (int i = 0; i < n; i++) {
                    if (group[i] == g) {
                        if (leaseIds[i] != null && ks[i].leases != null) {
                            ks[i].refund(keys[i], leaseIds[i], 1, costs[i], MutableDecision.NO_RECEIPT);
                        }
                        leaseIds[i] = null;
                        denied = degradeOne(i, denied, ks, keys, costs, out);
                    }
                }
            }
        }

        private static List<Object> awaitReply(Engine e, CompletableFuture<List<Object>> f,
                long deadline) {
            try {
                List<Object> reply = e.await(f, deadline);
                e.breaker.success();
                return reply;
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
        private boolean decodeGroup(Engine e, int g, List<Object> reply, RedisKeySpace[] ks,
                long[] costs, MutableDecision[] out) {
            int members = 0;
            for (int i = 0; i < n; i++) {
                members += group[i] == g ? 1 : 0;
            }
            if (reply.size() != members * REPLY) {
                e.log.log(Level.WARNING, "sluice-redis ''{0}'': unexpected script reply {1}", e.name, reply);
                return false;
            }
            boolean denied = false;
            int m = 0;
            for (int i = 0; i < n; i++) {
                if (group[i] != g) {
                    continue;
                }
                int at = REPLY * m++;
                try {
                    Engine.decode(reply, at, ks[i].limit, out[i]);
                } catch (IllegalStateException ex) {
                    e.log.log(Level.WARNING, "sluice-redis ''{0}'': {1}", e.name, ex.getMessage());
                    return false;
                }
                if (!(reply.get(at + REPLY - 1) instanceof Long receipt)) {
                    e.log.log(Level.WARNING, "sluice-redis: unexpected script reply {0}", reply);
                    return false;
                }
                if (out[i].allowed() && !denied && costs[i] > 0) {
                    out[i].receipt(receipt);
                }
                fromRedis[i] = true;
                peek[i] = denied;
                denied |= !out[i].allowed();
            }
            if (!denied) {
                for (int i = 0; i < n; i++) {
                    if (group[i] == g) {
                        charged[i] = costs[i] > 0;
                    }
                }
            }
            return true;
        }

        private String[] keysOf(int g, String[] redisKeys) {
            int members = 0;
            for (int i = 0; i < n; i++) {
                members += group[i] == g ? 1 : 0;
            }
            String[] k = new String[members];
            int m = 0;
            for (int i = 0; i < n; i++) {
                if (group[i] == g) {
                    k[m++] = redisKeys[i];
                }
            }
            return k;
        }

        /**
         * The group's arguments. For a refund ({@code admissions} not null), the policies not
         * charged stay at cost 0 and the charged ones carry their admission's receipt.
         */
        private String[] argvOf(int g, String op, String nowArg, RedisKeySpace[] ks, long[] costs,
                MutableDecision[] admissions) {
            int members = 0;
            for (int i = 0; i < n; i++) {
                members += group[i] == g ? 1 : 0;
            }
            String[] argv = new String[2 + members * Binding.STRIDE];
            argv[0] = nowArg;
            argv[1] = op;
            int at = 2;
            for (int i = 0; i < n; i++) {
                if (group[i] == g) {
                    boolean refunded = admissions != null && charged[i];
                    long cost = admissions != null && !charged[i] ? 0 : costs[i];
                    ks[i].binding.fill(argv, at, cost, leaseIds[i], 1);
                    if (refunded) {
                        argv[at + Binding.RECEIPT] = receiptArg(admissions[i].receipt());
                    }
                    at += Binding.STRIDE;
                }
            }
            return argv;
        }

        int settle(Engine e, RedisKeySpace[] ks, String[] keys, long[] costs,
                MutableDecision[] out, long now) {
            int first = -1;
            for (int i = 0; i < n && first < 0; i++) {
                if (!out[i].allowed()) {
                    first = i;
                }
            }
            if (first < 0) {
                for (int i = 0; i < n; i++) {
                    if (ks[i].leases != null && charged[i]) {
                        ks[i].leases.push(keys[i], fromRedis[i]
                                ? new LeaseBook.Lease(LeaseBook.Where.REDIS, leaseIds[i], 1, costs[i])
                                : new LeaseBook.Lease(ks[i].degradedWhere(), null, 1, costs[i]));
                    }
                }
                return -1;
            }
            giveBack(e, ks, keys, costs, out);
            for (int i = 0; i < n; i++) {
                if (fromRedis[i] && !peek[i] && !out[i].allowed() && costs[i] > 0
                        && ks[i].cache != null) {
                    ks[i].cache.put(keys[i], costs[i], now, out[i]);
                }
            }
            return first;
        }

        /**
         * Gives back what a denied request took: one refund call per Redis group, each policy
         * with its admission's receipt; the local fallback's admissions are refunded there.
         */
        private void giveBack(Engine e, RedisKeySpace[] ks, String[] keys, long[] costs,
                MutableDecision[] out) {
            for (int i = 0; i < n; i++) {
                if (charged[i] && !fromRedis[i]) {
                    if (ks[i].leases != null) {
                        ks[i].giveBack(keys[i],
                                new LeaseBook.Lease(ks[i].degradedWhere(), null, 1, costs[i]));
                    } else if (ks[i].fallback != null) {
                        ks[i].fallback.refund(keys[i], costs[i], out[i]);
                    }
                }
            }
            for (int g = 0; g < groups; g++) {
                boolean any = false;
                String[] redisKeys = new String[n];
                for (int i = 0; i < n; i++) {
                    if (group[i] == g && charged[i] && fromRedis[i]) {
                        any = true;
                    }
                    if (group[i] == g) {
                        redisKeys[i] = e.keys.key(ks[i].name, keys[i]);
                    }
                }
                if (any) {
                    e.fireAndForget(keysOf(g, redisKeys),
                            argvOf(g, "r", e.nowArg(e.localClock.nanos()), ks, costs, out));
                }
            }
        }
    }
}
