package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.store.Inheritance;
import io.github.sluice.testing.FakeRequest;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * An operator's tools while a changed policy carries its keys over ({@link Enforcer#reconfigure}):
 * the attack of issue 25 end to end, and reset, inspect and every listing at that moment.
 */
class OperatorToolsDuringCarryOverTest {

    private final EnforcerFixture f = new EnforcerFixture();
    private final FakeRequest client = FakeRequest.get("/").peer("192.0.2.1");

    private int admit(Enforcer e, int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            if (e.enforce(client).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void reconfigure_fivePerHourRaisedToSixAndBackWhileTheClientIsIdle_clientStaysRefused() {
        // Given a client that spent its 5 of 5/h
        Enforcer e = f.enforcer("per-ip = fixed-window 5/1h key=ip");
        assertEquals(5, admit(e, 5));

        // When the operator raises the limit to 6/h and puts it back while the client is idle
        f.clock.advance(Duration.ofMinutes(1));
        e.reconfigure("per-ip = fixed-window 6/1h key=ip", Inheritance.KEEP_CONSUMED);
        f.clock.advance(Duration.ofMinutes(1));
        e.reconfigure("per-ip = fixed-window 5/1h key=ip", Inheritance.KEEP_CONSUMED);

        // Then it gets nothing more (it got 5 more before: the second change dropped the first generation)
        assertEquals(0, admit(e, 5));
    }

    @Test
    void reset_duringCarryOver_liftsTheLimit_andTheClientIsAdmitted() {
        // Given a client refused under 5/h, and a change it has not come back since
        Enforcer e = f.enforcer("per-ip = fixed-window 5/1h key=ip", "other = token-bucket 9/1h key=ip");
        assertEquals(5, admit(e, 6));
        e.reconfigure("per-ip = fixed-window 4/1h key=ip\nother = token-bucket 9/1h key=ip", Inheritance.KEEP_CONSUMED);
        assertEquals(0, admit(e, 1));

        // When the operator resets the key (this threw UnsupportedOperationException: 501, 500)
        List<String> reset = e.reset("192.0.2.1");

        // Then both policies forgot it, and the client is admitted up to the new limit
        assertEquals(List.of("per-ip", "other"), reset);
        assertEquals(4, admit(e, 5));
    }

    @Test
    void resetOfOnePolicy_duringCarryOver_forgetsTheOldGenerationToo() {
        Enforcer e = f.enforcer("per-ip = token-bucket 5/1h key=ip");
        assertEquals(5, admit(e, 5));
        e.reconfigure("per-ip = token-bucket 6/1h key=ip", Inheritance.KEEP_CONSUMED);

        assertTrue(e.reset("192.0.2.1", "per-ip"));
        // A second change folds the old generation into the current one: nothing of the client is left to fold
        e.reconfigure("per-ip = token-bucket 5/1h key=ip", Inheritance.KEEP_CONSUMED);

        assertEquals(5, admit(e, 6));
    }

    @Test
    void inspect_duringCarryOver_readsWhatTheKeyCarries_andCreatesNoState() {
        Enforcer e = f.enforcer("per-ip = fixed-window 5/1h key=ip");
        assertEquals(3, admit(e, 3));
        e.reconfigure("per-ip = fixed-window 10/1h key=ip", Inheritance.KEEP_CONSUMED);
        long keys = e.spaceArray()[0].size();

        KeyState state = e.inspect("192.0.2.1", "per-ip");
        KeyState stranger = e.inspect("198.51.100.7").get(0);

        assertEquals(new KeyState("per-ip", "fixed-window", false, 10, 7, state.resetSeconds()), state);
        assertTrue(state.resetSeconds() > 0, "the carried window's end");
        assertEquals(10, stranger.remaining());
        assertEquals(keys, e.spaceArray()[0].size(), "an inspection keeps nothing");
        assertEquals(7, admit(e, 10), "and the key is decided as it read");
    }

    @Test
    void listings_afterAReload_showThePoliciesInForce() throws Exception {
        // Given an enforcer registered in JMX, a request counted, and a reload that changes a policy
        // and removes another
        Enforcer e = f.enforcer("per-ip = fixed-window 5/1h key=ip", "gone = token-bucket 9/1h key=ip");
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = EnforcerJmx.register(e, "carry-over-listings");
        try {
            assertEquals(1, admit(e, 1));
            e.reconfigure("per-ip = fixed-window 6/1h key=ip status=503", Inheritance.KEEP_CONSUMED);

            // Then the admin document (servlet), the counters' policy (actuator) and JMX show the new version
            String json = AdminJson.policies(e);
            assertTrue(json.contains("\"policy\":\"per-ip = fixed-window 6/1h key=ip status=503\""), json);
            assertTrue(json.contains("\"limit\":6"), json);
            assertTrue(json.contains("\"allowed\":1"), "the counters of the name are kept: " + json);
            assertFalse(json.contains("gone"), "a removed policy is not in force: " + json);
            assertEquals(e.policies().get(0), e.metrics().policy("per-ip").policy());
            String[] jmx = (String[]) server.getAttribute(name, "Policies");
            assertEquals(1, jmx.length);
            assertTrue(jmx[0].contains("6/1h") || jmx[0].contains("limit=6"), jmx[0]);
        } finally {
            e.close();
        }
    }
}
