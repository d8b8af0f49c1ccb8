package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.Store;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.ForwardingKeySpace;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.JulRecording;
import io.github.sluice.testing.ReleaseLedger;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A release that matches nothing the key holds (a request released twice, or without an
 * admission) is never silent: the store reports it, the metrics count it, the first is logged. The
 * clamp at zero alone would hide the over-admission behind it; and the test ledger finds it too.
 */
class UnmatchedReleaseTest {

    private final FakeClock clock = new FakeClock();
    private final ShardedRegistry registry = ShardedRegistry.builder().clock(clock).build();
    /** The messages logged to {@code io.github.sluice}, formatted, with their level: {@code "WARNING policy ..."}. */
    private List<String> logged;
    private JulRecording recording;

    @BeforeEach
    void listen() throws ReflectiveOperationException {
        recording = JulRecording.start();
        logged = recording.lines;
    }

    @AfterEach
    void stopListening() throws ReflectiveOperationException {
        recording.close();
    }

    @Test
    void concurrencyRelease_moreThanHeld_clampsAndReturnsTheUnmatchedPermits() {
        Concurrency c = Concurrency.of(5);
        Concurrency.PermitCell cell = c.newCell(0);
        assertEquals(Algorithm.ADMITTED, c.acquire(cell, 0, 2, null));

        assertEquals(0, c.release(cell, 0, 1), "matched");
        assertEquals(2, c.release(cell, 0, 3), "one of three held");
        assertEquals(0, cell.inFlight(), "clamped at zero");
        assertEquals(4, c.release(cell, 0, 4), "nothing held");
        assertEquals(0, c.release(cell, 0, 0));
    }

    @Test
    void registryRelease_ofAKeyWithNoState_isUnmatched() {
        KeySpace space = registry.keySpace("slots", Concurrency.of(2));
        assertEquals(1, space.release("never-seen", 1, MutableDecision.NO_RECEIPT, false));
        assertTrue(space.acquire("k", 1, new MutableDecision()));
        assertEquals(0, space.release("k", 1, MutableDecision.NO_RECEIPT, false));
        assertEquals(1, space.release("k", 1, MutableDecision.NO_RECEIPT, false), "the second release of one admission");
    }

    @Test
    void doubleRelease_atTheStore_isCountedInTheMetricsAndJmx_andLoggedOncePerPolicy() {
        // Given a concurrency limit of 2 on a store that gives every release back twice (the audit's mutation)
        Enforcer e = Enforcer.builder().policies("slots = concurrency 2 key=global").store(doubling(registry))
                .listener(EnforcementListener.NONE).build();
        PolicyMetrics slots = e.metrics().policy("slots");

        // When two requests hold both permits and the first ends: its double release frees the other's permit unseen
        Verdict a = e.enforce(FakeRequest.get("/"));
        Verdict b = e.enforce(FakeRequest.get("/"));
        a.release();
        assertEquals(0, slots.unmatchedReleases(), "while another request holds a permit the store cannot tell");
        Verdict c = e.enforce(FakeRequest.get("/"));
        assertTrue(c.admitted(), "the over-admission the clamp hides: a third request of a limit of 2");

        // Then the next releases find nothing to match, and each is counted, the first logged
        b.release();
        c.release();
        assertEquals(2, slots.unmatchedReleases());
        assertEquals(3, slots.released(), "each request released once by the enforcer's count");
        assertEquals("{slots=2}", String.valueOf(jmxUnmatched(e)));
        List<String> warnings = logged.stream().filter(m -> m.contains("did not hold")).toList();
        assertEquals(1, warnings.size(), "logged once: " + logged);
        assertTrue(warnings.get(0).startsWith("WARNING policy 'slots': a release gave back 1 permit(s)"), warnings.get(0));
    }

    @Test
    void doubleRelease_isFoundByTheLedger_whereTheStoreCannotTell() {
        // Given the ledger between the doubling store and the registry
        ReleaseLedger ledger = ReleaseLedger.over(registry);
        Enforcer e = Enforcer.builder().policies("slots = concurrency 2 key=global").store(doubling(ledger))
                .listener(EnforcementListener.NONE).build();

        // When one of two requests that hold permits is released (twice, by the store wrapper)
        Verdict a = e.enforce(FakeRequest.get("/"));
        Verdict b = e.enforce(FakeRequest.get("/"));
        a.release();

        // Then the store saw nothing unmatched, but the ledger's count says no request runs while one does
        assertEquals(0, e.metrics().policy("slots").unmatchedReleases());
        assertEquals(0, ledger.held("slots", "global"));
        assertThrows(AssertionError.class,
                () -> ledger.awaitHeld("slots", "global", 1, java.time.Duration.ZERO));
        // And the next release is a violation at the moment it happens
        b.release();
        assertFalse(ledger.violations().isEmpty());
        AssertionError failed = assertThrows(AssertionError.class, ledger::assertBalanced);
        assertTrue(failed.getMessage().contains("without a matching admission"), failed.getMessage());
    }

    @Test
    void matchedReleases_areNeverCounted_norLogged() {
        Enforcer e = Enforcer.builder().policies("slots = concurrency 2 key=global").store(registry)
                .listener(EnforcementListener.NONE).build();
        for (int i = 0; i < 100; i++) {
            Verdict v = e.enforce(FakeRequest.get("/"));
            v.release();
            v.release();
            v.releaseFailed();
        }
        assertEquals(0, e.metrics().policy("slots").unmatchedReleases());
        assertEquals(100, e.metrics().policy("slots").released());
        assertTrue(logged.stream().noneMatch(m -> m.contains("did not hold")), logged.toString());
    }

    /** @return the UnmatchedReleases attribute of the enforcer's MXBean, through the platform server */
    private static Object jmxUnmatched(Enforcer e) {
        try {
            javax.management.ObjectName name = EnforcerJmx.register(e, "unmatched-release-test");
            try {
                Object table = java.lang.management.ManagementFactory.getPlatformMBeanServer()
                        .getAttribute(name, "UnmatchedReleases");
                java.util.Map<String, Object> out = new java.util.TreeMap<>();
                for (Object row : ((javax.management.openmbean.TabularData) table).values()) {
                    javax.management.openmbean.CompositeData d = (javax.management.openmbean.CompositeData) row;
                    out.put((String) d.get("key"), d.get("value"));
                }
                return out;
            } finally {
                java.lang.management.ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            }
        } catch (javax.management.JMException ex) {
            throw new AssertionError(ex);
        }
    }

    /** A store whose releases are each given back twice: the double release the audit introduced. */
    private static Store doubling(Store target) {
        return new Store() {
            @Override
            public KeySpace keySpace(String name, Algorithm<?> algorithm) {
                KeySpace inner = target.keySpace(name, algorithm);
                return new ForwardingKeySpace(inner) {
                    @Override
                    public void release(String key, long cost) {
                        release(key, cost, MutableDecision.NO_RECEIPT, false);
                    }

                    @Override
                    public long release(String key, long cost, long receipt, boolean dropped) {
                        return inner.release(key, cost, receipt, dropped) + inner.release(key, cost, receipt, dropped);
                    }
                };
            }
        };
    }
}
