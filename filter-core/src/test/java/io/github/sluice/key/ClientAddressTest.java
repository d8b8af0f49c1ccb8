package io.github.sluice.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.sluice.testing.FakeRequest;
import org.junit.jupiter.api.Test;

class ClientAddressTest {

    private static final ClientAddress BEHIND_PROXIES = ClientAddress.builder()
            .trustedProxies("10.0.0.0/8", "2001:db8:ffff::/48").build();
    private static final ClientAddress BEHIND_RFC7239 = ClientAddress.builder()
            .trustedProxies("10.0.0.0/8").header(ForwardedHeader.FORWARDED).build();

    @Test
    void resolve_noTrustedProxy_isThePeerAndIgnoresHeaders() {
        FakeRequest r = FakeRequest.get("/").peer("203.0.113.9").header("X-Forwarded-For", "198.51.100.1");

        assertEquals("203.0.113.9", ClientAddress.DIRECT.resolve(r));
    }

    @Test
    void resolve_canonicalIpv4Peer_returnsThePeerStringItself() {
        String peer = new String("203.0.113.9");
        assertSame(peer, ClientAddress.DIRECT.resolve(FakeRequest.get("/").peer(peer)));
    }

    @Test
    void resolve_untrustedPeer_ignoresForwardedFor() {
        FakeRequest r = FakeRequest.get("/").peer("198.51.100.7").header("X-Forwarded-For", "1.1.1.1");

        assertEquals("198.51.100.7", BEHIND_PROXIES.resolve(r));
    }

    @Test
    void resolve_trustedPeer_takesTheFirstUntrustedFromTheRight() {
        // Given a client 203.0.113.9 behind two trusted proxies, and a spoofed leftmost value
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                .header("X-Forwarded-For", "6.6.6.6, 203.0.113.9, 10.0.0.1");

        // Then the key is the client, not the leftmost value
        assertEquals("203.0.113.9", BEHIND_PROXIES.resolve(r));
    }

    @Test
    void resolve_spoofedLeftmostValues_neverChangeTheKey() {
        String[] spoofs = {"", "1.2.3.4", "1.2.3.4, 5.6.7.8", "unknown", "garbage,,,", "::1", "10.0.0.5"};
        for (String spoof : spoofs) {
            FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                    .header("X-Forwarded-For", spoof + (spoof.isEmpty() ? "" : ", ") + "203.0.113.9, 10.0.0.1");
            assertEquals("203.0.113.9", BEHIND_PROXIES.resolve(r), spoof);
        }
    }

    @Test
    void resolve_multipleFieldLines_areJoinedInOrder() {
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                .header("X-Forwarded-For", "6.6.6.6, 203.0.113.9")
                .header("X-Forwarded-For", "10.0.0.7")
                .header("X-Forwarded-For", "10.0.0.1");

        assertEquals("203.0.113.9", BEHIND_PROXIES.resolve(r));
    }

    @Test
    void resolve_garbageOrUnknownOrObfuscated_fallsBackToTheLastGoodAddress() {
        for (String bad : new String[] {"unknown", "_hidden", "not-an-ip", "", "1.2.3.4.5", "[::1"}) {
            FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                    .header("X-Forwarded-For", "203.0.113.9, " + bad + ", 10.0.0.1");
            // The bad value sits right of the client: the walk stops at it, on the proxy that wrote it
            assertEquals("10.0.0.1", BEHIND_PROXIES.resolve(r), bad);
        }
    }

    @Test
    void resolve_allHopsTrusted_isTheLeftmostTrustedHop() {
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2").header("X-Forwarded-For", "10.0.0.3, 10.0.0.1");

        assertEquals("10.0.0.3", BEHIND_PROXIES.resolve(r));
    }

    @Test
    void resolve_trustedPeerWithoutHeader_isThePeer() {
        assertEquals("10.0.0.2", BEHIND_PROXIES.resolve(FakeRequest.get("/").peer("10.0.0.2")));
    }

    @Test
    void resolve_ipv6Client_isGroupedByConfiguredPrefix() {
        FakeRequest r = FakeRequest.get("/").peer("2001:db8:1:2:3:4:5:6");

        assertEquals("2001:db8:1:2::/64", ClientAddress.DIRECT.resolve(r));
        assertEquals("2001:db8:1::/48", ClientAddress.builder().ipv6Prefix(48).build().resolve(r));
        assertEquals("2001:db8:1:2:3:4:5:6", ClientAddress.builder().ipv6Prefix(128).build().resolve(r));
    }

    @Test
    void resolve_twoAddressesOfOneSlash64_shareAKey() {
        String a = ClientAddress.DIRECT.resolve(FakeRequest.get("/").peer("2001:db8:0:1::a"));
        String b = ClientAddress.DIRECT.resolve(FakeRequest.get("/").peer("2001:db8:0:1:ffff::b"));

        assertEquals(a, b);
    }

    @Test
    void resolve_ipv4MappedPeer_isIpv4() {
        assertEquals("192.0.2.1", ClientAddress.DIRECT.resolve(FakeRequest.get("/").peer("::ffff:192.0.2.1")));
        assertEquals("192.0.2.1", ClientAddress.DIRECT.resolve(FakeRequest.get("/").peer("[::ffff:192.0.2.1]:80")));
    }

