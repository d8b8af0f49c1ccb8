package io.github.sluice.redis.internal;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Remembers recent denials of one policy locally, so that a flood on one key is answered without
 * a round trip to Redis until the denial's retry-after has passed.
 *
 * <p>A direct-mapped table of a fixed number of slots: a key's slot is chosen by its hash, a new
 * denial overwrites whatever the slot held. The table is therefore bounded whatever the number of
 * keys, needs no sweeping, and a lookup is one array read. An entry matches only the same key
 * and the same cost: a cheaper request might pass.
 *
 * <p>Using a cached denial is exact for the rate algorithms as long as nobody refunds permits to
 * the key in the meantime (a refund can only make an earlier request pass, so the cache errs on
 * the strict side). A refund sent by this instance forgets the key's entry here ({@link #forget});
 * other instances keep theirs until its retry-after. Concurrency limits are not cached: a release may come at any moment.
 *
 * <p>Thread-safe and lock-free.
 */
public final class DenialCache {

    private final AtomicReferenceArray<Entry> slots;
    private final int mask;

    /**
     * @param size the number of slots, {@code >= 1}; rounded up to a power of two
     * @throws IllegalArgumentException if {@code size < 1}
     */
    public DenialCache(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be >= 1 but was " + size);
        }
        int n = size == 1 ? 1 : Integer.highestOneBit(size - 1) << 1;
        this.slots = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
    }

    /**
     * Answers from a cached denial if there is a live one for this key and cost.
     *
     * @param key the client key
     * @param cost the cost requested
     * @param now the local clock reading, nanoseconds
     * @param limit the policy's limit, for the decision
     * @param out where the denial is written on a hit
     * @return {@code true} on a hit ({@code out} then holds a denial)
     */
    public boolean lookup(String key, long cost, long now, long limit, MutableDecision out) {
        Entry e = slots.get(index(key));
        if (e == null || e.cost != cost || now - e.until >= 0 || !e.key.equals(key)) {
            return false;
        }
        out.deny(limit, e.remaining, Math.max(0, e.resetAt - now), e.until - now);
        return true;
    }

    /**
     * Caches a denial decided by Redis. A denial that can never pass is not cached (it is rare and
     * cheap to refuse again).
     *
     * @param key the client key
     * @param cost the cost that was denied, {@code > 0}
     * @param now the local clock reading taken before the decision, nanoseconds
     * @param denial the denial
     */
    public void put(String key, long cost, long now, MutableDecision denial) {
        long retry = denial.retryAfterNanos();
        if (denial.allowed() || retry == Decision.NEVER || retry <= 0) {
            return;
        }
        slots.set(index(key), new Entry(key, cost, saturatedAdd(now, retry),
                denial.remaining(), saturatedAdd(now, denial.resetNanos())));
    }

    /**
     * Forgets the cached denial of {@code key}, if its slot holds one: permits were refunded to the
     * key (a reservation of a policy that counts by outcome came back), so its next request may
     * pass. One slot read; allocates nothing.
     *
     * @param key the client key
     */
    public void forget(String key) {
        int i = index(key);
        Entry e = slots.get(i);
        if (e != null && e.key.equals(key)) {
            slots.compareAndSet(i, e, null);
        }
    }

    /** Forgets every cached denial: the policy changed. */
    public void clear() {
        for (int i = 0; i < slots.length(); i++) {
            slots.set(i, null);
        }
    }

    /** @return the number of slots */
    public int capacity() {
        return slots.length();
    }

    private int index(String key) {
        int h = key.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    private record Entry(String key, long cost, long until, long remaining, long resetAt) {
    }
}
