package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.Test;

/** The MXBean, read as a JMX client reads it: through the platform MBean server, by name. */
class EnforcerJmxTest {

    private final EnforcerFixture f = new EnforcerFixture();
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    void registeredEnforcer_showsItsCountsKeysAndPoliciesThroughThePlatformServer() throws Exception {
        // Given an enforcer with a rate limit, a dry-run limit and a concurrency limit, registered
        Enforcer e = f.enforcer("rate = token-bucket 2/1m key=ip", "trial = token-bucket 1/1m key=ip dry-run",
                "slots = concurrency 5 key=global");
        ObjectName name = EnforcerJmx.register(e, "jmx-test-counts");
        try {
            // When client A sends 3 requests (the third refused) and B one, which it keeps in flight
            e.enforce(FakeRequest.get("/").peer("192.0.2.1")).release();
            e.enforce(FakeRequest.get("/").peer("192.0.2.1")).release();
            e.enforce(FakeRequest.get("/").peer("192.0.2.1")).release();
            e.enforce(FakeRequest.get("/").peer("192.0.2.2"));

            // Then
            assertEquals(new ObjectName("io.github.sluice:type=Enforcer,name=jmx-test-counts"), name);
            assertEquals(Map.of("rate", 3L, "trial", 2L, "slots", 3L), table(name, "Allowed"));
            assertEquals(Map.of("rate", 1L, "slots", 0L), table(name, "Denied"));
            assertEquals(Map.of("trial", 1L), table(name, "DryRunDenied"));
            assertEquals(Map.of("slots", 2L), table(name, "Released"));
            assertEquals(Map.of("slots", 1L), table(name, "InFlight"));
            assertEquals(Map.of("slots", 0L), table(name, "UnmatchedReleases"));
            assertEquals(Map.of("rate", 2L, "trial", 2L, "slots", 1L), table(name, "Keys"));
            assertEquals(5L, server.getAttribute(name, "KeyCount"));
            String[] policies = (String[]) server.getAttribute(name, "Policies");
            assertEquals(3, policies.length);
            assertTrue(policies[1].contains("trial") && policies[1].contains("dry-run"), policies[1]);
            assertArrayEquals(new String[0], (String[]) server.getAttribute(name, "DegradedStores"));
            assertEquals(e.description(), server.getAttribute(name, "Description"));
            String description = (String) server.getAttribute(name, "Description");
            assertTrue(description.contains("rate = token-bucket 2/1m key=ip"), description);
            // And the operation topClients lists the refused client, as the admin endpoint does
            String[] signature = {String.class.getName(), String.class.getName(), String.class.getName()};
            assertEquals("{\"policy\":\"rate\",\"by\":\"denied\",\"period\":\"5m\",\"size\":20,\"total\":1,"
                    + "\"bound\":0,\"top\":[{\"key\":\"192.0.2.1\",\"count\":1,\"error\":0}]}",
                    server.invoke(name, "topClients", new Object[] {"rate", "denied", "5m"}, signature));
            javax.management.RuntimeMBeanException unknown = org.junit.jupiter.api.Assertions.assertThrows(
                    javax.management.RuntimeMBeanException.class,
                    () -> server.invoke(name, "topClients", new Object[] {"nope", "denied", "5m"}, signature));
            assertEquals("no policy 'nope'", unknown.getCause().getMessage());
        } finally {
            e.close();
        }
    }

