package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisCluster;
import io.github.sluice.store.KeySpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A master of a real Redis Cluster killed (SIGKILL) under load: during the gap the failure policy
 * decides for the keys it served, and no call waits past the command timeout (plus the margin
 * that a control run in the same load justifies, as in {@link OutageLatencyTest}); its replica
 * takes over, the client finds it (topology refresh), and the limits counted before the crash
 * hold on it.
 *
 * <p>The test starts a cluster of its own, with a short {@code cluster-node-timeout} so that the
 * failover comes within seconds, and stops it at the end, whatever happened.
 */
class ClusterFailoverTest {

    private static final Clock REAL = Clock.system();
    private static final Duration TIMEOUT = OutageLatencyTest.TIMEOUT;
    /** How long a master may be silent before its replica takes over. */
    private static final long NODE_TIMEOUT_MILLIS = 2_000;
    private static final long MARGIN_FLOOR_MILLIS = 100;
    private static final int THREADS = 8;
    private static final int CONTROL_THREADS = 2;
    private static final long LIMIT = 1_000_000;
    private static final int SMALL = 8;
    private static final KeyNames NAMES = new KeyNames("sluice", null);

    @Test
    void killedMaster_midLoad_failurePolicyInTheGap_replicaTakesOver_limitsHoldAfter() throws Exception {
        FailurePolicy policy = FailurePolicy.failClosed(503);
        try (RedisCluster cluster = RedisCluster.start(NODE_TIMEOUT_MILLIS);
                LogCapture log = LogCapture.start();
                RedisStore store = RedisStore.builder().uri(cluster.uri()).name("failover")
                        .commandTimeout(TIMEOUT).connectTimeout(Duration.ofSeconds(10))
                        .denialCacheSize(0).failurePolicy(policy).build()) {
            assertFalse(store.degraded(), store::toString);
            KeySpace load = store.keySpace("load", TokenBucket.of(Rate.of(LIMIT, Duration.ofSeconds(1))));
            KeySpace small = store.keySpace("small", TokenBucket.of(Rate.of(SMALL, Duration.ofHours(1))));
            // The load's threads use keys client-0 to client-7: the victim serves client-0's
            int victim = cluster.masterOf(NAMES.key("load", "client-0"));
            String exhausted = keyOn(cluster, victim, "small", "exhausted-");
            String during = keyOn(cluster, victim, "small", "during-");

            // Given a quota on the victim used up before the crash, and replicated
            MutableDecision d = new MutableDecision();
            for (int i = 0; i < SMALL; i++) {
                assertTrue(small.acquire(exhausted, 1, d) && !d.degraded(), d::toString);
            }
            cluster.awaitReplicated(victim);

            Load control = new Load(OutageLatencyTest.silentRedis(), CONTROL_THREADS, x -> true, 1_000_000);
            Load running = new Load(load, THREADS,
                    x -> !x.allowed() && x.denialStatus() == 503 && x.retryAfterNanos() > 0, 1_000_000);
            List<MutableDecision> gap = new ArrayList<>();
            long failoverNanos;
            try (running; control) {
                Load.await("decisions from Redis", 10_000, () -> running.authoritative.get() >= 200);

                // When the victim dies mid-load
                long killed = REAL.nanos();
                cluster.kill(victim);

                // Then its keys follow the failure policy during the gap
                Load.await("degraded decisions for the victim's keys", 5_000, () -> {
                    MutableDecision x = new MutableDecision();
                    small.acquire(during, 1, x);
                    if (x.degraded()) {
                        gap.add(x);
                    }
                    return gap.size() >= 4;
                });

                // And its replica takes over, and the store finds it
                Load.await("the replica to take over", 30_000, () -> cluster.masters().size() == 3);
                Load.await("decisions from Redis for the victim's keys", 20_000, () -> {
                    MutableDecision x = new MutableDecision();
                    small.acquire(during, 0, x);
                    return !x.degraded();
                });
                failoverNanos = REAL.nanos() - killed;
                long before = running.authoritative.get();
                Load.await("the load decided by Redis again", 10_000,
                        () -> running.authoritative.get() >= before + 100);
            }

            Load.Latencies l = running.latencies();
            long excess = Math.max(0, control.latencies().max() - TIMEOUT.toNanos());
            long bound = TIMEOUT.toNanos() + Math.max(MARGIN_FLOOR_MILLIS * 1_000_000L, 2 * excess);
            System.out.printf("failover: requests %s, %d hung, %d degraded | control %s | Redis decided"
                    + " again %.0f ms after the kill%n", l, running.hung(), running.degraded.get(),
                    control.latencies(), failoverNanos / 1e6);
            // No call waited past the timeout, none threw, and the failure policy decided
            assertTrue(running.errors.isEmpty(), () -> "exceptions reached the caller: " + running.errors);
            assertEquals(0, running.hung(), "calls hung");
            assertTrue(l.max() <= bound, String.format("slowest call %.1f ms > %.1f ms", l.max() / 1e6,
                    bound / 1e6));
            assertTrue(running.degraded.get() > 0, "the crash was not seen");
            assertEquals(0, running.violations.get(), running.violationSamples::toString);
            for (MutableDecision x : gap) {
                assertFalse(x.allowed(), x::toString);
                assertEquals(503, x.denialStatus(), x::toString);
            }

            // And the store did not recover before every slot had a master again: a recovery on
            // the client's map without the failed node fails on the first key of its slots
            Load.await("the log lines", 5_000, () -> log.lines().stream().anyMatch(
                    x -> x.message().contains("recovered")));
            assertTrue(log.lines().stream().noneMatch(x -> x.message().contains("is degraded")
                    && x.message().contains("Cannot determine a partition")), () -> log.lines().toString());

            // And the quota used up before the crash is still used up on the new master
            int promoted = cluster.masterOf(NAMES.key("small", exhausted));
            assertNotEquals(victim, promoted);
            MutableDecision after = new MutableDecision();
            assertFalse(small.acquire(exhausted, 1, after), after::toString);
            assertFalse(after.degraded(), after::toString);
            // And the new master admits exactly the limit under contention
            OutageLatencyTest.assertExactlyTheLimitUnderContention(store,
                    round -> keyOn(cluster, promoted, "after", "fresh-" + round + "-"));
        }
    }

    /** @return the first key {@code <stem><n>} of the policy that the given master serves */
    private static String keyOn(RedisCluster cluster, int master, String policy, String stem) {
        for (int n = 0; ; n++) {
            String key = stem + n;
            if (cluster.masterOf(NAMES.key(policy, key)) == master) {
                return key;
            }
        }
    }
}
