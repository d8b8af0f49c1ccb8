package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.Model;
import io.github.sluice.testing.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ShardedRegistryTest {

    private static final long S = 1_000_000_000L;

    private final FakeClock clock = new FakeClock();
    private final MutableDecision out = new MutableDecision();
    private final List<String> dropped = new CopyOnWriteArrayList<>();

    private ShardedRegistry registry(int maxKeys) {
        return ShardedRegistry.builder().clock(clock).shards(1).maxKeys(maxKeys)
                .listener((policy, key, lossless) -> dropped.add(key + (lossless ? "" : "!")))
                .build();
    }

    static List<Policies> policies() {
        return Policies.all();
    }

    @ParameterizedTest
    @MethodSource("policies")
    void idleEviction_randomWorkload_decidesExactlyAsIfNothingWasEvicted(Policies policy) {
        // Given a registry that drops every fresh key after every operation, and a model per key
        AtomicInteger lossless = new AtomicInteger();
        AtomicInteger lossy = new AtomicInteger();
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).shards(1).maxKeys(1000)
                .listener((p, key, wasFresh) -> (wasFresh ? lossless : lossy).incrementAndGet())
                .build();
        KeySpace space = registry.keySpace("p", policy.algorithm());
        String[] keys = {"a", "b", "c", "d", "e"};
        Model[] models = new Model[keys.length];
        for (int i = 0; i < keys.length; i++) {
            models[i] = policy.model().get();
        }
        Workload workload = new Workload(7, policy.unitNanos(), policy.algorithm().limit(), 0.3);
        Random random = workload.random();

        // When 100,000 random requests and refunds (releases, for concurrency) go to random keys
        // at random times, a refund undoing one of the key's admissions not yet refunded
        List<List<long[]>> held = new ArrayList<>();
        List<List<MutableDecision>> admissions = new ArrayList<>();
        int[] calls = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            held.add(new ArrayList<>());
            admissions.add(new ArrayList<>());
        }
        for (int i = 0; i < 100_000; i++) {
            workload.next(clock.nanos());
            clock.advanceNanos(workload.step());
            int k = random.nextInt(keys.length);
            long cost = Math.min(workload.cost(), 3 * policy.algorithm().limit());
            if (workload.op() == Workload.Op.RELEASE) {
                if (policy.algorithm().concurrency()) {
                    space.release(keys[k], cost);
                    models[k].release(clock.nanos(), cost);
                } else if (!held.get(k).isEmpty()) {
                    int j = random.nextInt(held.get(k).size());
                    long[] h = held.get(k).remove(j);
                    space.refund(keys[k], h[1], admissions.get(k).remove(j));
                    models[k].refund(clock.nanos(), h[1], (int) h[0]);
                }
            } else {
                Decision expected = models[k].acquire(clock.nanos(), cost);
                int call = calls[k]++;
                assertEquals(expected.allowed(), space.acquire(keys[k], cost, out));
                assertEquals(expected, out.toDecision(), "operation " + i + " on " + keys[k]);
                if (expected.allowed() && cost > 0) {
                    held.get(k).add(new long[] {call, cost});
                    admissions.get(k).add(new MutableDecision().copyFrom(out));
                }
            }
            registry.sweep(keys.length);
        }

        // Then every decision was the model's, though keys were dropped many times, never lossily
        assertTrue(lossless.get() > 1000, "dropped " + lossless.get());
        assertEquals(0, lossy.get());
    }

    @Test
    void atTheBound_aFreshKeyIsDroppedFirst_withoutLoss() {
        // Given a policy bounded at 3 keys, one of which has recovered its whole quota since
        ShardedRegistry registry = registry(3);
        KeySpace space = registry.keySpace("p", TokenBucket.builder().rate(Rate.of(1, Duration.ofSeconds(10))).burst(5).build());
        assertTrue(space.acquire("a", 5, out));
        assertTrue(space.acquire("b", 1, out));
        assertTrue(space.acquire("c", 5, out));
        clock.advanceNanos(10 * S);

        // When a fourth key arrives
        assertTrue(space.acquire("d", 1, out));

        // Then b, fresh again, was dropped without loss
        assertEquals(List.of("b"), dropped);
    }

    @Test
    void atTheBound_theKeyThatConsumedLeastIsForgotten_whateverItsAgeOrUse() {
        // Given a policy bounded at 3 keys that consumed 4, 1 and 3 of 5 permits; the light one
        // was kept first and is the most recently used
        ShardedRegistry registry = registry(3);
        KeySpace space = registry.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(5).build());
        assertTrue(space.acquire("light", 1, out));
        assertTrue(space.acquire("heavy", 4, out));
        assertTrue(space.acquire("middle", 3, out));
        clock.advanceNanos(2 * S);
        assertTrue(space.acquire("light", 0, out), "a peek: light is the last key used");

        // When a fourth key arrives
        assertTrue(space.acquire("new", 1, out));

        // Then the key whose forgetting gives the least back was dropped, with its history
        assertEquals(List.of("light!"), dropped);
        assertEquals(3, space.size());
        assertTrue(space.acquire("light", 5, out), "light starts afresh: one more quota");
        assertFalse(space.acquire("heavy", 2, out), "heavy kept its history");
    }

    @Test
    void atTheBound_amongEquallyConsumedKeys_theNewestIsForgotten() {
        // Given a policy bounded at 3 keys, each of which used its only permit, two seconds apart;
        // the oldest key is the one used least recently
        ShardedRegistry registry = registry(3);
        KeySpace space = registry.keySpace("p", TokenBucket.of(Rate.perHour(1)));
        for (String key : List.of("a", "b", "c")) {
            assertTrue(space.acquire(key, 1, out));
            clock.advanceNanos(2 * S);
        }

        // When new keys arrive, each also using its permit
        assertTrue(space.acquire("d", 1, out));
        assertTrue(space.acquire("e", 1, out));

        // Then the incumbents outlast the newcomers: c went, then d
        assertEquals(List.of("c!", "d!"), dropped);
        assertFalse(space.acquire("a", 1, out));
        assertFalse(space.acquire("b", 1, out));
    }

    @Test
    void newKey_peekOrRequestNoFreshStateAdmits_keepsNothing() {
        // Given an empty policy of 5 permits
        ShardedRegistry registry = registry(3);
        KeySpace space = registry.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(5).build());

        // When unknown keys only peek, or ask for more than a fresh key holds
        assertTrue(space.acquire("peek", 0, out));
        assertEquals(5, out.remaining());
        assertFalse(space.acquire("greedy", 6, out));
        assertEquals(Decision.NEVER, out.retryAfterNanos());

        // Then they were decided as fresh keys, and no key was kept nor dropped for them
        assertEquals(0, space.size());
        assertEquals(List.of(), dropped);
    }

    @Test
    void atTheBound_concurrencyKeysHoldingPermitsAreNeverDropped_newKeysAreDenied() {
        ShardedRegistry registry = registry(2);
        KeySpace space = registry.keySpace("p", Concurrency.of(1));
        assertTrue(space.acquire("a", 1, out));
        assertTrue(space.acquire("b", 1, out));

        assertFalse(space.acquire("c", 1, out));

        assertEquals(List.of(), dropped);
        assertFalse(out.allowed());
        assertEquals(S, out.retryAfterNanos());
        // When a request ends, its key is fresh and makes room without loss
        space.release("a", 1);
        assertTrue(space.acquire("c", 1, out));
        assertEquals(List.of("a"), dropped);
        assertFalse(space.acquire("b", 1, out), "b still holds its permit");
    }

    @Test
    void sweep_dropsOnlyFreshKeys() {
        ShardedRegistry registry = registry(100);
        KeySpace space = registry.keySpace("p", TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build());
        space.acquire("busy", 2, out);
        space.acquire("idle", 1, out);
        clock.advanceNanos(S);

        int n = registry.sweep(10);

        assertEquals(1, n);
        assertEquals(List.of("idle"), dropped);
        assertEquals(1, space.size());
    }

    @Test
    void keySpace_sameNameDifferentAlgorithm_isRefused() {
        ShardedRegistry registry = registry(100);
        KeySpace space = registry.keySpace("p", TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build());

        assertEquals(space, registry.keySpace("p", TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.keySpace("p", TokenBucket.builder().rate(Rate.perSecond(1)).burst(3).build()));
        assertTrue(e.getMessage().startsWith("policy 'p' is already bound to"), e.getMessage());
    }

    @Test
    void builder_badConfiguration_failsNamingTheParameterAndValue() {
        Expect.illegalArgument(
                "shards must be a power of two between 1 and 65536 but was 3",
                () -> ShardedRegistry.builder().shards(3));
        Expect.illegalArgument("maxKeys must be >= 1 but was 0",
                () -> ShardedRegistry.builder().maxKeys(0));
        Expect.illegalArgument(
                "entriesPerShard must be >= 1 but was 0", () -> registry(1).sweep(0));
    }

    @Test
    void maxKeys_spreadOverShards_neverExceeded() {
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).shards(64).maxKeys(1000).build();
        KeySpace space = registry.keySpace("p", TokenBucket.of(Rate.perHour(1)));
        AtomicInteger admitted = new AtomicInteger();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            keys.add("k" + i);
        }

        keys.forEach(k -> {
            if (space.acquire(k, 1, out)) {
                admitted.incrementAndGet();
            }
            assertTrue(space.size() <= 1000);
        });

        assertEquals(20_000, admitted.get());
        assertTrue(space.size() > 900, "size " + space.size());
    }
}
