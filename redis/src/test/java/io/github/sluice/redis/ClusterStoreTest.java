package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisCluster;
import io.github.sluice.redis.testing.RedisClusterExtension;
import io.github.sluice.store.Claim;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The store on a real Redis Cluster (three masters, one replica each): the same decisions as in
 * memory, limits shared by two store instances, one script call per slot, a request over several
 * masters still all or nothing, the denial cache, a seed list, and a slot resharded in use (ASK,
 * then MOVED). A killed master is {@link ClusterFailoverTest}'s.
 */
@ExtendWith(RedisClusterExtension.class)
class ClusterStoreTest {

    private static final int LIMIT = 50;
    private static final int THREADS_PER_STORE = 4;
    private static final int ATTEMPTS = 40;
    private static final KeyNames NAMES = new KeyNames("sluice", null);

    static Stream<Algorithm<?>> algorithms() {
        return Stream.of(
                TokenBucket.builder().rate(Rate.of(1, Duration.ofSeconds(1))).burst(LIMIT).build(),
                Gcra.builder().rate(Rate.of(1, Duration.ofSeconds(1))).burst(LIMIT - 1).build(),
                FixedWindow.of(LIMIT, Duration.ofMinutes(1)),
                FixedWindow.of(LIMIT, CalendarPeriod.of(CalendarPeriod.Unit.MONTH, ZoneId.of("Asia/Kolkata"))),
                FixedWindow.builder().limit(LIMIT).window(Duration.ofMinutes(1))
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                SlidingWindow.builder().limit(LIMIT).window(Duration.ofMinutes(1)).slots(6).build(),
                LeakyBucket.builder().capacity(LIMIT).rate(Rate.of(1, Duration.ofSeconds(1))).build(),
                SlidingLog.builder().limit(LIMIT).window(Duration.ofMinutes(1)).build(),
                ShapingLeakyBucket.builder().rate(Rate.of(1, Duration.ofSeconds(1))).slack(LIMIT - 1).start(ShapingLeakyBucket.Start.EARNED)
                        .maxDelay(Duration.ofMillis(500)).build(),
                Concurrency.of(LIMIT));
    }

    /**
     * Generous timeouts: these tests are about semantics, not about the machine's latency (a store
     * that connects late starts degraded, and its first decisions would not come from Redis).
     */
    private static RedisStore.Builder store(RedisCluster cluster) {
        return RedisStore.builder().uri(cluster.uri()).commandTimeout(Duration.ofSeconds(5))
                .connectTimeout(Duration.ofSeconds(10));
    }

    private static Thread started(Runnable r) {
        Thread t = new Thread(r);
        t.start();
        return t;
    }

    /** @return one client key per master: for policy {@code policy}, each served by another master */
    private static List<String> keysOnEveryMaster(RedisCluster cluster, String policy) {
        List<String> keys = new ArrayList<>();
        Set<Integer> masters = new HashSet<>();
        for (int i = 0; masters.size() < 3; i++) {
            String candidate = "203.0.113." + i;
            if (masters.add(cluster.masterOf(NAMES.key(policy, candidate)))) {
                keys.add(candidate);
            }
        }
        return keys;
    }

    /** Small limits, as in {@link DifferentialTest}, where Redis and memory decide alike exactly. */
    static Stream<Algorithm<?>> differential() {
        return Stream.of(
                TokenBucket.builder().rate(Rate.of(5, Duration.ofSeconds(2))).burst(4).build(),
                Gcra.builder().rate(Rate.of(5, Duration.ofSeconds(2))).burst(3).build(),
                // Exact schedules whose interval is not whole microseconds (N = 7, 3, 7)
                TokenBucket.builder().rate(Rate.of(7, Duration.ofMinutes(1))).burst(3).build(),
                Gcra.builder().rate(Rate.perSecond(3)).burst(2).build(),
                LeakyBucket.builder().capacity(4).rate(Rate.of(1000, Duration.ofSeconds(7))).build(),
                FixedWindow.of(5, Duration.ofSeconds(10)),
                FixedWindow.of(5, CalendarPeriod.of(CalendarPeriod.Unit.DAY, ZoneId.of("Europe/Paris"))),
                FixedWindow.builder().limit(5).window(Duration.ofSeconds(10))
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                SlidingWindow.builder().limit(6).window(Duration.ofSeconds(10)).slots(5).build(),
                LeakyBucket.builder().capacity(4).rate(Rate.of(5, Duration.ofSeconds(2))).build(),
                SlidingLog.builder().limit(5).window(Duration.ofSeconds(10)).build(),
                ShapingLeakyBucket.builder().rate(Rate.of(5, Duration.ofSeconds(2))).slack(3)
                        .maxDelay(Duration.ofSeconds(1)).build(),
                Concurrency.of(4));
    }

