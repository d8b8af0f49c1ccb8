package io.github.sluice.redis.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The concurrency permits this instance holds, per client key, so that a release (which names a
 * key and a cost, not a lease) removes leases this instance took, and so that they can be renewed.
 *
 * <p>Permits of one key are interchangeable, so releases pop the most recent lease first. A lease
 * is held in Redis (a sorted-set member per permit, {@code id#i}, scored by its expiry), or was
 * granted by the failure policy while Redis was down (locally, or by failing open) and is given
 * back there.
 *
 * <p>Thread-safe: each key's stack is changed inside {@link ConcurrentHashMap#compute}.
 */
public final class LeaseBook {

    /** Where a lease is held. */
    public enum Where {
        /** In Redis: members {@code id#first .. id#(first+count-1)}. */
        REDIS,
        /** In the local fallback registry. */
        LOCAL,
        /** Nowhere: granted by a fail-open policy. */
        NONE
    }

    /**
     * A run of permits taken by one request.
     *
     * @param where where they are held
     * @param id the lease id in Redis, or {@code null}
     * @param first the index of the first member
     * @param count the number of permits
     */
    public record Lease(Where where, String id, long first, long count) {
    }

    private final ConcurrentHashMap<String, ArrayDeque<Lease>> byKey = new ConcurrentHashMap<>();

    /**
     * Records a lease.
     *
     * @param key the client key
     * @param lease the lease
     */
    public void push(String key, Lease lease) {
        byKey.compute(key, (k, stack) -> {
            ArrayDeque<Lease> s = stack == null ? new ArrayDeque<>(2) : stack;
            s.push(lease);
            return s;
        });
    }

    /**
     * Takes {@code cost} permits off the key's stack, most recent first; a lease larger than what
     * is left to take is split, its last members taken.
     *
     * @param key the client key
     * @param cost permits to take, {@code > 0}
     * @return the leases taken, empty if none was recorded (a release without acquisition)
     */
    public List<Lease> pop(String key, long cost) {
        List<Lease> taken = new ArrayList<>(1);
        byKey.computeIfPresent(key, (k, stack) -> {
            long left = cost;
            while (left > 0 && !stack.isEmpty()) {
                Lease l = stack.pop();
                if (l.count() <= left) {
                    taken.add(l);
                    left -= l.count();
                } else {
                    long keep = l.count() - left;
                    taken.add(new Lease(l.where(), l.id(), l.first() + keep, left));
                    stack.push(new Lease(l.where(), l.id(), l.first(), keep));
                    left = 0;
                }
            }
            return stack.isEmpty() ? null : stack;
        });
        return taken;
    }

    /** @return a copy of the leases held in Redis, per client key */
    public Map<String, List<Lease>> redisLeases() {
        Map<String, List<Lease>> copy = new java.util.HashMap<>();
        byKey.forEach((key, ignored) -> byKey.computeIfPresent(key, (k, stack) -> {
            for (Lease l : stack) {
                if (l.where() == Where.REDIS) {
                    copy.computeIfAbsent(k, x -> new ArrayList<>()).add(l);
                }
            }
            return stack;
        }));
        return copy;
    }

    /** @return the number of keys with permits held by this instance */
    public int keys() {
        return byKey.size();
    }
}
