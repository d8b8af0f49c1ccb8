package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The targeted-eviction attack: a client uses up its quota on a key K (say the login limit of one
 * user name), then floods the registry with junk keys to push K out, so that K comes back fresh
 * with a whole new quota.
 *
 * <p>The registry holds {@value #MAX_KEYS} keys in {@value #SHARDS} shards. Before issue 12 a shard
 * held at most {@code MAX_KEYS / SHARDS} = 256 keys, was chosen from {@code String.hashCode}, and
 * dropped its least recently used key. Measured on that code with this test, the same for every
 * algorithm: K was reset by {@value #BEFORE} junk requests on keys sharing K's hash code (computed
 * offline), one request each; 741 with such keys as consumed as K; 2,953 with plain distinct keys;
 * 14,656 with plain keys as consumed as K; 14,276 with 60% of the policy pre-filled. The registry
 * must now withstand a hundred times the cheapest of these, {@value #BUDGET} junk requests,
 * whatever the flood looks like.
 *
 * <p>The cheapest flood known against the new registry fills it with keys as consumed as K
 * <em>before</em> K is used (so that K is the newest among equals): {@code MAX_KEYS * LIMIT} =
 * 20,480 requests for the filling alone, more than the budget. Filling part of it leaves K among
 * less consumed keys that are dropped before it.
 */
class TargetedEvictionTest {

    private static final int MAX_KEYS = 4096;
    private static final int SHARDS = 16;
    private static final int BEFORE = 149;
    private static final int BUDGET = 100 * BEFORE;
    private static final int LIMIT = 5;
    private static final String VICTIM = "alice";
    private static final Duration WINDOW = Duration.ofMinutes(15);

    /** How the attacker spends its junk requests. */
    enum Flood {
        /** One request per junk key, every junk key sharing the victim's {@code String.hashCode}. */
        COLLIDING_LIGHT(1),
        /** As many requests per colliding junk key as the victim's quota: junk as heavy as K. */
        COLLIDING_HEAVY(LIMIT),
        /** One request per junk key, plain distinct keys (spoofed addresses). */
        SPREAD_LIGHT(1),
        /** A whole quota per plain junk key. */
        SPREAD_HEAVY(LIMIT),
        /**
         * A whole quota per colliding junk key, 60% of the policy filled with them before K is used
         * (so that K is newer than they are), then more of them.
         */
        PREFLOOD_HEAVY(LIMIT);

        final int perKey;

        Flood(int perKey) {
            this.perKey = perKey;
        }

        String key(Collisions collisions, int i) {
            return this == SPREAD_LIGHT || this == SPREAD_HEAVY ? "10.9." + i : collisions.get(i);
        }
    }

    static Stream<Arguments> attacks() {
        List<Algorithm<?>> algorithms = List.of(
                FixedWindow.of(LIMIT, WINDOW),
                FixedWindow.builder().limit(LIMIT).window(WINDOW)
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                TokenBucket.of(Rate.of(LIMIT, WINDOW)),
                Gcra.of(Rate.of(LIMIT, WINDOW)),
                SlidingWindow.of(LIMIT, WINDOW),
                SlidingLog.builder().limit(LIMIT).window(WINDOW).build(),
                LeakyBucket.builder().capacity(LIMIT).rate(Rate.of(LIMIT, WINDOW)).build());
        List<Arguments> cases = new ArrayList<>();
        for (Algorithm<?> algorithm : algorithms) {
            for (Flood flood : Flood.values()) {
                cases.add(Arguments.of(algorithm, flood));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("attacks")
    void exhaustedKey_floodOfJunkKeys_isNotForgottenWithinAHundredTimesTheOldCost(
            Algorithm<?> algorithm, Flood flood) {
        // Given a registry at its bound, full of users who made one request each
        FakeClock clock = new FakeClock();
        AtomicLong victimDroppedAt = new AtomicLong(-1);
        AtomicLong requests = new AtomicLong();
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).maxKeys(MAX_KEYS)
                .shards(SHARDS).listener((policy, key, lossless) -> {
                    if (key.equals(VICTIM) && victimDroppedAt.get() < 0) {
                        victimDroppedAt.set(requests.get());
                    }
                }).build();
        KeySpace space = registry.keySpace("login", algorithm);
        MutableDecision out = new MutableDecision();
        for (int i = 0; i < MAX_KEYS; i++) {
            space.acquire("user-" + i, 1, out);
            clock.advanceNanos(1_000_000L);
        }
        // and an attacker who used up the victim's quota a few seconds ago (after filling the
        // registry with junk keys as consumed as the victim will be, for the PREFLOOD_HEAVY flood)
        int k = 0;
        Collisions collisions = new Collisions(VICTIM, 16);
        if (flood == Flood.PREFLOOD_HEAVY) {
            for (; k < MAX_KEYS * 6 / 10; k++) {
                for (int c = 0; c < LIMIT; c++) {
                    requests.incrementAndGet();
                    space.acquire(flood.key(collisions, k), 1, out);
                    clock.advanceNanos(1_000_000L);
                }
            }
        }
        for (int i = 0; i < LIMIT; i++) {
            assertTrue(space.acquire(VICTIM, 1, out));
        }
        assertFalse(space.acquire(VICTIM, 1, out));
        clock.advance(Duration.ofSeconds(3));

        // When the attacker sends up to a hundred times the junk that reset the victim before
        for (; requests.get() < BUDGET && victimDroppedAt.get() < 0; k++) {
            String junk = flood.key(collisions, k);
            for (int c = 0; c < flood.perKey && requests.get() < BUDGET; c++) {
                requests.incrementAndGet();
                space.acquire(junk, 1, out);
                clock.advanceNanos(1_000_000L);
            }
        }

        // Then the victim was never dropped: it is still refused
        assertTrue(victimDroppedAt.get() < 0,
                () -> "the victim was forgotten after " + victimDroppedAt.get() + " junk requests");
        assertFalse(space.acquire(VICTIM, 1, out), "the victim's quota came back");
    }
}
