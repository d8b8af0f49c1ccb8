package io.github.sluice.store;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-memory {@link Store}: per policy, a map from key to {@link Cell} split into a
 * power-of-two number of shards.
 *
 * <h2>Behaviour</h2>
 * <ul>
 *   <li><b>Lookups</b> of an existing key are a {@link ConcurrentHashMap#get} and take no lock;
 *       only a miss allocates (the cell and the map node).
 *   <li><b>Idle eviction is lossless</b>: a cell equal to a fresh one (a full bucket, a passed
 *       window, no permits held) is retired atomically (a compare-and-set from the very state
 *       found fresh, so no acquisition can slip in between) and dropped; the next request for its
 *       key creates a fresh cell, so no decision changes. It runs incrementally: each miss below
 *       the bound examines {@value #SWEEP_ON_MISS} entries of its shard at a cursor that goes
 *       round the shard, and {@link #sweep(int)} lets a scheduler sweep more. A request that
 *       finds its cell retired looks the key up again.
 *   <li><b>Hard bound</b>: each policy holds at most {@link Builder#maxKeys(int) maxKeys} keys,
 *       spread evenly over the shards (a shard holds at most {@code maxKeys / shards}; a policy
 *       never uses more shards than the largest power of two not above {@code maxKeys}). When a
 *       new key arrives at a full shard, the registry examines the next {@value #SAMPLE} entries
 *       at the shard's cursor and drops a fresh one if there is one (lossless), otherwise the
 *       least recently used of them (approximate LRU, like Redis; last use is known to about a
 *       second). The sample stops early at an entry no more recent than the previous victim, so
 *       a flood of new keys costs one or two entries per new key. A dropped key's history is
 *       forgotten: its next request starts from a fresh state, which may admit up to one more
 *       quota for it; the {@link EvictionListener} is told ({@code lossless = false}). Every new
 *       key is admitted by its own algorithm, however many distinct keys arrive.
 *   <li><b>Concurrency limits</b>: a key that holds permits, or has requests waiting for one, is
 *       never dropped, so a release always finds the permits it gives back. If a shard is full
 *       of such keys, a new key is <em>denied</em> (retry after one second): the gate never
 *       opens silently. An algorithm with a bounded wait ({@code Concurrency.maxWait}) makes
 *       {@link KeySpace#acquire} wait for a release (see
 *       {@link Algorithm#acquireOrWait(Cell, long, Clock, long, MutableDecision)}).
 *   <li><b>Memory</b>: per key, the map node, the key and the cell (about 100 bytes plus the key
 *       for one-word algorithms; see each algorithm for its cell).
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class ShardedRegistry implements Store {

    /** Entries examined when choosing a victim at the hard bound (Redis samples 5 too). */
    static final int SAMPLE = 5;
    /** Entries examined for idle eviction on each miss. */
    private static final int SWEEP_ON_MISS = 2;
    /** Retry-after reported when a key cannot get a cell because its shard is full. */
    private static final long FULL_RETRY_NANOS = 1_000_000_000L;

    private final Clock clock;
    private final int shardCount;
    private final int maxKeys;
    private final EvictionListener listener;
    private final ConcurrentHashMap<String, Space<?>> spaces = new ConcurrentHashMap<>();

    private ShardedRegistry(Builder b) {
        this.clock = b.clock;
        this.shardCount = b.shards;
        this.maxKeys = b.maxKeys;
        this.listener = b.listener;
    }

    /** @return a builder with the defaults documented on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@inheritDoc}
     *
     * <p>This store refuses a rebinding: a name stays bound to the first algorithm given for it,
     * because its cells are shaped by that algorithm. A changed policy needs a new name.
     *
     * @throws IllegalArgumentException if the name is already bound to a different algorithm
     */
    @Override
    public KeySpace keySpace(String name, Algorithm<?> algorithm) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(algorithm, "algorithm");
        Space<?> space = spaces.computeIfAbsent(name, n -> newSpace(n, algorithm));
        if (!space.algorithm.equals(algorithm)) {
            throw new IllegalArgumentException("policy '" + name + "' is already bound to "
                    + space.algorithm + " and cannot be bound to " + algorithm);
        }
        return space;
    }

    private <S extends Cell> Space<S> newSpace(String name, Algorithm<S> algorithm) {
        return new Space<>(name, algorithm, this);
    }

    /**
     * Examines up to {@code entriesPerShard} entries of every shard of every policy and drops the
     * fresh ones. Meant for a scheduled maintenance task; never needed for correctness.
     *
     * @param entriesPerShard how many entries to examine per shard, {@code >= 1}
     * @return the number of keys dropped
     * @throws IllegalArgumentException if {@code entriesPerShard < 1}
     */
    public int sweep(int entriesPerShard) {
        if (entriesPerShard < 1) {
            throw new IllegalArgumentException(
                    "entriesPerShard must be >= 1 but was " + entriesPerShard);
        }
        long now = clock.nanos();
        int dropped = 0;
        for (Space<?> space : spaces.values()) {
            for (Shard<?> shard : space.shards) {
                dropped += shard.sweep(now, entriesPerShard);
            }
        }
        return dropped;
    }

    /** @return the number of shards per policy */
    public int shards() {
        return shardCount;
    }

    /** @return the hard bound on keys per policy */
    public int maxKeys() {
        return maxKeys;
    }

    /** @return the clock */
    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "ShardedRegistry{shards=" + shardCount + ", maxKeys=" + maxKeys
                + ", policies=" + spaces.keySet() + '}';
    }

    private static final class Space<S extends Cell> implements KeySpace {
        final String name;
        final Algorithm<S> algorithm;
        final Clock clock;
        final Shard<S>[] shards;
        final int mask;

        @SuppressWarnings("unchecked")
        Space(String name, Algorithm<S> algorithm, ShardedRegistry registry) {
            this.name = name;
            this.algorithm = algorithm;
            this.clock = registry.clock;
            // Never more shards than keys, so that the per-shard bounds add up to at most maxKeys.
            int n = Math.min(registry.shardCount, Integer.highestOneBit(registry.maxKeys));
            int perShard = registry.maxKeys / n;
            this.shards = (Shard<S>[]) new Shard<?>[n];
            for (int i = 0; i < n; i++) {
                shards[i] = new Shard<>(name, algorithm, perShard, registry.listener);
            }
            this.mask = n - 1;
        }

        private Shard<S> shard(String key) {
            int h = key.hashCode() * 0x9E3779B9;
            return shards[(h ^ (h >>> 16)) & mask];
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Algorithm<?> algorithm() {
            return algorithm;
        }

        @Override
        public boolean acquire(String key, long cost, MutableDecision out) {
            long now = clock.nanos();
            Shard<S> shard = shard(key);
            while (true) {
                S cell = shard.map.get(key);
                if (cell == null) {
                    cell = shard.insert(key, now);
                    if (cell == null) {
                        out.deny(algorithm.limit(), 0, FULL_RETRY_NANOS, FULL_RETRY_NANOS);
                        return false;
                    }
                }
                int result = algorithm.acquireOrWait(cell, now, clock, cost, out);
                if (result != Algorithm.RETIRED) {
                    cell.touch(now);
                    return result == Algorithm.ADMITTED;
                }
                shard.remove(key, cell);
            }
        }

        @Override
        public void release(String key, long cost) {
            S cell = shard(key).map.get(key);
            if (cell != null) {
                algorithm.release(cell, clock.nanos(), cost);
            }
        }

        /**
         * {@inheritDoc}
         *
         * <p>The cell found now may not be the one the admission wrote: an idle key is dropped once
         * its state is fresh, which means that time has already given back everything its
         * admissions took, and a new cell is made at its next request. Each algorithm checks the
         * receipt against the cell it finds and gives back only what that cell provably holds of
         * the admission, so such a refund finds nothing to give. A key dropped at the hard bound
         * had its history forgotten anyway (see the class documentation).
         */
        @Override
        public void refund(String key, long cost, MutableDecision admission) {
            if (cost <= 0 || !admission.allowed()) {
                return;
            }
            S cell = shard(key).map.get(key);
            if (cell != null) {
                algorithm.refund(cell, cost, admission.receipt(), clock);
            }
        }

        @Override
        public long size() {
            long n = 0;
            for (Shard<S> shard : shards) {
                n += shard.count.get();
            }
            return n;
        }

        @Override
        public String toString() {
            return "KeySpace{" + name + ", " + algorithm + ", keys=" + size() + '}';
        }
    }

    private static final class Shard<S extends Cell> {
        final String policy;
        final Algorithm<S> algorithm;
        final int bound;
        final EvictionListener listener;
        final ConcurrentHashMap<String, S> map = new ConcurrentHashMap<>();
        /** Exact number of entries, reserved before an insert so the bound is never exceeded. */
        final AtomicInteger count = new AtomicInteger();
        /** Guards {@link #cursor}; a thread that cannot take it skips incremental sweeping. */
        final AtomicBoolean sweeping = new AtomicBoolean();
        Iterator<Map.Entry<String, S>> cursor;
        /** The last-access stamp of the last entry dropped at the bound. Plain field: a hint. */
        int victimStamp;

        Shard(String policy, Algorithm<S> algorithm, int bound, EvictionListener listener) {
            this.policy = policy;
            this.algorithm = algorithm;
            this.bound = bound;
            this.listener = listener;
        }

        /** Inserts a fresh cell for {@code key}; returns the winner, or null if no room. */
        S insert(String key, long now) {
            if (count.get() < bound) {
                // Incremental idle eviction. At the bound, makeRoom's sample does it instead.
                // Before our cell exists: a new cell is fresh, and sweeping after the insert could
                // retire it before its first acquisition (and again on every retry).
                sweep(now, SWEEP_ON_MISS);
            }
            while (count.incrementAndGet() > bound) {
                count.decrementAndGet();
                if (!makeRoom(now)) {
                    return map.get(key);
                }
            }
            S fresh = algorithm.newCell(now);
            S prev = map.putIfAbsent(key, fresh);
            if (prev != null) {
                count.decrementAndGet();
                return prev;
            }
            return fresh;
        }

        void remove(String key, S cell) {
            if (map.remove(key, cell)) {
                count.decrementAndGet();
            }
        }

        /** Drops fresh cells among the next {@code n} entries; returns how many. */
        int sweep(long now, int n) {
            if (!sweeping.compareAndSet(false, true)) {
                return 0;
            }
            int dropped = 0;
            try {
                for (int i = 0; i < n; i++) {
                    Map.Entry<String, S> e = next();
                    if (e == null) {
                        break;
                    }
                    if (algorithm.retireIfFresh(e.getValue(), now)) {
                        drop(e.getKey(), e.getValue(), true);
                        dropped++;
                    }
                }
            } finally {
                sweeping.set(false);
            }
            return dropped;
        }

        /** Frees one entry at the bound: a fresh one if possible, else the LRU of a sample. */
        boolean makeRoom(long now) {
            for (int attempt = 0; attempt < 4; attempt++) {
                Map.Entry<String, S> victim = sampleVictim(now);
                if (victim == null) {
                    // Only keys holding permits (never dropped), or a shard emptied meanwhile.
                    return count.get() < bound;
                }
                S cell = victim.getValue();
                boolean fresh = algorithm.retireIfFresh(cell, now);
                if (fresh || (!algorithm.concurrency() && algorithm.retire(cell))) {
                    drop(victim.getKey(), cell, fresh);
                    return true;
                }
            }
            return count.get() < bound;
        }

        /**
         * A victim among the next {@value #SAMPLE} entries: a fresh one if any, else the least
         * recently used, skipping concurrency keys that hold permits; null if none qualifies. The sample is taken at the shard's sweeping
         * cursor, which goes round the map like a clock hand: always sampling from the start of
         * the map would empty its first bins and make every later iteration crawl over them.
         */
        private Map.Entry<String, S> sampleVictim(long now) {
            if (!sweeping.compareAndSet(false, true)) {
                // Another thread holds the cursor: sample near a random point of our own.
                Iterator<Map.Entry<String, S>> it = map.entrySet().iterator();
                int skip = ThreadLocalRandom.current().nextInt(SAMPLE * 4);
                for (int i = 0; i < skip && it.hasNext(); i++) {
                    it.next();
                }
                return leastRecentlyUsed(it.hasNext() ? it : map.entrySet().iterator(), now);
            }
            try {
                if (cursor == null || !cursor.hasNext()) {
                    cursor = map.entrySet().iterator();
                }
                return leastRecentlyUsed(cursor, now);
            } finally {
                sweeping.set(false);
            }
        }

        /**
         * The first fresh entry of the sample (a lossless drop), else its least recently used. The
         * sample stops early at an entry no more recent than the previous victim: it is as good a
         * choice, and a flood of new keys then costs one or two entries per eviction, not
         * {@value #SAMPLE}.
         */
        private Map.Entry<String, S> leastRecentlyUsed(Iterator<Map.Entry<String, S>> it, long now) {
            Map.Entry<String, S> victim = null;
            int floor = victimStamp;
            for (int i = 0; i < SAMPLE && it.hasNext(); i++) {
                Map.Entry<String, S> e = it.next();
                S cell = e.getValue();
                if (algorithm.isFresh(cell, now)) {
                    return e;
                }
                if (algorithm.concurrency()) {
                    continue;
                }
                if (victim == null || cell.touched() - victim.getValue().touched() < 0) {
                    victim = e;
                    if (cell.touched() - floor <= 0) {
                        break;
                    }
                }
            }
            if (victim != null) {
                victimStamp = victim.getValue().touched();
            }
            return victim;
        }

        private void drop(String key, S cell, boolean lossless) {
            if (map.remove(key, cell)) {
                count.decrementAndGet();
                try {
                    listener.evicted(policy, key, lossless);
                } catch (RuntimeException ignored) {
                    // A listener must not break admission; see EvictionListener.
                }
            }
        }

        private Map.Entry<String, S> next() {
            for (int pass = 0; pass < 2; pass++) {
                if (cursor == null || !cursor.hasNext()) {
                    cursor = map.entrySet().iterator();
                }
                if (cursor.hasNext()) {
                    return cursor.next();
                }
            }
            return null;
        }
    }

    /**
     * Builds a {@link ShardedRegistry}. Not thread-safe; the registry it builds is.
     */
    public static final class Builder {
        private Clock clock = Clock.system();
        private int shards = defaultShards();
        private int maxKeys = 1_000_000;
        private EvictionListener listener = EvictionListener.NONE;

        private Builder() {
        }

        private static int defaultShards() {
            int n = Math.max(16, Runtime.getRuntime().availableProcessors() * 4);
            return Integer.highestOneBit(n - 1) << 1;
        }

        /**
         * Sets the clock. Default: {@link Clock#system()}.
         *
         * @param clock the source of time
         * @return this builder
         * @throws NullPointerException if {@code clock} is null
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Sets the number of shards per policy. Default: four per processor, at least 16, rounded
         * up to a power of two.
         *
         * @param shards a power of two between 1 and 65536
         * @return this builder
         * @throws IllegalArgumentException if {@code shards} is not a power of two in range
         */
        public Builder shards(int shards) {
            if (shards < 1 || shards > 65536 || Integer.bitCount(shards) != 1) {
                throw new IllegalArgumentException(
                        "shards must be a power of two between 1 and 65536 but was " + shards);
            }
            this.shards = shards;
            return this;
        }

        /**
         * Sets the hard bound on keys per policy. Default: 1,000,000.
         *
         * @param maxKeys at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code maxKeys < 1}
         */
        public Builder maxKeys(int maxKeys) {
            if (maxKeys < 1) {
                throw new IllegalArgumentException("maxKeys must be >= 1 but was " + maxKeys);
            }
            this.maxKeys = maxKeys;
            return this;
        }

        /**
         * Sets who is told of dropped keys. Default: nobody.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder listener(EvictionListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** @return a new registry */
        public ShardedRegistry build() {
            return new ShardedRegistry(this);
        }
    }
}
