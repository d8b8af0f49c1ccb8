package io.github.sluice.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CidrTest {

    @Test
    void contains_ipv4Network_matchesItsAddressesAndTheirMappedForms() {
        Cidr net = Cidr.parse("10.0.0.0/8");

        assertTrue(net.contains("10.255.1.2"));
        assertTrue(net.contains("::ffff:10.1.2.3"));
        assertFalse(net.contains("11.0.0.1"));
        assertFalse(net.contains("garbage"));
        assertFalse(net.contains(null));
    }

    @Test
    void contains_ipv6Network_matchesByPrefix() {
        Cidr net = Cidr.parse("2001:db8::/32");

        assertTrue(net.contains("2001:db8:ffff::1"));
        assertFalse(net.contains("2001:db9::1"));
        assertFalse(net.contains("10.0.0.1"));
    }

    @Test
    void parse_bareAddressAndHostBits_normalise() {
        assertEquals("192.0.2.7/32", Cidr.parse("192.0.2.7").toString());
        assertEquals("10.0.0.0/8", Cidr.parse("10.1.2.3/8").toString());
        assertEquals("2001:db8::/32", Cidr.parse("2001:db8:1::/32").toString());
        assertEquals(Cidr.parse("10.0.0.0/8"), Cidr.parse(" 10.9.9.9/8 "));
        assertEquals(0, Cidr.parse("0.0.0.0/0").prefix());
        assertTrue(Cidr.parse("0.0.0.0/0").contains("203.0.113.9"));
        assertTrue(Cidr.parse("::/0").contains("203.0.113.9"));
    }

    @Test
    void parse_invalid_namesTheRuleAndTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.0.0.0/33"));
        assertEquals("CIDR prefix must be between 0 and 32 but was 33 in '10.0.0.0/33'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.0.0/8"));
        assertEquals("CIDR must be an IPv4 or IPv6 address with an optional /prefix but was '10.0.0/8'",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("::/x"));
        assertEquals("CIDR prefix must be a number between 0 and 128 but was '::/x'", e.getMessage());
        assertThrows(NullPointerException.class, () -> Cidr.parse(null));
    }
}
