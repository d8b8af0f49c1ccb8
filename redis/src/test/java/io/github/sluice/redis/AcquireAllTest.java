package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.Claim;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Several policies of one request: one script call when their keys share a slot, parallel calls
 * otherwise, all or nothing either way.
 */
@ExtendWith(RedisServerExtension.class)
class AcquireAllTest {

    private final FakeClock clock = new FakeClock();
    private final MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
    private RedisStore store;
    private KeySpace perSecond;
    private KeySpace perMinute;

    @BeforeEach
    void open(RedisServer redis) {
        // After the extension has flushed Redis and its script cache.
        store = RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).build();
        // The fake clock never moves, but Redis expires a key by its own clock: at 10 a second
        // a taken token's key lived 100 ms, and a loaded machine saw it expire mid-test.
        perSecond = store.keySpace("per-second", TokenBucket.of(Rate.of(10, Duration.ofMinutes(1))));
        perMinute = store.keySpace("per-minute", FixedWindow.of(1, Duration.ofMinutes(1)));
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** @return -1 if both admitted, else the index of the first denial */
    private int acquireAll(String key1, String key2) {
        return acquireAll(perSecond, key1, perMinute, key2);
    }

    private int acquireAll(KeySpace first, String key1, KeySpace second, String key2) {
        boolean admitted = store.acquireAll(
                Claim.of(first, key1, 1, out[0], Claim.of(second, key2, 1, out[1], null)));
        return admitted ? -1 : out[0].allowed() ? 1 : 0;
    }

    private long remaining(KeySpace space, String key) {
        MutableDecision peek = new MutableDecision();
        space.acquire(key, 0, peek);
        return peek.remaining();
    }

    private static long scriptCalls(RedisServer redis) {
        return redis.scriptCalls();
    }

    @Test
    void acquireAll_sameClientKey_isOneScriptCall(RedisServer redis) {
        long before = scriptCalls(redis);

        int denied = acquireAll("alice", "alice");

        assertEquals(-1, denied);
        assertEquals(1, scriptCalls(redis) - before);
        assertEquals(9, out[0].remaining());
        assertEquals(0, out[1].remaining());
    }

    @Test
    void acquireAll_everyDecision_recordsTheClientClocksReadingItWasTakenAt(RedisServer redis) {
        // Given decisions that carry the reading of an earlier one
        out[0].at(1);
        out[1].at(1);
        clock.advanceNanos(42);

        // When Redis admits, then denies (the per-minute key has one permit)
        assertEquals(-1, acquireAll("alice", "alice"));
        long admittedAt = clock.nanos();
        assertEquals(admittedAt, out[0].nanos());
        assertEquals(admittedAt, out[1].nanos());
        clock.advanceNanos(7);
        assertEquals(1, acquireAll("alice", "alice"));

        // Then each records the reading of its own attempt (the store's client clock), never an earlier one
        assertEquals(clock.nanos(), out[0].nanos());
        assertEquals(clock.nanos(), out[1].nanos());
    }

    @Test
    void acquireAll_oneDeniesInTheSameSlot_theOthersAreNotCharged(RedisServer redis) {
        acquireAll("alice", "alice");

        int denied = acquireAll("alice", "alice");

        assertEquals(1, denied);
        assertTrue(out[0].allowed(), "decided as if admitted, then not written");
        assertFalse(out[1].allowed());
        assertEquals(9, remaining(perSecond, "alice"));
    }

    @Test
    void acquireAll_keysInDifferentSlots_areSentInParallelAndGivenBack(RedisServer redis) {
        // Given two client keys whose Redis keys fall in different slots
        KeyNames names = new KeyNames("sluice", null);
        assertNotEquals(SlotHash.getSlot(names.key("per-second", "alice")),
                SlotHash.getSlot(names.key("per-minute", "global")));
        long before = scriptCalls(redis);
        assertEquals(-1, acquireAll("alice", "global"));
        assertEquals(2, scriptCalls(redis) - before, "one call per slot");

        // When the global limit denies the next request
        int denied = acquireAll("alice", "global");

        // Then the per-second permit taken meanwhile is given back
        assertEquals(1, denied);
        Load.await("the refund", 5_000, () -> remaining(perSecond, "alice") == 9);
    }

    @Test
    void acquireAll_mixedWithAnotherStore_fallsBackToOneAfterTheOther() {
        KeySpace local = ShardedRegistry.builder().clock(clock).build()
                .keySpace("local", FixedWindow.of(1, Duration.ofMinutes(1)));

        assertEquals(-1, acquireAll(perSecond, "bob", local, "bob"));
        assertEquals(1, acquireAll(perSecond, "bob", local, "bob"));

        assertEquals(9, remaining(perSecond, "bob"));
    }
}