    @Test
    void resolve_ipv6PeerWithZone_dropsTheZone() {
        assertEquals("fe80::/64", ClientAddress.DIRECT.resolve(FakeRequest.get("/").peer("fe80::1%eth0")));
    }

    @Test
    void resolve_missingOrGarbagePeer_isTheSharedUnknownKey() {
        assertEquals("unknown", ClientAddress.DIRECT.resolve(FakeRequest.get("/").peer(null)));
        assertEquals("unknown", ClientAddress.DIRECT.resolve(FakeRequest.get("/").peer("garbage")));
    }

    @Test
    void resolve_trustedIpv6Proxy_walksTheHeader() {
        FakeRequest r = FakeRequest.get("/").peer("[2001:db8:ffff::1]:443")
                .header("X-Forwarded-For", "2001:db8:1:2::9, 2001:db8:ffff::2");

        assertEquals("2001:db8:1:2::/64", BEHIND_PROXIES.resolve(r));
    }

    @Test
    void resolve_forwardedHeader_walksForParametersFromTheRight() {
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                .header("Forwarded", "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https")
                .header("Forwarded", "For=10.0.0.1;by=10.0.0.2");

        assertEquals("2001:db8:cafe::/64", BEHIND_RFC7239.resolve(r));
    }

    @Test
    void resolve_forwardedHeaderQuotedCommaAndEscapes_areParsedAsOneElement() {
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                .header("Forwarded", "for=\"_a,b\";proto=http, for=\"203.0.\\113.9\", for=10.0.0.1");

        assertEquals("203.0.113.9", BEHIND_RFC7239.resolve(r));
    }

    @Test
    void resolve_forwardedElementWithoutFor_stopsTheWalk() {
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                .header("Forwarded", "for=203.0.113.9, proto=https;by=10.0.0.1, for=10.0.0.1");

        assertEquals("10.0.0.1", BEHIND_RFC7239.resolve(r));
    }

    @Test
    void resolve_forwardedObfuscatedOrUnknown_fallsBackToTheLastGoodAddress() {
        for (String bad : new String[] {"for=unknown", "for=_x", "for=\"_gazonk\"",
            "garbage", "for", "for=;", "for=\"[::1\""}) {
            FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                    .header("Forwarded", "for=203.0.113.9, " + bad + ", for=10.0.0.1");
            assertEquals("10.0.0.1", BEHIND_RFC7239.resolve(r), bad);
        }
    }

    @Test
    void resolve_forwardedUnterminatedQuote_stopsOnTheTrustedHopRightOfIt() {
        // Read from the right, the peer's element (for=10.0.0.1) is intact; the broken element
        // left of it is that trusted hop's view, unreadable, so the key is the hop itself.
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                .header("Forwarded", "for=203.0.113.9, for=\"unterminated, for=10.0.0.1");

        assertEquals("10.0.0.1", BEHIND_RFC7239.resolve(r));
    }

    @Test
    void resolve_xForwardedForConfigured_ignoresForwarded() {
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2").header("Forwarded", "for=203.0.113.9");

        assertEquals("10.0.0.2", BEHIND_PROXIES.resolve(r));
    }

    @Test
    void resolve_64KiBLineOfTrustedHops_examinesOnlyTheRightmostHops() {
        StringBuilder b = new StringBuilder("203.0.113.9");
        while (b.length() < 65_536) {
            b.append(", 10.0.0.1");
        }
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2").header("X-Forwarded-For", b.toString());

        // More trusted hops than examined: the key stays on a trusted proxy, never a deeper value
        assertEquals("10.0.0.1", BEHIND_PROXIES.resolve(r));
    }

    @Test
    void resolve_64KiBGarbageLine_fallsBackToThePeer() {
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2").header("X-Forwarded-For", "x".repeat(65_536));

        assertEquals("10.0.0.2", BEHIND_PROXIES.resolve(r));
    }

    @Test
    void builder_invalidValues_failWithTheRule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClientAddress.builder().ipv6Prefix(0));
        assertEquals("ipv6-prefix must be between 1 and 128 but was 0", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClientAddress.builder().trustedProxies("10.0.0.0/40"));
        assertThrows(NullPointerException.class, () -> ClientAddress.builder().header(null));
    }

    @Test
    void builder_trustingEveryAddress_isRefused() {
        // Trusting every peer makes the forwarding header, which any client writes, the key.
        for (String all : new String[] {"0.0.0.0/0", "::/0", "::ffff:0:0/96", "::/80"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ClientAddress.builder().trustedProxies(all), all);
            assertEquals("trusted proxies must not include " + Cidr.parse(all) + ": trusting every address lets any "
                    + "client choose its own key through the forwarding header", e.getMessage());
        }
        assertEquals(1, ClientAddress.builder().trustedProxies("0.0.0.0/1").build().trustedProxies().size(),
                "half of the addresses is a choice, however odd");
    }

    @Test
    void equals_sameConfiguration_isEqual() {
        assertEquals(ClientAddress.builder().trustedProxies("10.0.0.0/8").build(),
                ClientAddress.builder().trustedProxies(" 10.0.0.0/8").build());
        assertNotEquals(ClientAddress.DIRECT, BEHIND_PROXIES);
        assertEquals(ClientAddress.DIRECT, KeyResolvers.ip());
    }
}