    @ParameterizedTest
    @MethodSource("differential")
    void differential_onACluster_decidesAsInMemory(Algorithm<?> algorithm, RedisCluster cluster) {
        // The differential's three client keys are served by more than one master
        Set<Integer> masters = new HashSet<>();
        for (int k = 0; k < 3; k++) {
            masters.add(cluster.masterOf(NAMES.key("p1", "k" + k)));
        }
        assertTrue(masters.size() > 1, "the keys all land on one master: " + masters);

        // (a window starting at the first request starts on a whole microsecond in Redis and
        // on a whole cell in memory: resets differ by less than a microsecond, see docs/redis.md)
        boolean cells = algorithm instanceof FixedWindow f
                && f.alignment() == FixedWindow.Alignment.FIRST_REQUEST;
        try (Differential d = new Differential(cluster, cells ? 1000 : 0)) {
            d.steps(200).run(algorithm, 1);
        }
    }

    /**
     * Plans on a cluster: every plan of a policy reads the client's one key, wherever its slot is,
     * from two stores at once, with threads switching plans: at most the largest plan's limit per
     * key while the clock stands still.
     */
    @org.junit.jupiter.api.Test
    void plans_twoStores_threadsSwitchingPlans_admitAtMostTheLargestPlanPerKey(RedisCluster cluster) throws Exception {
        FakeClock frozen = new FakeClock();
        List<String> keys = keysOnEveryMaster(cluster, "planned");
        io.github.sluice.store.PlanAlgorithm plans = new io.github.sluice.store.PlanAlgorithm(List.of(
                FixedWindow.of(5, Duration.ofMinutes(1)), FixedWindow.of(20, Duration.ofMinutes(1))), 0);
        try (RedisStore a = store(cluster).clientClock(frozen).build();
                RedisStore b = store(cluster).clientClock(frozen).build()) {
            KeySpace[] spaces = {a.keySpace("planned", plans), b.keySpace("planned", new io.github.sluice.store.PlanAlgorithm(
                    List.of(FixedWindow.of(5, Duration.ofMinutes(1)), FixedWindow.of(20, Duration.ofMinutes(1))), 0))};
            AtomicLongArray admitted = new AtomicLongArray(keys.size());
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                KeySpace space = spaces[t % 2];
                int offset = t;
                threads.add(started(() -> {
                    MutableDecision out = new MutableDecision();
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int n = 0; n < 15 * keys.size(); n++) {
                        int k = (n + offset) % keys.size();
                        if (space.acquire(keys.get(k), (n + offset) % 2, 1, out)) {
                            admitted.incrementAndGet(k);
                        }
                    }
                }));
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            for (int k = 0; k < keys.size(); k++) {
                assertTrue(admitted.get(k) >= 5 && admitted.get(k) <= 20, "key " + keys.get(k) + ": " + admitted.get(k));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void twoStores_keysOnEveryMaster_frozenClock_admitExactlyTheLimitPerKey(Algorithm<?> algorithm,
            RedisCluster cluster) throws Exception {
        FakeClock frozen = new FakeClock();
        List<String> keys = keysOnEveryMaster(cluster, "shared");
        try (RedisStore a = store(cluster).clientClock(frozen).build();
                RedisStore b = store(cluster).clientClock(frozen).build()) {
            KeySpace[] spaces = {a.keySpace("shared", algorithm), b.keySpace("shared", algorithm)};
            AtomicLongArray admitted = new AtomicLongArray(keys.size());
            AtomicInteger degraded = new AtomicInteger();
            hammer(spaces, keys, admitted, degraded, null);
            assertEquals(0, degraded.get(), "every decision must come from Redis");
            assertTrue(2 * THREADS_PER_STORE * ATTEMPTS > LIMIT, "the load exceeds the limit");
            for (int k = 0; k < keys.size(); k++) {
                assertEquals(algorithm.limit(), admitted.get(k), algorithm + ", key " + keys.get(k));
            }
        }
    }

    /**
     * 2 x {@link #THREADS_PER_STORE} threads, alternating between the stores' spaces, released at
     * once, each trying every key {@link #ATTEMPTS} times, starting at a key of its own.
     *
     * @param local counts the admissions decided from a lease's share, or {@code null}
     */
    private void hammer(KeySpace[] spaces, List<String> keys, AtomicLongArray admitted, AtomicInteger degraded,
            AtomicInteger local) throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2 * THREADS_PER_STORE; t++) {
            KeySpace space = spaces[t % 2];
            int offset = t;
            threads.add(started(() -> {
                MutableDecision out = new MutableDecision();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int n = 0; n < ATTEMPTS * keys.size(); n++) {
                    int k = (n + offset) % keys.size();
                    if (space.acquire(keys.get(k), 1, out)) {
                        admitted.incrementAndGet(k);
                        if (local != null && io.github.sluice.redis.internal.ShareSlot.local(out.receipt())) {
                            local.incrementAndGet();
                        }
                    }
                    degraded.addAndGet(out.degraded() ? 1 : 0);
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
    }

    @Test
    void leases_twoStoresOnKeysOfEveryMaster_frozenClock_sharesTakenOnEachKeysMaster_neverAboveTheLimit(
            RedisCluster cluster) throws Exception {
        // Shares of 5 of a limit of 50, on a frozen clock (no refill, no share ends): every permit
        // admitted was taken from the key's master, locally in the main
        FakeClock frozen = new FakeClock();
        List<String> keys = keysOnEveryMaster(cluster, "leased");
        Algorithm<?> bucket = TokenBucket.builder().rate(Rate.perHour(1)).burst(LIMIT).build();
        try (RedisStore a = store(cluster).clientClock(frozen).leases(0.1, Duration.ofMinutes(1)).build();
                RedisStore b = store(cluster).clientClock(frozen).leases(0.1, Duration.ofMinutes(1)).build()) {
            KeySpace[] spaces = {a.keySpace("leased", bucket), b.keySpace("leased", bucket)};
            AtomicLongArray admitted = new AtomicLongArray(keys.size());
            AtomicInteger local = new AtomicInteger();
            AtomicInteger degraded = new AtomicInteger();
            hammer(spaces, keys, admitted, degraded, local);
            assertEquals(0, degraded.get(), "every decision must come from Redis or a share");
            for (int k = 0; k < keys.size(); k++) {
                long n = admitted.get(k);
                // At most the limit; at least the limit less what the two stores' last shares left unspent
                assertTrue(n <= LIMIT && n >= LIMIT - 2 * 5, "key " + keys.get(k) + ": " + n);
            }
            assertTrue(local.get() > keys.size() * LIMIT / 2, "decided from shares: " + local.get());
        }
    }

    @Test
    void coalescing_twoStoresManyThreadsOnHotKeysOfEveryMaster_admitExactlyTheLimitInSharedCalls(
            RedisCluster cluster) throws Exception {
        FakeClock frozen = new FakeClock();
        List<String> keys = keysOnEveryMaster(cluster, "hot");
        Algorithm<?> algorithm = SlidingLog.builder().limit(LIMIT).window(Duration.ofMinutes(1)).build();
        try (RedisStore a = store(cluster).clientClock(frozen).denialCacheSize(0).build();
                RedisStore b = store(cluster).clientClock(frozen).denialCacheSize(0).build()) {
            KeySpace[] spaces = {a.keySpace("hot", algorithm), b.keySpace("hot", algorithm)};
            cluster.resetStats();
            AtomicLongArray admitted = new AtomicLongArray(keys.size());
            AtomicInteger degraded = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            int perStore = 12;
            int attempts = 10;
            for (int t = 0; t < 2 * perStore; t++) {
                KeySpace space = spaces[t % 2];
                threads.add(started(() -> {
                    MutableDecision out = new MutableDecision();
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int n = 0; n < attempts * keys.size(); n++) {
                        int k = n % keys.size(); // every thread on the same key at once
                        if (space.acquire(keys.get(k), 1, out)) {
                            admitted.incrementAndGet(k);
                        }
                        degraded.addAndGet(out.degraded() ? 1 : 0);
                    }
                }));
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(0, degraded.get(), "every decision must come from Redis");
            for (int k = 0; k < keys.size(); k++) {
                assertEquals(LIMIT, admitted.get(k), "key " + keys.get(k));
            }
            long decisions = 2L * perStore * attempts * keys.size();
            assertTrue(cluster.scriptCalls() < decisions,
                    "batches formed: " + cluster.scriptCalls() + " calls for " + decisions + " decisions");
        }
    }

    @Test
    void functions_libraryLoadedOnEveryMaster_decisionsGoByFcall(RedisCluster cluster) throws Exception {
        // Given a cluster without the library (FUNCTION FLUSH replicates to the replicas)
        for (int port : cluster.masters()) {
            cluster.call(port, "FUNCTION", "FLUSH");
        }
        try (RedisStore store = store(cluster).build()) {
            // Then the store loaded it on every master, and the replicas received it
            for (int port : cluster.masters()) {
                assertTrue(FunctionsTest.loaded(cluster.call(port, "FUNCTION", "LIST")), "master " + port);
            }
            for (String uri : cluster.nodeUris()) {
                int port = Integer.parseInt(uri.substring(uri.lastIndexOf(':') + 1));
                Load.await("node " + port + " to have the library", 10_000,
                        () -> FunctionsTest.loaded(cluster.call(port, "FUNCTION", "LIST")));
            }
            // And decisions on every master go by FCALL
            cluster.resetStats();
            KeySpace space = store.keySpace("fn", TokenBucket.builder().rate(Rate.perHour(1)).burst(5).build());
            MutableDecision out = new MutableDecision();
            List<String> keys = keysOnEveryMaster(cluster, "fn");
            for (String key : keys) {
                assertTrue(space.acquire(key, 1, out));
                assertFalse(out.degraded());
                assertEquals(4, out.remaining());
            }
            assertEquals(keys.size(), cluster.calls("fcall"));
            assertEquals(0, cluster.calls("evalsha") + cluster.calls("eval"));
            for (String key : keys) {
                assertEquals(1, cluster.calls(cluster.masterOf(NAMES.key("fn", key)), "fcall"), key);
            }
        }
    }

    @Test
    void functions_flushedOnOneMaster_noDecisionFails_libraryLoadedThereAgain(RedisCluster cluster) {
        try (RedisStore store = store(cluster).build()) {
            KeySpace space = store.keySpace("fn-flush", TokenBucket.builder().rate(Rate.perHour(1)).burst(50).build());
            List<String> keys = keysOnEveryMaster(cluster, "fn-flush");
            int flushed = cluster.masterOf(NAMES.key("fn-flush", keys.get(0)));
            MutableDecision out = new MutableDecision();

            // When one master loses the library (FUNCTION FLUSH, or a node new to the cluster)
            cluster.call(flushed, "FUNCTION", "FLUSH");
            assertFalse(FunctionsTest.loaded(cluster.call(flushed, "FUNCTION", "LIST")));

            // Then every decision on every master still comes from Redis, unchanged
            for (int round = 1; round <= 10; round++) {
                for (String key : keys) {
                    assertTrue(space.acquire(key, 1, out), key);
                    assertFalse(out.degraded(), key);
                    assertEquals(50 - round, out.remaining(), key);
                }
            }
            // And the store loads the library on that master again, and calls it there
            Load.await("the library on " + flushed, 10_000,
                    () -> FunctionsTest.loaded(cluster.call(flushed, "FUNCTION", "LIST")));
            Load.await("a call by FCALL on " + flushed, 10_000, () -> {
                long fcalls = cluster.calls(flushed, "fcall");
                space.acquire(keys.get(0), 0, out);
                assertFalse(out.degraded());
                return cluster.calls(flushed, "fcall") > fcalls;
            });
        }
    }

    @Test
    void acquireAll_policiesOfOneClientKey_areOneScriptCallOnItsMaster(RedisCluster cluster) {
        try (RedisStore store = store(cluster).build()) {
            KeySpace perSecond = store.keySpace("per-second", TokenBucket.of(Rate.of(10, Duration.ofSeconds(1))));
            KeySpace perDay = store.keySpace("per-day", FixedWindow.of(1000, Duration.ofDays(1)));
            MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
            int master = cluster.masterOf(NAMES.key("per-second", "alice"));
            assertEquals(master, cluster.masterOf(NAMES.key("per-day", "alice")), "same hash tag, same slot");
            cluster.resetStats();

            boolean admitted = store.acquireAll(Claim.of(perSecond, "alice", 1, out[0],
                    Claim.of(perDay, "alice", 1, out[1], null)));

            assertTrue(admitted);
            assertEquals(1, cluster.scriptCalls(), "one call in all");
            assertEquals(1, cluster.scriptCalls(master));
            assertEquals(9, out[0].remaining());
            assertEquals(999, out[1].remaining());
        }
    }

    @ParameterizedTest(name = "coalescing {0}")
    @ValueSource(booleans = {true, false})
    void acquireAll_policiesOnTwoMasters_manyThreads_allOrNothingWithRefundsByReceipt(
            boolean coalescing, RedisCluster cluster) throws Exception {
        // Given a per-client limit and a global one whose keys are served by two masters
        FakeClock frozen = new FakeClock();
        String client = "alice";
        String global = keysOnEveryMaster(cluster, "global").stream()
                .filter(k -> cluster.masterOf(NAMES.key("global", k))
                        != cluster.masterOf(NAMES.key("per-client", client)))
                .findFirst().orElseThrow();
        try (RedisStore store = store(cluster).clientClock(frozen).denialCacheSize(0).coalescing(coalescing).build()) {
            KeySpace perClient = store.keySpace("per-client", TokenBucket.builder().rate(Rate.of(1, Duration.ofHours(1))).burst(1000).build());
            KeySpace overall = store.keySpace("global", FixedWindow.of(10, Duration.ofHours(1)));
            cluster.resetStats();

            // When 16 threads released together send 5 requests each through both policies
            AtomicInteger admitted = new AtomicInteger();
            AtomicInteger degraded = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                threads.add(started(() -> {
                    MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int n = 0; n < 5; n++) {
                        boolean all = store.acquireAll(Claim.of(perClient, client, 1, out[0],
                                Claim.of(overall, global, 1, out[1], null)));
                        admitted.addAndGet(all ? 1 : 0);
                        degraded.addAndGet(out[0].degraded() || out[1].degraded() ? 1 : 0);
                    }
                }));
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }

            // Then exactly the global limit was admitted
            assertEquals(0, degraded.get());
            assertEquals(10, admitted.get());
            // And the per-client permits of the 70 refused requests were all given back: the
            // per-client bucket is charged for the 10 admitted requests only
            MutableDecision peek = new MutableDecision();
            AtomicInteger peeks = new AtomicInteger();
            Load.await("the refunds", 10_000, () -> {
                peeks.incrementAndGet();
                perClient.acquire(client, 0, peek);
                return peek.remaining() == 1000 - 10;
            });
            // And each request was one call per master (80 x 2), plus one refund per refusal;
            // with coalescing, requests queued behind a call on their keys shared calls
            if (coalescing) {
                long calls = cluster.scriptCalls() - 70 - peeks.get();
                assertTrue(calls >= 2 && calls <= 80 * 2, "script calls: " + calls);
            } else {
                assertEquals(80 * 2 + 70 + peeks.get(), cluster.scriptCalls(), "script calls");
            }
        }
    }

    @Test
    void denialCache_onACluster_aFloodReachesRedisOncePerRetryAfter(RedisCluster cluster) {
        try (RedisStore store = store(cluster).build()) {
            KeySpace login = store.keySpace("login", FixedWindow.of(5, Duration.ofMinutes(1)));
            MutableDecision d = new MutableDecision();
            // (the store's start ran the script once on every master to load it)
            cluster.resetStats();
            int admitted = 0;
            for (int i = 0; i < 1000; i++) {
                admitted += login.acquire("mallory", 1, d) ? 1 : 0;
            }
            assertEquals(5, admitted);
            assertFalse(d.degraded());
            assertTrue(cluster.scriptCalls() <= 7, "script calls: " + cluster.scriptCalls());
        }
    }

    @Test
    void resharding_aKeyMovedMidUse_clientFollowsAskThenMoved_limitHoldsWithoutDegrading(
            RedisCluster cluster) {
        FakeClock frozen = new FakeClock();
        try (RedisStore store = store(cluster).clientClock(frozen).denialCacheSize(0).build()) {
            KeySpace space = store.keySpace("moved", FixedWindow.of(5, Duration.ofHours(1)));
            String client = "carol";
            String key = NAMES.key("moved", client);
            MutableDecision d = new MutableDecision();
            int admitted = 0;
            for (int i = 0; i < 3; i++) {
                admitted += space.acquire(client, 1, d) ? 1 : 0;
                assertFalse(d.degraded(), d::toString);
            }
            // Given the key's slot being migrated to another master, the key already moved
            int source = cluster.masterOf(key);
            int target = cluster.masters().stream().filter(m -> m != source).findFirst().orElseThrow();
            String slot = cluster.call(source, "CLUSTER", "KEYSLOT", key).toString();
            String sourceId = (String) cluster.call(source, "CLUSTER", "MYID");
            String targetId = (String) cluster.call(target, "CLUSTER", "MYID");
            cluster.call(target, "CLUSTER", "SETSLOT", slot, "IMPORTING", sourceId);
            cluster.call(source, "CLUSTER", "SETSLOT", slot, "MIGRATING", targetId);
            cluster.call(source, "MIGRATE", "127.0.0.1", Integer.toString(target), key, "0", "5000");

            // When a decision is routed to the source, which answers ASK
            admitted += space.acquire(client, 1, d) ? 1 : 0;
            // Then the client asks the target, which decides on the moved state
            assertFalse(d.degraded(), d::toString);
            assertEquals(4, admitted);

            // And when the migration ends and the source answers MOVED
            // (as redis-cli --cluster reshard ends one: the target first, then the source)
            cluster.call(target, "CLUSTER", "SETSLOT", slot, "NODE", targetId);
            cluster.call(source, "CLUSTER", "SETSLOT", slot, "NODE", targetId);
            for (int m : cluster.masters()) {
                if (m != source && m != target) {
                    cluster.call(m, "CLUSTER", "SETSLOT", slot, "NODE", targetId);
                }
            }
            for (int i = 0; i < 3; i++) {
                admitted += space.acquire(client, 1, d) ? 1 : 0;
                assertFalse(d.degraded(), d::toString);
            }
            // Then the limit held across both redirections: 5 of 6, and the state is on the target
            assertEquals(5, admitted);
            assertEquals(target, cluster.masterOf(key));
            assertEquals(1L, cluster.call(target, "EXISTS", key));
        }
    }

    @Test
    void seedList_isTheSameClusterAsTheUri(RedisCluster cluster) {
        List<String> seeds = cluster.nodeUris();
        try (RedisStore byUri = store(cluster).build();
                RedisStore bySeeds = RedisStore.builder().cluster(seeds.get(1), seeds.get(4))
                        .commandTimeout(Duration.ofSeconds(5)).build()) {
            assertFalse(bySeeds.degraded(), bySeeds::toString);
            Algorithm<?> a = FixedWindow.of(2, Duration.ofMinutes(1));
            MutableDecision d = new MutableDecision();
            assertTrue(byUri.keySpace("seeds", a).acquire("bob", 1, d));
            assertTrue(bySeeds.keySpace("seeds", a).acquire("bob", 1, d));
            assertFalse(byUri.keySpace("seeds", a).acquire("bob", 1, d), "the two share the limit");
            assertTrue(bySeeds.toString().contains("cluster 127.0.0.1:"), bySeeds::toString);
            assertNotEquals(byUri.toString(), bySeeds.toString());
        }
    }
}
