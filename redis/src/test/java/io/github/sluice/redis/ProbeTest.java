package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.redis.testing.TcpProxy;
import io.github.sluice.store.KeySpace;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The probe closes the breaker only when Redis runs the script again, and replaces a connection
 * that has gone silent without being closed.
 */
@ExtendWith(RedisServerExtension.class)
class ProbeTest {

    private static final Clock REAL = Clock.system();
    private static final Duration TIMEOUT = Duration.ofMillis(50);
    private static final long LIMIT = 1_000_000;

    @Test
    void silentConnection_noResetEver_isReplacedAndTheStoreRecovers(RedisServer redis) throws Exception {
        RecordingListener listener = new RecordingListener();
        try (TcpProxy proxy = new TcpProxy(redis.port());
                RedisStore store = RedisStore.builder().uri(proxy.uri()).commandTimeout(TIMEOUT)
                        .connectTimeout(Duration.ofMillis(300)).listener(listener).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.of(Rate.perSecond(LIMIT)));
            MutableDecision out = new MutableDecision();
            assertTrue(space.acquire("k", 1, out) && !out.degraded());

            // When the connection goes silent: no reply, no reset, no close (the server's host
            // froze or vanished; a firewall drops its packets), while Redis itself is fine
            proxy.silenceExisting();
            Load.await("the breaker to open", 5_000, () -> {
                space.acquire("k", 1, out);
                return store.degraded();
            });

            // Then the store gives up on that connection, opens another, and recovers by itself
            long recovery = Load.await("recovery on a new connection", 10_000, () -> !store.degraded());
            System.out.printf("silent connection: recovered %.0f ms after the breaker opened, %d"
                    + " connections%n", recovery / 1e6, proxy.accepted());
            assertTrue(space.acquire("k", 1, out), out::toString);
            assertFalse(out.degraded());
            assertTrue(proxy.accepted() >= 2, "connections: " + proxy.accepted());
            Load.await("the events", 5_000, () -> listener.recovered.get() == 1);
            assertEquals(1, listener.degraded.get(), listener.events::toString);
        }
    }

    @Test
    void demotedToAReadOnlyReplica_pingAnswersWritesRefused_breakerStaysOpen(RedisServer redis)
            throws Exception {
        RecordingListener listener = new RecordingListener();
        int nowhere;
        try (ServerSocket s = new ServerSocket(0)) {
            nowhere = s.getLocalPort();
        }
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(TIMEOUT)
                .failurePolicy(FailurePolicy.failClosed(503)).listener(listener).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.of(Rate.perSecond(LIMIT)));
            try (Load load = new Load(space, 2, d -> !d.allowed() && d.denialStatus() == 503, 1_000_000)) {
                Load.await("decisions from Redis", 5_000, () -> load.authoritative.get() >= 20);

                // When a failover demotes the server to a replica: it answers PING, refuses writes
                redis.call("REPLICAOF", "127.0.0.1", Integer.toString(nowhere));
                try {
                    Load.await("the breaker to open", 5_000, store::degraded);
                    long since = REAL.nanos();
                    // (the real server's timing is what is under test)
                    Load.await("1.5 s as a replica", 5_000, () -> REAL.nanos() - since > 1_500_000_000L);
                } finally {
                    redis.call("REPLICAOF", "NO", "ONE");
                }
                Load.await("recovery", 5_000, () -> !store.degraded());
                long before = load.authoritative.get();
                Load.await("decisions from Redis again", 5_000, () -> load.authoritative.get() > before + 20);
                load.stop();

                // Then the breaker did not close on every PONG only to reopen on the next
                // refused write: one outage was told, not one per probe
                Load.await("the events", 5_000, () -> listener.recovered.get() == listener.degraded.get());
                System.out.printf("read-only replica for 1.5 s: %d degradations told%n", listener.degraded.get());
                assertTrue(listener.degraded.get() <= 2, listener.events::toString);
                assertEquals(0, load.violations.get(), load.violationSamples::toString);
            }
        }
    }
}
