package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The bound on keys bounds memory: every policy's worst case per key times its bound must fit the
 * registry's memory budget, checked when the policy is bound (at start-up).
 */
class MemoryBudgetTest {

    private static final Algorithm<?> BUCKET = TokenBucket.builder().rate(Rate.perMinute(100)).burst(20).build();
    private static final Algorithm<?> LOG = SlidingLog.builder().limit(100)
            .window(Duration.ofMinutes(1)).build();

    @Test
    void bytesPerKey_isTheStatePlusTheEntryPlusTheLongestKey() {
        ShardedRegistry registry = ShardedRegistry.builder().build();

        // 24 (a one-word cell) + 74 (the entry) + 24 + 272 (a 128-character UTF-16 string)
        assertEquals(394, registry.bytesPerKey(BUCKET));
        // 56 + 8 * 100 (a log of 100 timestamps) + 74 + 296
        assertEquals(1226, registry.bytesPerKey(LOG));
        assertEquals(24 + 74 + 24 + 16 + 2 * 4096,
                ShardedRegistry.builder().maxKeyLength(4096).build().bytesPerKey(BUCKET));
    }

    @Test
    void explicitMaxKeys_overTheBudget_failsNamingThePolicyItsBytesPerKeyAndTheBudget() {
        ShardedRegistry registry = ShardedRegistry.builder().maxKeys(1_000_000).build();

        Expect.illegalArgument("policy 'per-ip' (token-bucket) takes up to 394 bytes per key"
                + " (24 for its state, 74 for the registry's entry, 296 for a key of up to 128"
                + " characters); 1,000,000 keys (maxKeys) need up to 394,000,000 bytes (375.7 MiB),"
                + " more than the memory budget of 268,435,456 bytes (256 MiB);"
                + " lower maxKeys or raise memoryBudget",
                () -> registry.keySpace("per-ip", BUCKET));
    }

    @Test
    void explicitMaxKeys_policiesTogetherOverTheBudget_theOneThatTipsItFails() {
        // Given a policy of 500,000 keys of 394 bytes bound within the 256 MiB budget
        ShardedRegistry registry = ShardedRegistry.builder().maxKeys(500_000).build();
        registry.keySpace("per-ip", BUCKET);

        // When a second one is bound, then it fails: the two need 394,000,000 bytes
        Expect.illegalArgument("policy 'per-user' (token-bucket) takes up to 394 bytes per key"
                + " (24 for its state, 74 for the registry's entry, 296 for a key of up to 128"
                + " characters); 500,000 keys (maxKeys) need up to 197,000,000 bytes (187.9 MiB),"
                + " more than the memory budget of 268,435,456 bytes (256 MiB) less the 197,000,000"
                + " bytes (187.9 MiB) of the policy bound before it; lower maxKeys or raise memoryBudget",
                () -> registry.keySpace("per-user", BUCKET));
        // and a larger budget takes both
        ShardedRegistry larger = ShardedRegistry.builder().maxKeys(500_000).memoryBudget(394_000_000)
                .build();
        larger.keySpace("per-ip", BUCKET);
        larger.keySpace("per-user", BUCKET);
        assertEquals(500_000, larger.maxKeys("per-user"));
    }

    @Test
    void noMaxKeys_boundsAreEqualSharesOfTheBudget_loweredAsPoliciesAreBound() {
        ShardedRegistry registry = ShardedRegistry.builder().build();
        assertEquals(0, registry.maxKeys());

        // One policy has the whole 256 MiB: 268,435,456 / 394 keys
        registry.keySpace("per-ip", BUCKET);
        assertEquals(681_308, registry.maxKeys("per-ip"));

        // A second halves it, and gets half too, in its own keys' size
        registry.keySpace("login", LOG);
        assertEquals(340_654, registry.maxKeys("per-ip"));
        assertEquals(109_476, registry.maxKeys("login"));

        // A budget large enough keeps the old default of a million keys per policy
        ShardedRegistry large = ShardedRegistry.builder().memoryBudget(1L << 40).build();
        large.keySpace("per-ip", BUCKET);
        assertEquals(ShardedRegistry.DEFAULT_MAX_KEYS, large.maxKeys("per-ip"));
    }

    @Test
    void noMaxKeys_aShareTooSmallForOneKey_failsNamingThePolicyAndTheShare() {
        ShardedRegistry registry = ShardedRegistry.builder().memoryBudget(2_000).build();
        registry.keySpace("per-ip", BUCKET);

        Expect.illegalArgument("policy 'login' (sliding-log) takes up to 1,226 bytes (1.2 KiB) per key"
                + " (856 for its state, 74 for the registry's entry, 296 for a key of up to 128"
                + " characters); its share of the memory budget of 2,000 bytes (2 KiB), one of 2 equal"
                + " shares, is 1,000 bytes and holds no such key; raise memoryBudget",
                () -> registry.keySpace("login", LOG));
        assertEquals(5, registry.maxKeys("per-ip"), "unchanged by the failed binding");
    }

    @Test
    void loweredBound_policyAboveIt_shedsKeysAsNewOnesArrive() {
        // Given a policy that holds its derived bound of 100 keys
        AtomicInteger dropped = new AtomicInteger();
        ShardedRegistry registry = ShardedRegistry.builder().clock(new FakeClock())
                .memoryBudget(100 * 394).shards(4).listener((p, k, lossless) -> dropped.incrementAndGet())
                .build();
        KeySpace space = registry.keySpace("per-ip", BUCKET);
        MutableDecision out = new MutableDecision();
        for (int i = 0; i < 100; i++) {
            assertTrue(space.acquire("old-" + i, 1, out));
        }
        assertEquals(100, space.size());

        // When a second policy halves its share, and 60 new keys arrive
        registry.keySpace("per-user", BUCKET);
        assertEquals(50, registry.maxKeys("per-ip"));
        for (int i = 0; i < 60; i++) {
            assertTrue(space.acquire("new-" + i, 1, out));
        }

        // Then each new key dropped two old ones until the policy was within its bound
        assertEquals(50, space.size());
        assertEquals(110, dropped.get());
    }

    @Test
    void builder_badMemorySettings_failNamingTheParameterAndValue() {
        Expect.illegalArgument("memoryBudget must be >= 1 byte but was 0",
                () -> ShardedRegistry.builder().memoryBudget(0));
        Expect.illegalArgument("maxKeyLength must be between 1 and 1048576 but was 0",
                () -> ShardedRegistry.builder().maxKeyLength(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShardedRegistry.builder().build().maxKeys("nope"));
        assertEquals("policy must be bound to this registry but was 'nope' (bound: [])", e.getMessage());
    }
}
