package io.github.sluice.store;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.algorithm.Concurrency;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-memory {@link Store}: per policy, a map from key to {@link Cell}, bounded in keys and in
 * bytes, that a flood of new keys cannot use to make a chosen key forget its state.
 *
 * <h2>Lookups and new keys</h2>
 * <ul>
 *   <li><b>An existing key</b> is one {@link ConcurrentHashMap#get}: no lock, no allocation.
 *   <li><b>A new key</b> is decided first, on a fresh cell that no other thread can see: every new
 *       key is decided by its own algorithm, as if the registry were empty. Only a cell that then
 *       holds state is kept (a peek, or a request no fresh state admits, leaves nothing behind), and
 *       it is kept under the lock of one shard (see below). If another thread kept the same key
 *       meanwhile, the request is decided again on that thread's cell.
 *   <li><b>Shards</b> partition the bookkeeping of kept keys, not the lookups: each keeps a dense
 *       record of its keys (for sampling and sweeping) under its own lock, taken only when a key is
 *       added or dropped. A new key goes to a shard chosen at random for that insertion, so no
 *       client can steer keys into the shard of another key, and a shard may hold more than its
 *       share while the registry is below its bound (a full shard passes the key to the next).
 * </ul>
 *
 * <h2>Idle eviction is lossless</h2>
 * A cell equal to a fresh one (a full bucket, a passed window, no permits held) is retired
 * atomically (a compare-and-set from the very state found fresh, so no acquisition can slip in
 * between) and dropped; the next request for its key creates a fresh cell, so no decision changes.
 * That holds for a request whose clock reading is older than the sweep too (it read the clock,
 * then lost the processor while its key went idle and was dropped): the registry remembers the
 * latest sweep of each group of keys, and such a request reads the clock again, so it is decided
 * at an instant where the dropped cell was fresh, never on a new cell at a reading the old one
 * had refused.
 * Each new key below the bound examines {@value #SWEEP_ON_MISS} entries of its shard at a cursor
 * that goes round the shard, and {@link #sweep(int)} lets a scheduler sweep more. A request that
 * finds its cell retired looks the key up again.
 *
 * <h2>The bound, and who is dropped at it</h2>
 * Each policy holds at most {@link #maxKeys(String) its bound} of keys, counted over the whole
 * policy: shards have no bound of their own. At the bound, a new key takes the place of a key of
 * its shard, chosen among {@value #SAMPLE} entries sampled at random positions (a random number
 * generator, not the keys' hash codes, picks them; a shard of at most {@value #SAMPLE} entries is
 * examined whole), and up to {@value #MAX_SAMPLE} while every entry sampled has used its whole
 * quota:
 * <ol>
 *   <li>a fresh entry, dropped without loss, if the sample has one;
 *   <li>otherwise the entry closest to fresh: the one whose state holds the fewest consumed
 *       permits ({@code limit - remaining} of a peek). Forgetting a key gives its client back
 *       exactly that many permits, so this choice gives the least away;
 *   <li>among equally consumed entries, the one kept most recently (to about a second, at random
 *       among those kept within the same second): incumbents outlast newcomers.
 * </ol>
 * A dropped key's history is forgotten (its next request starts fresh) and the
 * {@link EvictionListener} is told ({@code lossless = false}). Recency of use plays no part: a
 * client cannot protect or expose a key by touching it.
 *
 * <p><b>What this costs an attacker.</b> To make a key K that has used up its quota come back
 * fresh, a flood must fill the policy with keys at least as consumed as K (a request per permit
 * K consumed, for each key of the bound), and must have done so <em>before</em> K was kept, since
 * among equals the newest goes first: at least {@code bound * consumed(K)} requests, and only
 * against a K that was not already kept. With least-recently-used eviction by shard, about one
 * shard's worth of one-request keys aimed at K's shard sufficed (see {@code TargetedEvictionTest}
 * for the figures). A key of a token bucket or a leaky bucket recovers with time; once its
 * consumption is below the flood's, it is the cheaper to forget, and its client regains only what
 * it had not yet recovered.
 *
 * <h2>New keys are always decided by their algorithm</h2>
 * A rate-limit key is always decided on its own state, however many keys arrive at once; the
 * registry then always finds a key to drop for it, since every kept entry is droppable and dropping
 * happens only under a shard's lock. (If, against that, no shard could take it, the decision
 * stands and the new key's state is not kept, as if dropped at once; the listener is told.)
 *
 * <h2>Concurrency limits</h2>
 * A key that holds permits, or has requests waiting for one, is never dropped, so a release always
 * finds the permits it gives back. The bound counts the whole policy, so permit holders crowding
 * one shard never refuse a new key while the policy is below its bound. At the bound, a new key
 * takes the place of a key without permits, looked for among the next {@value #CONCURRENCY_SCAN}
 * entries of each shard in turn; if none is found, the new key is <em>denied</em> (retry after one
 * second): the gate never opens silently. This can refuse a key while a key without permits exists
 * only if the {@value #CONCURRENCY_SCAN} entries examined in every shard all hold permits: with a
 * fraction {@code p} of the policy's keys holding permits, a chance of about
 * {@code p^(64 * shards)} (below 10^-40 for {@code p = 0.9} and 16 shards; keys holding permits
 * are the requests in flight, usually a small part of the bound). An algorithm with a bounded wait ({@code Concurrency.maxWait}) makes
 * {@link KeySpace#acquire} wait for a release (see
 * {@link Algorithm#acquireOrWait(Cell, long, Clock, long, MutableDecision)}).
 *
 * <h2>Memory</h2>
 * The bound holds bytes as well as keys. A policy's worst case per key,
 * {@link #bytesPerKey(Algorithm)}, is its {@linkplain Algorithm#bytesPerKey() state}, plus the
 * registry's entry ({@link #ENTRY_BYTES 74 bytes} at most), plus a key of
 * {@link Builder#maxKeyLength(int) maxKeyLength} characters stored as UTF-16 (about
 * {@code 40 + 2 * length} bytes; callers bound keys to it, as the enforcer does with its
 * {@code max-key-length}); figures for a 64-bit JVM with compressed references, for live data
 * (the collector's headroom, and its waste of 1 to 2% with cells of several kilobytes, come on
 * top). The sum over the policies of bound times worst case must fit the
 * {@link Builder#memoryBudget(long) memory budget} (default 268,435,456 bytes,
 * 256 MiB: a quarter of a 1 GB heap). With
 * an explicit {@link Builder#maxKeys(int) maxKeys}, binding a policy that does not fit fails with a
 * message naming the policy, its bytes per key and the budget. Without one, each policy's bound is
 * derived: an equal share of the budget among the policies bound so far, divided by the policy's
 * bytes per key, at most {@value #DEFAULT_MAX_KEYS}; binding a policy lowers the bounds of those
 * bound before it, which then drop keys as new ones arrive until they are within.
 *
 * <p>Thread-safe.
 */
public final class ShardedRegistry implements Store {

    /** The largest bound a policy gets when {@link Builder#maxKeys(int)} is not set. */
    public static final int DEFAULT_MAX_KEYS = 1_000_000;
    /** The default memory budget: 256 MiB, a quarter of a 1 GB heap. */
    public static final long DEFAULT_MEMORY_BUDGET = 256L << 20;
    /**
     * The default longest key, in characters: {@code Keys.DEFAULT_MAX_LENGTH}, the bound the
     * enforcer applies to keys by default (it replaces longer keys by a short digest).
     */
    public static final int DEFAULT_MAX_KEY_LENGTH = 128;
    /**
     * The most heap the registry itself retains per key of its bound, in bytes, besides the key and
     * its state: a map node of up to 48 bytes (a tree node, when many keys share a
     * {@code String.hashCode}; 32 otherwise) and up to 6 bytes of its tree bin; up to 16 bytes of
     * the map's table (at most 2.67 four-byte slots per key, and both tables while it doubles); 4
     * bytes of the shard's record (the key's reference).
     */
    public static final long ENTRY_BYTES = 48 + 6 + 16 + 4;

    /** Entries sampled when choosing whom to drop at the bound (Redis samples 5 too). */
    static final int SAMPLE = 5;
    /** Entries sampled at most, while every entry sampled has used its whole quota. */
    static final int MAX_SAMPLE = 8 * SAMPLE;
    /** Entries examined for idle eviction when a key is added below the bound. */
    private static final int SWEEP_ON_MISS = 2;
    /** Groups of keys whose last sweep is remembered, per policy (8 bytes each). */
    private static final int RETIRED_GROUPS = 256;
    /** Entries of each shard examined for a key without permits, for a concurrency limit. */
    private static final int CONCURRENCY_SCAN = 64;
    /** Retry-after reported when a concurrency key cannot be kept because every key holds permits. */
    private static final long FULL_RETRY_NANOS = 1_000_000_000L;
    /**
     * The {@code now} given to an algorithm that said it does not read it
     * ({@link Algorithm#readsClockToDecide()}, {@link Algorithm#readsClockAtRelease()}): no reading
     * was taken.
     */
    private static final long NOT_READ = 0;

    private final Clock clock;
    private final int shardCount;
    private final int maxKeys;
    private final long memoryBudget;
    private final int maxKeyLength;
    private final EvictionListener listener;
    private final ConcurrentHashMap<String, Space<?>> spaces = new ConcurrentHashMap<>();
    /** The changed policies whose previous generation may still be retained, for {@link #sweep}. */
    private final ConcurrentHashMap<String, CarriedKeySpace<?, ?>> carrying = new ConcurrentHashMap<>();
    /** The policies in the order they were bound, for the memory budget; guarded by itself. */
    private final List<Space<?>> budgeted = new ArrayList<>();

    private ShardedRegistry(Builder b) {
        this.clock = b.clock;
        this.shardCount = b.shards;
        this.maxKeys = b.maxKeys;
        this.memoryBudget = b.memoryBudget;
        this.maxKeyLength = b.maxKeyLength;
        this.listener = b.listener;
    }

    /** @return a builder with the defaults documented on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Always {@code true}: every decision is a few atomic operations on this JVM's memory. (A
     * concurrency limit with a {@code maxWait} waits in {@link #acquireAll} for a release; the
     * enforcer tells that apart, see {@code Enforcer.decidesAtOnce()}.)
     */
    @Override
    public boolean decidesAtOnce() {
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Decided on the calling thread, as {@link #acquireAll} decides, unless a claim's policy is
     * a concurrency limit with a {@code maxWait}: such a chain is decided in turn
     * ({@link Store#acquireInTurn}), its waiting claim polled rather than waited for (see
     * {@link KeySpace#acquireAsync} of this store's key spaces).
     */
    @Override
    public java.util.concurrent.CompletionStage<Boolean> acquireAllAsync(Claim claims) {
        for (Claim c = Objects.requireNonNull(claims, "claims"); c != null; c = c.next()) {
            if (c.space().algorithm() instanceof Concurrency k && k.maxWaitNanos() > 0) {
                return Store.acquireInTurn(claims);
            }
        }
        return Decided.of(acquireAll(claims));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here a claim of this registry's key spaces is decided at the reading its request took
     * already ({@link Claim#nanos(Clock)}, on this registry's clock), if any, instead of reading
     * the clock again: the enforcer's override cache reads the clock before the store decides,
     * and the decision is taken at that same instant. Every decision records the reading it was
     * taken at ({@link MutableDecision#nanos()}).
     */
    @Override
    public boolean acquireAll(Claim claims) {
        for (Claim c = Objects.requireNonNull(claims, "claims"); c != null; c = c.next()) {
            KeySpace space = c.space();
            boolean admitted = space instanceof Space<?> own && own.clock == clock
                    ? own.decide(c.key(), c.partition(), c.cost(), c.decision(), true, c.nanos(clock))
                    : space.acquire(c.key(), c.partition(), c.cost(), c.decision());
            if (!admitted) {
                return Chains.refuse(claims, c);
            }
        }
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>This store refuses a rebinding: a name stays bound to the first algorithm given for it,
     * because its cells are shaped by that algorithm. A changed policy needs a new name. Binding a
     * new name is checked against the memory budget (see the class documentation).
     *
     * @throws IllegalArgumentException if the name is already bound to a different algorithm, or
     *     if the policy's worst case does not fit the memory budget
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

    /**
     * {@inheritDoc}
     *
     * <p>Here a changed policy gets a new key space, which this store binds to the name in place of
     * {@code current}; {@code current} keeps deciding nothing new but still takes the releases and
     * refunds of the admissions it made. What each key keeps:
     * <ul>
     *   <li>a {@link Concurrency} limit decides on the very cells of {@code current}: the permits in
     *       flight carry over whatever the strategy, and the old policy's requests release them
     *       where the new policy counts them;
     *   <li>a rate limit, unless the strategy is {@link Inheritance#RESET}, is carried over lazily:
     *       on a key's first request to the new key space (or its first
     *       {@linkplain KeySpace#inspect read}, which keeps nothing), the key's old cell is peeked at
     *       that moment under the old algorithm (the old parameters advance it to now), and a fresh
     *       cell of the new algorithm is charged with the permits the strategy carries (see
     *       {@link Inheritance}), then decides the request. The change itself costs one map
     *       insertion however many keys there are; each key pays one lookup and one peek of its
     *       old cell, once. One previous generation is retained, for twice the old algorithm's
     *       {@linkplain Algorithm#windowNanos() window} plus a second after the change (by then an
     *       old cell has its whole quota back, for the algorithms in this library and requests
     *       of at most the policy's limit, and carries nothing);
     *       a further change within that time first carries every key still held only by the
     *       previous generation into the current one, as a request of cost zero would (one peek per
     *       such key, at the change), so a key idle across several changes inherits through each
     *       of them. {@link KeySpace#reset} forgets a key in both generations;
     *   <li>an adaptive concurrency limit, or a change between a rate limit and a concurrency
     *       limit, starts every key fresh; the old policy's permits are released to the old cells.
     * </ul>
     * While old cells are consulted, both the old and the new policy's keys are in memory: up to
     * twice that policy's share of the memory budget for that time, however many changes come.
     *
     * @throws IllegalArgumentException if {@code current} is not a key space of this store, or the
     *     new policy's worst case does not fit the memory budget (the binding then stays)
     */
    @Override
    public KeySpace rebind(KeySpace current, Algorithm<?> algorithm, Inheritance inheritance) {
        Objects.requireNonNull(current, "current");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(inheritance, "inheritance");
        Space<?> old = current instanceof CarriedKeySpace<?, ?> c ? c.target : current instanceof Space<?> sp ? sp : null;
        if (old == null || old.clock != clock) {
            throw new IllegalArgumentException("current must be a key space of this store but was " + current);
        }
        if (old.algorithm.equals(algorithm)) {
            return current;
        }
        boolean shared = old.algorithm instanceof Concurrency && algorithm instanceof Concurrency;
        Space<?> next;
        synchronized (budgeted) {
            // The name may be bound to a later space than current (a change whose enforcer then
            // failed on another policy): that one gives its place in the budget.
            Space<?> bound = spaces.get(old.name);
            int at = bound == null ? -1 : budgeted.indexOf(bound);
            if (at >= 0) {
                budgeted.remove(at);
            }
            try {
                next = shared ? sharing(old, algorithm) : newSpace(old.name, algorithm);
            } catch (RuntimeException e) {
                if (at >= 0) {
                    budgeted.add(at, bound);
                }
                throw e;
            }
            if (shared) {
                budgeted.add(Math.max(at, 0), next);
            }
        }
        spaces.put(old.name, next);
        if (shared || inheritance == Inheritance.RESET || old.algorithm.concurrency() || algorithm.concurrency()) {
            carrying.remove(old.name);
            return next;
        }
        long now = clock.nanos();
        if (current instanceof CarriedKeySpace<?, ?> c) {
            // Two generations at most: the one before current hands its keys on to current now.
            c.fold(now);
        }
        CarriedKeySpace<?, ?> carried = carried(next, old, inheritance, now);
        carrying.put(old.name, carried);
        return carried;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static CarriedKeySpace<?, ?> carried(Space<?> next, Space<?> old, Inheritance inheritance, long now) {
        return new CarriedKeySpace(next, old, inheritance, now);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Space<?> sharing(Space<?> old, Algorithm<?> algorithm) {
        return new Space(old, algorithm);
    }

    private <S extends Cell> Space<S> newSpace(String name, Algorithm<S> algorithm) {
        long perKey = bytesPerKey(algorithm);
        synchronized (budgeted) {
            if (maxKeys > 0) {
                long committed = 0;
                for (Space<?> s : budgeted) {
                    committed = saturatedAdd(committed, saturatedMultiply(maxKeys, s.perKey));
                }
                long needed = saturatedMultiply(maxKeys, perKey);
                if (needed > memoryBudget - committed) {
                    throw new IllegalArgumentException(budgetMessage(name, algorithm, perKey)
                            + "; " + Bytes.count(maxKeys) + " keys (maxKeys) need up to "
                            + Bytes.describe(needed) + ", more than the memory budget of "
                            + Bytes.describe(memoryBudget)
                            + (budgeted.isEmpty() ? "" : " less the " + Bytes.describe(committed)
                                    + " of the " + (budgeted.size() == 1 ? "policy"
                                            : budgeted.size() + " policies") + " bound before it")
                            + "; lower maxKeys or raise memoryBudget");
                }
                Space<S> space = new Space<>(name, algorithm, perKey, maxKeys, this);
                budgeted.add(space);
                return space;
            }
            int policies = budgeted.size() + 1;
            int bound = derivedBound(policies, perKey, name, algorithm);
            int[] lowered = new int[budgeted.size()];
            for (int i = 0; i < lowered.length; i++) {
                Space<?> s = budgeted.get(i);
                lowered[i] = derivedBound(policies, s.perKey, s.name, s.algorithm);
            }
            Space<S> space = new Space<>(name, algorithm, perKey, bound, this);
            for (int i = 0; i < lowered.length; i++) {
                budgeted.get(i).bound = lowered[i];
            }
            budgeted.add(space);
            return space;
        }
    }

    /** The bound of a policy without an explicit maxKeys: its equal share of the budget. */
    private int derivedBound(int policies, long perKey, String name, Algorithm<?> algorithm) {
        long share = memoryBudget / policies;
        long keys = Math.min(DEFAULT_MAX_KEYS, share / perKey);
        if (keys < 1) {
            throw new IllegalArgumentException(budgetMessage(name, algorithm, perKey) + "; "
                    + (policies == 1 ? "the memory budget of " + Bytes.describe(memoryBudget)
                            : "its share of the memory budget of " + Bytes.describe(memoryBudget)
                                    + ", one of " + policies + " equal shares, is "
                                    + Bytes.describe(share) + " and")
                    + " holds no such key; raise memoryBudget");
        }
        return (int) keys;
    }

    private String budgetMessage(String name, Algorithm<?> algorithm, long perKey) {
        return "policy '" + name + "' (" + algorithm.kind() + ") takes up to "
                + Bytes.describe(perKey) + " per key (" + Bytes.count(algorithm.bytesPerKey())
                + " for its state, " + ENTRY_BYTES + " for the registry's entry, "
                + Bytes.count(keyBytes(maxKeyLength)) + " for a key of up to "
                + Bytes.count(maxKeyLength) + " characters)";
    }

    /**
     * Returns the most heap one key of {@code algorithm} can retain in this registry: the
     * algorithm's {@link Algorithm#bytesPerKey() state}, the registry's entry
     * ({@link #ENTRY_BYTES}) and a key of {@link #maxKeyLength()} characters.
     *
     * @param algorithm the algorithm
     * @return bytes
     * @throws NullPointerException if {@code algorithm} is null
     */
    public long bytesPerKey(Algorithm<?> algorithm) {
        return saturatedAdd(algorithm.bytesPerKey() + ENTRY_BYTES, keyBytes(maxKeyLength));
    }

    /**
     * The heap of a key string of {@code length} characters, at worst: the {@code String} (24
     * bytes) and its array of UTF-16 code units (a 16-byte header, 2 bytes a character, aligned).
     */
    static long keyBytes(int length) {
        return 24 + ((16L + 2L * length + 7) & ~7L);
    }

    private static long saturatedMultiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return high != 0 || low < 0 ? Long.MAX_VALUE : low;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
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
            dropped += space.sweep(now, entriesPerShard);
        }
        // Previous generations past their horizon are let go even if their policy sees no request.
        carrying.values().removeIf(c -> c.previous(now) == null);
        return dropped;
    }

    /**
     * The keys a policy's previous generation still holds after a change (see {@link #rebind}): 0
     * once it was let go. For tests of the memory a change retains.
     */
    long previousKeys(String policy) {
        CarriedKeySpace<?, ?> c = carrying.get(policy);
        return c == null ? 0 : c.previousSize();
    }

    /** @return the number of shards per policy (fewer for a policy bounded below it) */
    public int shards() {
        return shardCount;
    }

    /**
     * @return the bound on keys set for every policy, or {@code 0} if each policy's bound is
     *     derived from the memory budget (see {@link #maxKeys(String)})
     */
    public int maxKeys() {
        return maxKeys;
    }

    /**
     * Returns the bound on keys of one policy: {@link Builder#maxKeys(int)} if set, otherwise its
     * share of the memory budget (which binding further policies lowers).
     *
     * @param policy the policy's name
     * @return the bound, {@code >= 1}
     * @throws IllegalArgumentException if no policy of that name is bound
     */
    public int maxKeys(String policy) {
        Space<?> space = spaces.get(Objects.requireNonNull(policy, "policy"));
        if (space == null) {
            throw new IllegalArgumentException("policy must be bound to this registry but was '"
                    + policy + "' (bound: " + spaces.keySet() + ")");
        }
        return space.bound;
    }

    /** @return the memory budget, in bytes, for all policies together */
    public long memoryBudget() {
        return memoryBudget;
    }

    /** @return the longest key, in characters, that the memory budget assumes */
    public int maxKeyLength() {
        return maxKeyLength;
    }

    /** @return the clock */
    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "ShardedRegistry{shards=" + shardCount + ", maxKeys="
                + (maxKeys > 0 ? Integer.toString(maxKeys) : "derived") + ", memoryBudget="
                + memoryBudget + ", maxKeyLength=" + maxKeyLength + ", policies=" + spaces.keySet()
                + '}';
    }

    static final class Space<S extends Cell> implements KeySpace {
        final String name;
        final Algorithm<S> algorithm;
        final Clock clock;
        final EvictionListener listener;
        /** Every key of the policy; lookups go here and nowhere else. */
        final ConcurrentHashMap<String, S> map;
        final Shard<S>[] shards;
        final int mask;
        /** Worst-case bytes per key, for the memory budget. */
        final long perKey;
        /** Keys kept, plus places reserved by insertions in progress (each under a shard's lock). */
        final AtomicInteger count;
        /** The bound on {@link #count}; lowered when the budget is shared with a new policy. */
        volatile int bound;
        /**
         * Until this clock reading, fresh cells are not dropped as idle: while the policy's
         * previous generation is retained ({@link CarriedKeySpace}), a key missing here would
         * inherit its old state again, so a carried key keeps its cell until the old one cannot
         * hand anything on.
         */
        volatile long keepFreshUntil = Long.MIN_VALUE;
        /**
         * The latest clock reading at which a key of each group (its hash modulo
         * {@value #RETIRED_GROUPS}) was dropped as fresh by a sweep: a request whose reading is
         * older re-reads the clock, see {@link #fence}.
         */
        private final AtomicLongArray retiredAt;
        /** {@link Algorithm#readsClockToDecide()}: false spares a clock reading per decision on a kept key. */
        private final boolean clockToDecide;
        /** {@link Algorithm#readsClockAtRelease()}: false spares a clock reading per release. */
        private final boolean clockAtRelease;
        /** Whether admissions hold permits that a release gives back: their cell is handed to the decision. */
        private final boolean holds;
        /**
         * The key this space kept first, or last kept again after its cell was dropped, with its
         * cell: a key that every request resolves to the same string (a global or constant key)
         * finds its cell here by identity, without the map. Only a new cell replaces it, so that
         * a decision allocates nothing. The cell is the map's while it is not retired (a cell
         * leaves the map only after it is retired, and a key gets a new cell only after its old
         * one left), and a decision on a retired cell is refused by the algorithm and made again
         * on the map's cell, so a stale slot costs a retry, never a wrong decision.
         */
        private volatile Hot<S> hot;

        @SuppressWarnings("unchecked")
        Space(String name, Algorithm<S> algorithm, long perKey, int bound, ShardedRegistry registry) {
            this.name = name;
            this.algorithm = algorithm;
            this.clockToDecide = algorithm.readsClockToDecide();
            this.clockAtRelease = algorithm.readsClockAtRelease();
            this.holds = algorithm.concurrency();
            this.clock = registry.clock;
            this.listener = registry.listener;
            this.perKey = perKey;
            this.bound = bound;
            this.map = new ConcurrentHashMap<>();
            this.count = new AtomicInteger();
            int n = Math.min(registry.shardCount, Integer.highestOneBit(bound));
            this.shards = (Shard<S>[]) new Shard<?>[n];
            for (int i = 0; i < n; i++) {
                shards[i] = new Shard<>(this);
            }
            this.mask = n - 1;
            this.retiredAt = new AtomicLongArray(RETIRED_GROUPS);
            for (int i = 0; i < RETIRED_GROUPS; i++) {
                retiredAt.set(i, Long.MIN_VALUE);
            }
        }

        private static int group(String key) {
            int h = key.hashCode();
            return (h ^ (h >>> 16)) & (RETIRED_GROUPS - 1);
        }

        /** Records that {@code key} is about to leave the map as fresh at {@code now}; under its shard's lock. */
        void retiring(String key, long now) {
            int g = group(key);
            long seen;
            while ((seen = retiredAt.get(g)) < now && !retiredAt.compareAndSet(g, seen, now)) {
                // a sweep of another shard recorded a key of the same group: keep the latest
            }
        }

        /**
         * Idle eviction is lossless only for readings taken after it: a request that read the clock,
         * then lost the processor while its key went idle and was swept, would otherwise decide
         * on a new cell at a reading the dropped cell had refused (a window it had filled). So a
         * request whose reading is older than the last sweep of its key's group reads the clock
         * again, which gives an instant no earlier than that sweep's (the group's record was
         * written before the key left the map, and read after the lookup): the dropped cell was
         * fresh then, so the new cell decides as it would have. Called after every lookup; one
         * array read on the common path.
         */
        long fence(String key, long now) {
            long swept = retiredAt.get(group(key));
            return now >= swept ? now : Math.max(now, clock.nanos());
        }

        /**
         * A space deciding by {@code algorithm} on the very cells of {@code shared}: a changed
         * concurrency limit keeps the permits in flight, which the old policy's requests give
         * back to the same cells ({@link #rebind}).
         */
        Space(Space<S> shared, Algorithm<S> algorithm) {
            this.name = shared.name;
            this.algorithm = algorithm;
            this.clockToDecide = algorithm.readsClockToDecide();
            this.clockAtRelease = algorithm.readsClockAtRelease();
            this.holds = algorithm.concurrency();
            this.clock = shared.clock;
            this.listener = shared.listener;
            this.perKey = shared.perKey;
            this.bound = shared.bound;
            this.map = shared.map;
            this.count = shared.count;
            this.shards = shared.shards;
            this.mask = shared.mask;
            // The shards record their sweeps in the space that created them: the same table.
            this.retiredAt = shared.retiredAt;
            this.hot = shared.hot;
        }

        /**
         * The structure that holds {@code key} for lookups: the policy's one map, whatever the key.
         * (Shards keep only the bookkeeping of new keys; see the class documentation.)
         */
        private Space<S> shard(String key) {
            return this;
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
            return acquire(key, Algorithm.NO_PARTITION, cost, out);
        }

        @Override
        public boolean acquire(String key, int partition, long cost, MutableDecision out) {
            return decide(key, partition, cost, out, true, MutableDecision.NO_READING);
        }

        /** {@inheritDoc} A concurrency limit's {@code maxWait} is not waited. */
        @Override
        public boolean acquireNoWait(String key, int partition, long cost, MutableDecision out) {
            return decide(key, partition, cost, out, false, MutableDecision.NO_READING);
        }

        /**
         * {@inheritDoc}
         *
         * <p>Decided on the calling thread ({@link Decided}), except a concurrency limit with a
         * {@code maxWait} that finds no free permit: it is not waited for on this thread, but
         * polled (after 1 ms, then doubling up to 20 ms, until {@code maxWait} has passed on this
         * registry's clock), and the stage completes on the thread of the poll that decides
         * ({@link java.util.concurrent.ForkJoinPool#commonPool()}).
         */
        @Override
        public java.util.concurrent.CompletionStage<Boolean> acquireAsync(String key, int partition, long cost,
                MutableDecision out) {
            long start = clock.nanos();
            boolean admitted = decide(key, partition, cost, out, false, start);
            if (admitted || !(algorithm instanceof Concurrency c) || c.maxWaitNanos() == 0
                    || out.retryAfterNanos() == io.github.sluice.core.Decision.NEVER) {
                return Decided.of(admitted);
            }
            return BoundedWait.poll(this, key, partition, cost, out, start + c.maxWaitNanos(), clock);
        }

        /**
         * Decides, and records the reading decided at in {@code out} ({@link MutableDecision#at}) when
         * one was taken. {@code wait}: whether a concurrency limit's {@code maxWait} may be waited on
         * this thread; {@code given}: a reading of this registry's clock the request took already (see
         * {@link Claim#nanos}), or {@link MutableDecision#NO_READING} to read the clock if the
         * algorithm needs it.
         *
         * <p>An algorithm that decides without the time (a concurrency limit without a wait) is
         * spared the reading on a kept key, and its decision records none; a new key's cell, and its
         * keeping, still need it. The common case, a kept key decided at once, stays small enough to
         * be inlined into the caller; a new key and a retired cell go to decideAgain.
         */
        boolean decide(String key, int partition, long cost, MutableDecision out, boolean wait, long given) {
            boolean read = given != MutableDecision.NO_READING;
            long now = read ? given : clockToDecide ? clock.nanos() : NOT_READ;
            read |= clockToDecide;
            Hot<S> h = hot;
            S cell = h != null && h.key == key ? h.cell : map.get(key);
            if (cell == null) {
                return decideAgain(key, partition, cost, out, wait, now, read, null);
            }
            if (read) {
                now = fence(key, now);
            }
            int result = wait ? algorithm.acquireOrWait(cell, now, clock, cost, partition, out)
                    : algorithm.acquire(cell, now, cost, out);
            if (result == Algorithm.RETIRED) {
                return decideAgain(key, partition, cost, out, wait, now, read, cell);
            }
            if (read) {
                stamp(out, now);
            }
            if (result == Algorithm.ADMITTED) {
                held(out, cell);
                return true;
            }
            return false;
        }

        /**
         * Decides for a key that had no cell at the lookup ({@code retired} null), or whose cell
         * was found retired: on a new cell, kept if it holds state, or on the cell another thread
         * kept meanwhile.
         *
         * @param now the reading {@link #decide} took, fenced if the key had a cell; {@link #NOT_READ}
         *     if the algorithm does not read it ({@code read} false)
         */
        private boolean decideAgain(String key, int partition, long cost, MutableDecision out, boolean wait, long now,
                boolean read, S retired) {
            S cell = retired;
            if (cell == null) {
                now = fence(key, read ? now : clock.nanos());
                read = true;
            }
            while (true) {
                if (cell != null) {
                    // Dropped under a shard's lock, which is about to take it out of the map too;
                    // helping is harmless, since remove(key, cell) cannot take out a newer cell. It
                    // was retired after the sweep read the clock, so a reading taken now is no
                    // earlier than the sweep's (the group's record may not be written yet).
                    map.remove(key, cell);
                    cell = map.get(key);
                    now = read ? Math.max(now, clock.nanos()) : clock.nanos();
                    read = true;
                }
                if (cell == null) {
                    // Decide on a cell nobody else sees yet, then keep it only if it holds state:
                    // the decision is the algorithm's own, whatever happens to the registry.
                    S fresh = algorithm.newCell(now);
                    int result = wait ? algorithm.acquireOrWait(fresh, now, clock, cost, partition, out)
                            : algorithm.acquire(fresh, now, cost, out);
                    stamp(out, now);
                    if (result != Algorithm.ADMITTED || algorithm.isFresh(fresh, now)) {
                        return result == Algorithm.ADMITTED;
                    }
                    cell = keep(key, fresh, now);
                    if (cell == fresh) {
                        held(out, cell);
                        return true;
                    }
                    if (cell == null) {
                        return notKept(key, out, now);
                    }
                    // Another thread kept this key first: decide again, on its cell.
                }
                int result = wait ? algorithm.acquireOrWait(cell, now, clock, cost, partition, out)
                        : algorithm.acquire(cell, now, cost, out);
                if (result != Algorithm.RETIRED) {
                    if (read) {
                        stamp(out, now);
                    }
                    if (result == Algorithm.ADMITTED) {
                        held(out, cell);
                        return true;
                    }
                    return false;
                }
            }
        }

        /**
         * Hands the cell that now holds an admission's permits to its decision, when it keeps one
         * ({@link CellHolder}), so that the release goes back to it without a lookup. A rate
         * limit's admission holds nothing while the request runs: nothing to hand.
         */
        private void held(MutableDecision out, S cell) {
            if (holds && out instanceof CellHolder holder) {
                holder.holdCell(cell);
            }
        }

        /** Records the reading a decision was taken at, for what follows it on the same request. */
        private static void stamp(MutableDecision out, long now) {
            if (out != null) {
                out.at(now);
            }
        }

        /** A new key's state that no shard could keep. */
        private boolean notKept(String key, MutableDecision out, long now) {
            if (algorithm.concurrency()) {
                // Its permit would be counted nowhere: refuse rather than open the gate.
                out.deny(algorithm.limit(), 0, FULL_RETRY_NANOS, FULL_RETRY_NANOS).at(now);
                return false;
            }
            Dropped.tell(Dropped.add(null, listener, key, false), listener, name);
            return true;
        }

        /**
         * Keeps {@code cell}, which has taken its first permits, for {@code key}: in a shard chosen
         * at random, or the next ones. Returns {@code cell}, the cell another thread kept for the
         * key first, or null if no shard could take it.
         */
        S keep(String key, S cell, long now) {
            Dropped dropped = null;
            try {
                int start = ThreadLocalRandom.current().nextInt() & mask;
                // Two rounds: places freed by other threads during the first are found in the second.
                for (int i = 0; i < 2 * shards.length; i++) {
                    Shard<S> shard = shards[(start + i) & mask];
                    if (i >= shards.length) {
                        shard.lock.lock();
                    } else if (!shard.lock.tryLock()) {
                        // Busy (another new key, a sweep): any shard may keep a new key, so the
                        // first round waits for none, which spares an event loop the wait; the
                        // second round takes this one again if no other shard had room.
                        continue;
                    }
                    try {
                        S kept = map.get(key);
                        if (kept != null) {
                            return kept;
                        }
                        int limit = bound;
                        boolean reserved = false;
                        int c;
                        while ((c = count.get()) < limit && shard.size < shard.capacity(limit)) {
                            if (count.compareAndSet(c, c + 1)) {
                                reserved = true;
                                break;
                            }
                        }
                        if (reserved) {
                            for (int k = 0; k < SWEEP_ON_MISS; k++) {
                                String gone = shard.sweepOne(now);
                                if (gone != null) {
                                    count.decrementAndGet();
                                    dropped = Dropped.add(dropped, listener, gone, true);
                                }
                            }
                        } else if (c < limit) {
                            continue; // this shard is full while the policy is not: the next one
                        } else {
                            // At the bound: the new key takes the place of one this shard drops.
                            String gone = shard.evictOne(now);
                            if (gone == null) {
                                continue; // nothing here may be dropped: the next shard
                            }
                            dropped = Dropped.add(dropped, listener, gone, shard.lastLossless);
                            if (c > limit) {
                                // The bound was lowered: drop one more, until the policy is within.
                                gone = shard.evictOne(now);
                                if (gone != null) {
                                    count.decrementAndGet();
                                    dropped = Dropped.add(dropped, listener, gone, shard.lastLossless);
                                }
                            }
                        }
                        // The time it was kept, for the choice among equals at the bound.
                        cell.touch(now);
                        kept = map.putIfAbsent(key, cell);
                        if (kept != null) {
                            count.decrementAndGet();
                            return kept;
                        }
                        shard.append(key, limit);
                        Hot<S> h = hot;
                        if (h == null || h.key.equals(key)) {
                            hot = new Hot<>(key, cell); // with the new cell's own allocation, never on a kept key
                        }
                        return cell;
                    } finally {
                        shard.lock.unlock();
                    }
                }
                return null;
            } finally {
                Dropped.tell(dropped, listener, name);
            }
        }

        int sweep(long now, int entriesPerShard) {
            int total = 0;
            for (Shard<S> shard : shards) {
                Dropped dropped = null;
                shard.lock.lock();
                try {
                    for (int k = 0; k < entriesPerShard && shard.size > 0; k++) {
                        String gone = shard.sweepOne(now);
                        if (gone != null) {
                            count.decrementAndGet();
                            total++;
                            dropped = Dropped.add(dropped, listener, gone, true);
                        }
                    }
                } finally {
                    shard.lock.unlock();
                }
                Dropped.tell(dropped, listener, name);
            }
            return total;
        }

        @Override
        public void release(String key, long cost) {
            release(key, cost, MutableDecision.NO_RECEIPT, false);
        }

        /**
         * {@inheritDoc}
         *
         * <p>The cell found is the one the admission wrote: a key holding permits is never
         * dropped (see the class documentation), so a key without a cell matches no release.
         */
        @Override
        public long release(String key, long cost, long receipt, boolean dropped) {
            S cell = shard(key).map.get(key);
            if (cell != null) {
                return algorithm.release(cell, clockAtRelease ? clock.nanos() : NOT_READ, cost, receipt, dropped);
            }
            // No cell: nothing held here could match (a key holding permits is never dropped).
            return algorithm.concurrency() ? Math.max(0, cost) : 0;
        }

        /**
         * {@inheritDoc}
         *
         * <p>On the kept cell itself: it is the cell the admission's permits are in, also after
         * the policy's limit changed (a changed concurrency limit decides on the same cells; a
         * change to another algorithm leaves these cells to the requests they admitted), so the
         * release costs no lookup. A cell holding permits is never retired; a release on a
         * retired cell (a second release after its key went idle and was dropped) matches
         * nothing and is returned as unmatched, and never frees a permit of a newer cell of the
         * same key.
         */
        @Override
        @SuppressWarnings("unchecked")
        public long release(String key, Cell held, long cost, long receipt, boolean dropped) {
            if (held == null) {
                return release(key, cost, receipt, dropped);
            }
            return algorithm.release((S) held, clockAtRelease ? clock.nanos() : NOT_READ, cost, receipt, dropped);
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

        /** Peeks the key's cell, or a fresh one if it has none; creates no entry. */
        @Override
        public void inspect(String key, MutableDecision out) {
            long now = clock.nanos();
            S cell = map.get(key);
            if (cell == null || algorithm.acquire(cell, now, 0, out) == Algorithm.RETIRED) {
                algorithm.acquire(algorithm.newCell(now), now, 0, out);
            }
        }

        /**
         * {@inheritDoc}
         *
         * <p>Retires the key's cell under the lock of the shard that recorded it, as eviction does,
         * and takes it out of the map: a request deciding on the old cell at that moment sees it
         * retired and decides again on a new one. Finding the shard is a scan of the shards'
         * records, which is fine for an operator's command and is never on the request path.
         */
        @Override
        public boolean reset(String key) {
            if (algorithm.concurrency() || map.get(key) == null) {
                return false;
            }
            for (Shard<S> shard : shards) {
                shard.lock.lock();
                try {
                    String gone = shard.forget(key);
                    if (gone != null) {
                        count.decrementAndGet();
                        return true;
                    }
                } finally {
                    shard.lock.unlock();
                }
            }
            return false;
        }

        @Override
        public long size() {
            return count.get();
        }

        @Override
        public String toString() {
            return "KeySpace{" + name + ", " + algorithm + ", keys=" + size() + ", bound=" + bound
                    + '}';
        }
    }

    /** A key and its cell, published together (see {@code Space.hot}). */
    private static final class Hot<S extends Cell> {
        final String key;
        final S cell;

        Hot(String key, S cell) {
            this.key = key;
            this.cell = cell;
        }
    }

    /**
     * One shard's record of the keys it added: their strings, dense in {@code [0, size)}, guarded by
     * {@link #lock}. Every key recorded here is in the map with a cell that is not retired: cells
     * are retired only under this lock, and taken out of the map and the record at once. A cell's
     * {@linkplain Cell#touched() stamp} is the time it was kept, written once before it is
     * published.
     */
    private static final class Shard<S extends Cell> {
        private static final int INITIAL = 16;

        final ReentrantLock lock = new ReentrantLock();
        final Space<S> space;
        final Algorithm<S> algorithm;
        /** The scratch decision of the peeks that measure an entry's consumption. */
        final MutableDecision peek = new MutableDecision();
        String[] keys;
        int size;
        /** The idle-eviction cursor. */
        int hand;
        /** Whether the last entry dropped by {@link #evictOne} was fresh. */
        boolean lastLossless;

        Shard(Space<S> space) {
            this.space = space;
            this.algorithm = space.algorithm;
        }

        /** This shard's share of the policy's bound: it may hold more only at the bound. */
        int capacity(int bound) {
            int n = space.shards.length;
            return (int) (((long) bound + n - 1) / n);
        }

        void append(String key, int bound) {
            int capacity = capacity(bound);
            if (keys == null || size == keys.length) {
                int length = keys == null ? Math.min(INITIAL, capacity)
                        : (int) Math.min(2L * keys.length, capacity);
                keys = Arrays.copyOf(keys == null ? new String[0] : keys, Math.max(length, size + 1));
            } else if (keys.length > 2 * capacity && size < capacity) {
                keys = Arrays.copyOf(keys, capacity); // the bound was lowered: give memory back
            }
            keys[size++] = key;
        }

        /** The live cell of the key recorded at {@code i}. */
        private S cell(int i) {
            return space.map.get(keys[i]);
        }

        /** Examines the entry at the cursor and drops it if fresh; returns its key, or null. */
        String sweepOne(long now) {
            if (size == 0) {
                return null;
            }
            if (hand >= size) {
                hand = 0;
            }
            int i = hand;
            S cell = cell(i);
            if (now >= space.keepFreshUntil && algorithm.retireIfFresh(cell, now)) {
                return removeAt(i, cell, true, now); // the entry moved into i is examined next
            }
            hand = i + 1;
            return null;
        }

        /**
         * Drops one entry to make room at the bound (see the class documentation for the choice);
         * returns its key, or null if no entry here may be dropped. Sets {@link #lastLossless}.
         */
        String evictOne(long now) {
            if (size == 0) {
                return null;
            }
            if (algorithm.concurrency()) {
                for (int k = Math.min(size, CONCURRENCY_SCAN); k > 0 && size > 0; k--) {
                    String gone = sweepOne(now);
                    if (gone != null) {
                        return gone;
                    }
                }
                return null;
            }
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int victim = -1;
            S victimCell = null;
            long victimDebt = Long.MAX_VALUE;
            int ties = 0;
            // A shard no larger than the sample is examined whole; a larger one at random positions,
            // and further while every entry sampled has used its whole quota: a registry filled
            // with such keys is what an attack on one of them needs, so it is searched harder.
            boolean whole = size <= SAMPLE;
            long full = algorithm.limit();
            for (int k = 0; whole ? k < size : k < SAMPLE || k < MAX_SAMPLE && victimDebt >= full; k++) {
                int i = whole ? k : random.nextInt(size);
                S cell = cell(i);
                if (algorithm.retireIfFresh(cell, now)) {
                    return removeAt(i, cell, true, now);
                }
                algorithm.acquire(cell, now, 0, peek);
                long debt = peek.limit() - peek.remaining();
                int newer = victimCell == null ? 0 : cell.touched() - victimCell.touched();
                if (debt < victimDebt || debt == victimDebt && newer > 0) {
                    victim = i;
                    victimCell = cell;
                    victimDebt = debt;
                    ties = 1;
                } else if (debt == victimDebt && newer == 0 && random.nextInt(++ties) == 0) {
                    // Kept within the same second: uniformly at random among them.
                    victim = i;
                    victimCell = cell;
                }
            }
            // Succeeds: only the holder of this lock retires this shard's cells.
            algorithm.retire(victimCell);
            return removeAt(victim, victimCell, false, 0);
        }

        /** Retires and removes {@code key} if this shard recorded it; returns it, or null. Under the lock. */
        String forget(String key) {
            for (int i = 0; i < size; i++) {
                if (keys[i].equals(key)) {
                    S cell = cell(i);
                    // Succeeds: only the holder of this lock retires this shard's cells.
                    algorithm.retire(cell);
                    return removeAt(i, cell, false, 0);
                }
            }
            return null;
        }

        /** Takes entry {@code i} (whose cell is retired) out of the map and of this record; a fresh one (lossless) is recorded as swept at {@code now} first. */
        private String removeAt(int i, S cell, boolean lossless, long now) {
            String key = keys[i];
            if (lossless) {
                space.retiring(key, now);
            }
            space.map.remove(key, cell);
            keys[i] = keys[--size];
            keys[size] = null;
            lastLossless = lossless;
            return key;
        }
    }

    /** Keys dropped while a lock was held, told to the listener once it is released. */
    private static final class Dropped {
        String[] keys = new String[4];
        boolean[] lossless = new boolean[4];
        int n;

        /** Records a drop; allocates nothing when nobody listens. */
        static Dropped add(Dropped d, EvictionListener listener, String key, boolean lossless) {
            if (listener == EvictionListener.NONE) {
                return null;
            }
            Dropped r = d == null ? new Dropped() : d;
            if (r.n == r.keys.length) {
                r.keys = Arrays.copyOf(r.keys, 2 * r.n);
                r.lossless = Arrays.copyOf(r.lossless, 2 * r.n);
            }
            r.keys[r.n] = key;
            r.lossless[r.n] = lossless;
            r.n++;
            return r;
        }

        static void tell(Dropped d, EvictionListener listener, String policy) {
            if (d == null) {
                return;
            }
            for (int i = 0; i < d.n; i++) {
                try {
                    listener.evicted(policy, d.keys[i], d.lossless[i]);
                } catch (RuntimeException ignored) {
                    // A listener must not break admission; see EvictionListener.
                }
            }
        }
    }

    /**
     * Builds a {@link ShardedRegistry}. Not thread-safe; the registry it builds is.
     */
    public static final class Builder {
        private Clock clock = Clock.system();
        private int shards = defaultShards();
        private int maxKeys;
        private long memoryBudget = DEFAULT_MEMORY_BUDGET;
        private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;
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
         * Sets the number of shards per policy: how many threads can add keys to one policy at
         * once. Default: four per processor, at least 16, rounded up to a power of two.
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
         * Sets the bound on keys of every policy, checked strictly against the
         * {@link #memoryBudget(long) memory budget} when each policy is bound. Default: not set,
         * each policy's bound is then its equal share of the budget divided by its bytes per key,
         * at most {@value ShardedRegistry#DEFAULT_MAX_KEYS}.
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
         * Sets the most heap, in bytes, that all policies' keys together may take at worst (see
         * {@link ShardedRegistry#bytesPerKey(Algorithm)}). Default:
         * {@link ShardedRegistry#DEFAULT_MEMORY_BUDGET 256 MiB}.
         *
         * @param bytes at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes < 1}
         */
        public Builder memoryBudget(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("memoryBudget must be >= 1 byte but was " + bytes);
            }
            this.memoryBudget = bytes;
            return this;
        }

        /**
         * Sets the longest key, in characters, that callers pass: the enforcer's
         * {@code max-key-length}. Used only to compute the worst case per key; the registry does not
         * shorten keys. Default: {@value ShardedRegistry#DEFAULT_MAX_KEY_LENGTH}.
         *
         * @param maxKeyLength between 1 and 1048576
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxKeyLength(int maxKeyLength) {
            if (maxKeyLength < 1 || maxKeyLength > 1 << 20) {
                throw new IllegalArgumentException(
                        "maxKeyLength must be between 1 and 1048576 but was " + maxKeyLength);
            }
            this.maxKeyLength = maxKeyLength;
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
