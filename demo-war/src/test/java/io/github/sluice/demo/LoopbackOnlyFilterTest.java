package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which socket peers the demo's admin guard lets through: loopback literals, nothing else, never a name. */
class LoopbackOnlyFilterTest {

    @Test
    void loopbackLiterals_pass() {
        for (String a : new String[] {"127.0.0.1", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1", "[::1]"}) {
            assertTrue(LoopbackOnlyFilter.loopback(a), a);
        }
    }

    @Test
    void otherAddressesNamesAndJunk_areRefused() {
        for (String a : new String[] {"192.0.2.1", "10.0.0.1", "2001:db8::1", "::ffff:192.0.2.1", "localhost",
                "127.0.0.1, 192.0.2.1", "", "127.0.0.1.evil.example", "unknown", "[::1"}) {
            assertFalse(LoopbackOnlyFilter.loopback(a), a);
        }
        assertFalse(LoopbackOnlyFilter.loopback(null));
    }
}