    /**
     * Issue 28, item 7: an adaptive policy's current limit, and each partition's share of it, can
     * be graphed: through {@link PolicyMetrics} and JMX, following the limit as it moves.
     */
    @Test
    void adaptiveGlobalPolicy_currentLimitAndPartitionShares_followTheLimit() throws Exception {
        Enforcer e = f.enforcer("api = adaptive aimd min=5 max=100 initial=20 samples=1 key=global"
                        + " partition=attribute:tier partitions=paid:70,free:30",
                "per-ip = adaptive aimd initial=20 key=ip", "rate = token-bucket 2/1m key=ip");
        ObjectName name = EnforcerJmx.register(e, "jmx-test-adaptive");
        try {
            PolicyMetrics api = e.metrics().policy("api");
            assertTrue(api.adaptive());
            assertEquals(20, api.adaptiveLimit(), "the initial limit before any request");
            assertEquals(java.util.List.of("paid", "free"), api.adaptivePartitions());
            assertEquals(14, api.adaptivePartitionLimit("paid"));
            assertEquals(6, api.adaptivePartitionLimit("free"));
            assertEquals(-1, api.adaptivePartitionLimit("gold"));
            assertEquals(Map.of("api", 20L), table(name, "AdaptiveLimit"));
            assertEquals(Map.of("api/paid", 14L, "api/free", 6L), table(name, "AdaptivePartitionLimit"));

            // When a request ends in a drop (503), AIMD cuts the limit by its backoff of 0.9
            e.enforce(FakeRequest.get("/").peer("192.0.2.1")).release(503);

            assertEquals(18, api.adaptiveLimit());
            assertEquals(13, api.adaptivePartitionLimit("paid"), "ceil(0.7 x 18)");
            assertEquals(6, api.adaptivePartitionLimit("free"), "ceil(0.3 x 18)");
            assertEquals(Map.of("api", 18L), table(name, "AdaptiveLimit"));
            assertEquals(Map.of("api/paid", 13L, "api/free", 6L), table(name, "AdaptivePartitionLimit"));

            // A per-client adaptive policy has one limit per key, which no single gauge shows
            PolicyMetrics perIp = e.metrics().policy("per-ip");
            assertFalse(perIp.adaptive());
            assertEquals(-1, perIp.adaptiveLimit());
            assertEquals(-1, e.metrics().policy("rate").adaptiveLimit());
        } finally {
            e.close();
        }
    }

    @Test
    void closingTheEnforcer_unregistersItsMBean() throws Exception {
        Enforcer e = f.enforcer("rate = token-bucket 2/1m key=ip");
        ObjectName name = EnforcerJmx.register(e, "jmx-test-close");
        assertTrue(server.isRegistered(name));

        e.close();
        e.close(); // closing twice is harmless

        assertFalse(server.isRegistered(name));
        Enforcer again = f.enforcer("rate = token-bucket 2/1m key=ip");
        EnforcerJmx.register(again, "jmx-test-close"); // the name is free again
        again.close();
        assertFalse(server.isRegistered(name));
    }

    @Test
    void aNameInUse_orMalformed_isRefusedWithTheName() {
        Enforcer first = f.enforcer("rate = token-bucket 2/1m key=ip");
        Enforcer second = f.enforcer("rate = token-bucket 2/1m key=ip");
        EnforcerJmx.register(first, "jmx-test-twice");
        try {
            IllegalArgumentException taken = assertThrows(IllegalArgumentException.class,
                    () -> EnforcerJmx.register(second, "jmx-test-twice"));
            assertEquals("name must be unique but an MBean named 'jmx-test-twice' is already registered"
                    + " (io.github.sluice:type=Enforcer,name=jmx-test-twice)", taken.getMessage());
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> EnforcerJmx.register(second, "a,type=Other"));
            assertEquals("name must be 1 to 64 of [A-Za-z0-9._-] but was 'a,type=Other'", bad.getMessage());
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void degradedStore_isListedUntilItRecovers() throws Exception {
        EnforcerMetrics metrics = EnforcerMetrics.builder().clock(f.clock).build();
        Enforcer e = f.builder("rate = token-bucket 2/1m key=ip").listener(metrics).build();
        ObjectName name = EnforcerJmx.register(e, "jmx-test-degraded");
        try {
            metrics.storeDegraded("redis", null);
            assertArrayEquals(new String[] {"redis"}, (String[]) server.getAttribute(name, "DegradedStores"));
            metrics.storeRecovered("redis");
            assertArrayEquals(new String[0], (String[]) server.getAttribute(name, "DegradedStores"));
        } finally {
            e.close();
        }
    }

    /** An MXBean map attribute, as the open type a JMX client receives. */
    private Map<String, Long> table(ObjectName name, String attribute) throws Exception {
        TabularData data = (TabularData) server.getAttribute(name, attribute);
        Map<String, Long> out = new LinkedHashMap<>();
        for (Object row : data.values()) {
            CompositeData c = (CompositeData) row;
            out.put((String) c.get("key"), (Long) c.get("value"));
        }
        return out;
    }
}
