package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.LoggingListenerTest.Recording;
import java.lang.System.Logger.Level;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The start-up line flags every choice a client makes through a header it writes itself: a
 * partition ({@code partition=header:X-Tier} lets any client claim the paid share) and an
 * allow-list exemption on a header key; and stays quiet for the safe forms.
 */
class StartupLineWarningsTest {

    private static final String ADAPTIVE = "tier = adaptive aimd latency=250ms key=global partitions=paid:70,free:30 ";

    @Test
    void partitionFromAHeader_isFlaggedInTheLineAndAtWarning() {
        Recording log = new Recording(Level.INFO);
        try (Enforcer e = new EnforcerFixture().builder(ADAPTIVE + "partition=header:X-Tier")
                .listener(new LoggingListener(log)).build()) {
            assertTrue(e.description().contains("; WARNING: policy 'tier' partition chosen by client-writable header"
                    + " X-Tier: any client can claim any partition's share"), e.description());
            assertEquals(2, log.lines.size(), log.lines::toString);
            assertTrue(log.lines.get(0).startsWith("INFO Sluice enforcer: policies ["));
            assertTrue(log.lines.get(1).startsWith("WARNING Sluice enforcer: policy 'tier' partition chosen by"
                    + " client-writable header X-Tier"), log.lines.get(1));
        }
    }

    @Test
    void partitionFromAChainHoldingAHeader_isFlagged() {
        assertEquals(1, warnings(ADAPTIVE + "partition=attribute:tier|header:X-Tier").size());
    }

    @Test
    void allowListedKeysOnAHeaderKey_areFlagged() {
        List<String> w = warnings("partners = sliding-window 100/1h key=principal|header:X-Api-Key allow=internal-key");

        assertEquals(1, w.size(), w::toString);
        assertTrue(w.get(0).startsWith("policy 'partners' exempts allow-listed keys read from client-writable header"
                + " X-Api-Key"), w.get(0));
    }

    @Test
    void safeForms_areNotFlagged() {
        for (String policy : new String[] {
            ADAPTIVE + "partition=attribute:tier",
            ADAPTIVE + "partition=principal",
            "per-key = token-bucket 10/1s key=header:X-Api-Key",
            "per-ip = token-bucket 10/1s key=ip allow=10.0.0.0/8",
            "per-user = token-bucket 10/1s key=principal allow=admin",
        }) {
            try (Enforcer e = new EnforcerFixture().enforcer(policy)) {
                assertEquals(List.of(), StartupLine.warnings(e), policy);
                assertFalse(e.description().contains("WARNING"), e.description());
            }
        }
    }

    private static List<String> warnings(String policy) {
        try (Enforcer e = new EnforcerFixture().enforcer(policy)) {
            return StartupLine.warnings(e);
        }
    }
}
