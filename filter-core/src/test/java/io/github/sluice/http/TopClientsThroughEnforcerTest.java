package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.config.SluiceConfig;
import io.github.sluice.key.Keys;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The heavy hitters as an enforcer keeps them: which decisions count, under which key, and the settings. */
class TopClientsThroughEnforcerTest {

    private final EnforcerFixture f = new EnforcerFixture();

    private static void send(Enforcer e, String peer, int times) {
        for (int i = 0; i < times; i++) {
            e.enforce(FakeRequest.get("/").peer(peer)).release();
        }
    }

    @Test
    void byDefault_theClientsMostRefused_areListedHeaviestFirst_andAdmissionsAreNotKept() {
        // Given a limit of 2 per minute per address
        Enforcer e = f.enforcer("per-ip = fixed-window 2/1m key=ip");

        // When one client sends 12 requests, another 5, a third 2 (never refused)
        send(e, "192.0.2.1", 12);
        send(e, "192.0.2.2", 5);
        send(e, "192.0.2.3", 2);

        // Then the refusals are listed by client, heaviest first, exactly (fewer clients than counters)
        PolicyMetrics m = e.metrics().policy("per-ip");
        TopClients.Top top = m.topClients(TopClients.By.DENIED).top(5);
        assertEquals(List.of(new TopClients.Entry("192.0.2.1", 10, 0), new TopClients.Entry("192.0.2.2", 3, 0)),
                top.entries());
        assertEquals(13, top.total());
        assertEquals(m.denied(), top.total());
        assertEquals(20, top.size());
        assertFalse(m.keepsTopClients(TopClients.By.ADMITTED));
        IllegalStateException off = assertThrows(IllegalStateException.class,
                () -> m.topClients(TopClients.By.ADMITTED));
        assertEquals("the top clients by admitted of policy 'per-ip' are not kept: set top-clients-admitted=true"
                + " to keep them", off.getMessage());
    }

    @Test
    void admittedToo_whenAsked_countsAllowedAndShapedRequests() {
        Enforcer e = f.builder("per-ip = fixed-window 2/1m key=ip").topClientsAdmitted(true).build();
        send(e, "192.0.2.1", 3);
        send(e, "192.0.2.2", 1);
        TopClients.Top admitted = e.metrics().policy("per-ip").topClients(TopClients.By.ADMITTED).top(1);
        assertEquals(List.of(new TopClients.Entry("192.0.2.1", 2, 0), new TopClients.Entry("192.0.2.2", 1, 0)),
                admitted.entries());
    }

    @Test
    void topClientsZero_keepsNothing() {
        Enforcer e = f.builder("per-ip = fixed-window 2/1m key=ip").topClients(0).topClientsAdmitted(true).build();
        send(e, "192.0.2.1", 5);
        PolicyMetrics m = e.metrics().policy("per-ip");
        assertFalse(m.keepsTopClients(TopClients.By.DENIED));
        assertEquals("the top clients by denied of policy 'per-ip' are not kept: top-clients is 0 to keep them",
                assertThrows(IllegalStateException.class, () -> m.topClients(TopClients.By.DENIED)).getMessage());
        assertEquals(3, m.denied());
    }

    @Test
    void aKeyLongerThanMaxKeyLength_isListedAsItsDigest_whichKeysHashGivesFromTheRawKey() {
        // Given a policy keyed by an API key, and a client sending a 300-character one
        Enforcer e = f.enforcer("api = fixed-window 1/1m key=header:X-Api-Key");
        String token = "k".repeat(300);
        for (int i = 0; i < 3; i++) {
            e.enforce(FakeRequest.get("/").peer("192.0.2.1").header("X-Api-Key", token)).release();
        }
        // Then the list shows the digest, never the token; the operator maps it back with Keys.hash
        TopClients.Entry entry = e.metrics().policy("api").topClients(TopClients.By.DENIED).top(1).entries().get(0);
        assertTrue(entry.key().startsWith(Keys.HASH_PREFIX), entry.key());
        assertEquals(Keys.hash(token), entry.key());
        assertEquals(2, entry.count());
    }

    @Test
    void aDryRunPolicy_listsTheClientsItWouldHaveRefused() {
        Enforcer e = f.enforcer("trial = fixed-window 1/1m key=ip dry-run");
        send(e, "192.0.2.9", 4);
        assertEquals(List.of(new TopClients.Entry("192.0.2.9", 3, 0)),
                e.metrics().policy("trial").topClients(TopClients.By.DENIED).top(1).entries());
    }

    @Test
    void settings_configureTheSizeAndAdmitted() {
        Enforcer e = SluiceConfig.fromInitParams(Map.of("policies", "per-ip = fixed-window 1/1m key=ip",
                "top-clients", "3", "top-clients-admitted", "true", "listener", "none")::get).build();
        try {
            PolicyMetrics m = e.metrics().policy("per-ip");
            assertEquals(3, m.topClients(TopClients.By.DENIED).size());
            assertTrue(m.keepsTopClients(TopClients.By.ADMITTED));
        } finally {
            e.close();
        }
        Enforcer off = SluiceConfig.fromInitParams(Map.of("policies", "per-ip = fixed-window 1/1m key=ip",
                "top-clients", "0", "listener", "none")::get).build();
        try {
            assertFalse(off.metrics().policy("per-ip").keepsTopClients(TopClients.By.DENIED));
        } finally {
            off.close();
        }
    }

    @Test
    void adminJson_writesTheListWithItsBounds() {
        Enforcer e = f.enforcer("per-ip = fixed-window 1/1m key=header:X-User");
        for (String user : List.of("192.0.2.1", "192.0.2.1", "192.0.2.1", "\"quoted\"", "\"quoted\"")) {
            e.enforce(FakeRequest.get("/").peer("192.0.2.1").header("X-User", user)).release();
        }
        assertEquals("{\"policy\":\"per-ip\",\"by\":\"denied\",\"period\":\"5m\",\"size\":20,\"total\":3,\"bound\":0,"
                + "\"top\":[{\"key\":\"192.0.2.1\",\"count\":2,\"error\":0},{\"key\":\"\\\"quoted\\\"\",\"count\":1,\"error\":0}]}",
                AdminJson.top(e.metrics().policy("per-ip").topClients(TopClients.By.DENIED).top(5)));
    }

    @Test
    void aPolicyChangedAtRunTime_keepsItsHeavyHitters() {
        Enforcer e = f.enforcer("per-ip = fixed-window 1/1m key=ip");
        send(e, "192.0.2.1", 3);
        e.reconfigure(List.of(Policy.parse("per-ip = fixed-window 2/1m key=ip")), io.github.sluice.store.Inheritance.KEEP_CONSUMED);
        send(e, "192.0.2.1", 3); // the one consumed is kept: one more admitted, two refused
        assertEquals(4, e.metrics().policy("per-ip").topClients(TopClients.By.DENIED).top(1).entries().get(0).count());
    }
}
