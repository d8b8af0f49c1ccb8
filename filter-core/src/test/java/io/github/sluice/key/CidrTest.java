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
    void parse_bareAddressAndSpaces_normalise() {
        assertEquals("192.0.2.7/32", Cidr.parse("192.0.2.7").toString());
        assertEquals("2001:db8::1/128", Cidr.parse("2001:DB8:0::1").toString());
        assertEquals(Cidr.parse("10.0.0.0/8"), Cidr.parse(" 10.0.0.0/8 "));
        assertEquals(Cidr.parse("::ffff:10.0.0.0/104"), Cidr.parse("::ffff:a00:0/104"));
        assertEquals(0, Cidr.parse("0.0.0.0/0").prefix());
        assertTrue(Cidr.parse("0.0.0.0/0").contains("203.0.113.9"));
        assertTrue(Cidr.parse("::/0").contains("203.0.113.9"));
    }

    @Test
    void parse_hostBitsAfterThePrefix_areRefusedNotSilentlyDropped() {
        // 10.1.2.3/8 trusts or allows 16 million addresses: was /32 meant, or 10.0.0.0/8?
        assertEquals("CIDR '10.1.2.3/8': bits are set after the /8 prefix; write 10.0.0.0/8 for the network, "
                + "or 10.1.2.3/32 for the one address",
                assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.1.2.3/8")).getMessage());
        assertEquals("CIDR '2001:db8:1::/32': bits are set after the /32 prefix; write 2001:db8::/32 for the network, "
                + "or 2001:db8:1::/128 for the one address",
                assertThrows(IllegalArgumentException.class, () -> Cidr.parse("2001:db8:1::/32")).getMessage());
    }

    @Test
    void parse_invalid_namesTheRuleAndTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.0.0.0/33"));
        assertEquals("CIDR '10.0.0.0/33': the prefix of an IPv4 network must be between 0 and 32 but was 33",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.0.0/8"));
        assertEquals("CIDR '10.0.0/8': an IPv4 address has 4 octets but this has 3", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("::/x"));
        assertEquals("CIDR '::/x': the prefix must be a whole number between 0 and 128 but was 'x'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("proxy.example.com"));
        assertEquals("CIDR 'proxy.example.com': must be an IPv4 or IPv6 address with an optional /prefix, such as "
                + "10.0.0.0/8 or 2001:db8::/32", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse(" "));
        assertEquals("CIDR ' ': must not be empty", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.0.0.0 /8"));
        assertEquals("CIDR '10.0.0.0 /8': ' ' (U+0020) is not allowed in an IPv4 address", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("::1:"));
        assertEquals("CIDR '::1:': an IPv6 address has no empty group (a single ':' at its start or end)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cidr.parse("::ffff:1.2.3/96"));
        assertEquals("CIDR '::ffff:1.2.3/96': an IPv4 address has 4 octets but this has 3", e.getMessage());
        assertThrows(NullPointerException.class, () -> Cidr.parse(null));
    }

    @Test
    void parse_everyTextTheStrictGrammarAccepts_isAcceptedByTheRequestParserToo() {
        // The explaining grammar and the fast parser must agree: whatever the first accepts, the
        // second reads as the same address.
        String[] good = {"0.0.0.0", "255.255.255.255", "1.2.3.4/32", "::", "::1", "1::", "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "::ffff:192.0.2.1", "64:ff9b::192.0.2.0/120", "fd00::/8"};
        for (String g : good) {
            Cidr c = Cidr.parse(g);
            String address = g.indexOf('/') < 0 ? g : g.substring(0, g.indexOf('/'));
            assertTrue(c.contains(address), g);
        }
    }
}
