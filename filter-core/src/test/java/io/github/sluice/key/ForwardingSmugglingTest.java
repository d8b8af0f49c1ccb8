package io.github.sluice.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.github.sluice.policy.AllowList;
import io.github.sluice.testing.FakeRequest;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the forwarding headers by a client that controls every byte it sends but not what
 * the trusted proxy appends after it: the proxy (peer 10.0.0.2) saw the client at 203.0.113.9 and
 * appended {@code , for=203.0.113.9} (or {@code , 203.0.113.9}) to the client's own line. Whatever
 * the client wrote, the key is the address the proxy saw.
 */
class ForwardingSmugglingTest {

    private static final String CLIENT = "203.0.113.9";
    /** An address some policy lets through: a partner, or the proxies' own network. */
    private static final String PARTNER = "192.0.2.1";

    private static final ClientAddress RFC7239 = ClientAddress.builder()
            .trustedProxies("10.0.0.0/8").header(ForwardedHeader.FORWARDED).build();
    private static final ClientAddress XFF = ClientAddress.builder().trustedProxies("10.0.0.0/8").build();
    private static final AllowList PARTNERS_AND_PROXIES = AllowList.of(PARTNER, "10.0.0.0/8");

    private static FakeRequest forwarded(String clientText) {
        return FakeRequest.get("/").peer("10.0.0.2").header("Forwarded", clientText + ", for=" + CLIENT);
    }

    private static FakeRequest xff(String clientText) {
        return FakeRequest.get("/").peer("10.0.0.2").header("X-Forwarded-For", clientText + ", " + CLIENT);
    }

    @Test
    void forwarded_quoteLeftOpenAfterAClientValue_neverSwallowsTheProxysElement() {
        // The open quote used to turn the proxy's ", for=203.0.113.9" into the client's parameter
        // value, and the client's own for= became the key.
        FakeRequest r = forwarded("for=" + PARTNER + ";x=\"");

        assertEquals(CLIENT, RFC7239.resolve(r));
        assertFalse(PARTNERS_AND_PROXIES.allows(RFC7239.resolve(r), r, RFC7239));
    }

    @Test
    void forwarded_escapedClosingQuote_neverSwallowsTheProxysElement() {
        FakeRequest r = forwarded("for=" + PARTNER + ";x=\"a\\\"");

        assertEquals(CLIENT, RFC7239.resolve(r));
        assertFalse(PARTNERS_AND_PROXIES.allows(RFC7239.resolve(r), r, RFC7239));
    }

    @Test
    void forwarded_openQuoteAlone_isKeyedOnWhatTheProxySawNotOnTheProxy() {
        // Falling back to the peer would land in the allow-listed proxy network.
        for (String open : new String[] {"for=\"", "\"", "for=\"[2001:db8::1", "for=x;by=\"", "for=\"\\"}) {
            FakeRequest r = forwarded(open);

            assertEquals(CLIENT, RFC7239.resolve(r), open);
            assertFalse(PARTNERS_AND_PROXIES.allows(CLIENT, r, RFC7239), open);
        }
    }

    @Test
    void forwarded_quotedCommaOrSemicolonFromTheClient_neverBecomesTheKey() {
        String[] attacks = {
            "for=\"" + PARTNER + ", for=" + PARTNER + "\"",
            "for=\"x;for=" + PARTNER + "\"",
            "for=" + PARTNER + ";by=\"a, for=b\"",
            "for=\"" + PARTNER + "\\\", for=" + PARTNER,
            "for=" + PARTNER + " ;\t",
            "for=" + PARTNER + ";",
            ";;for=" + PARTNER,
        };
        for (String attack : attacks) {
            assertEquals(CLIENT, RFC7239.resolve(forwarded(attack)), attack);
        }
    }

    @Test
    void forwarded_quoteLeftOpenOnAnEarlierLine_isConfinedToThatLine() {
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                .header("Forwarded", "for=" + PARTNER + ";x=\"")
                .header("Forwarded", "for=" + CLIENT);

        assertEquals(CLIENT, RFC7239.resolve(r));
    }

    @Test
    void forwarded_duplicateForInOneElement_isMalformedNotEitherValue() {
        // Written right of a trusted hop, the element is that hop's; two for= make it garbage.
        FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                .header("Forwarded", "for=" + CLIENT + ";for=" + PARTNER + ", for=10.0.0.1");

        assertEquals("10.0.0.1", RFC7239.resolve(r));
    }

    @Test
    void forwarded_malformedSyntaxWrittenByATrustedHop_stopsOnThatHop() {
        String[] malformed = {
            "for=" + PARTNER + " x", "for= " + PARTNER, "for =" + PARTNER, "f\u00f6r=" + PARTNER,
            "for=" + PARTNER + "\u0000", "for=\"" + PARTNER + "\"x", "x\"for=" + PARTNER,
            "for=\"" + PARTNER + "\u0001\"", "=" + PARTNER, "for=" + PARTNER + "=",
        };
        for (String m : malformed) {
            FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                    .header("Forwarded", m + ", for=10.0.0.1");
            assertEquals("10.0.0.1", RFC7239.resolve(r), m);
        }
    }

    @Test
    void xForwardedFor_quotesFromTheClient_neverSwallowTheProxysValue() {
        String[] attacks = {"\"", "\"" + PARTNER, PARTNER + "\"", "\"" + PARTNER + ", " + PARTNER + "\"",
            "for=\"" + PARTNER, "'" + PARTNER, "\\", PARTNER + "\\"};
        for (String attack : attacks) {
            FakeRequest r = xff(attack);
            assertEquals(CLIENT, XFF.resolve(r), attack);
            assertFalse(PARTNERS_AND_PROXIES.allows(CLIENT, r, XFF), attack);
        }
    }

    @Test
    void xForwardedFor_quotedValueWrittenRightOfATrustedHop_isNotAnAddress() {
        for (String quoted : new String[] {"\"" + PARTNER + "\"", "'" + PARTNER + "'", "\"[2001:db8::1]\""}) {
            FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                    .header("X-Forwarded-For", quoted + ", 10.0.0.1");
            assertEquals("10.0.0.1", XFF.resolve(r), quoted);
        }
    }

    @Test
    void addresses_withDecorationsNoProxyWrites_areNotAddresses() {
        String[] odd = {
            PARTNER + ":65536", PARTNER + ":99999", PARTNER + ":", "[2001:db8::1]:1234567",
            "2001:db8::1%", "2001:db8::1%eth0 x", "2001:db8::1%e\u00e9", "2001:db8::1%" + "z".repeat(65),
            "[" + PARTNER + "]", PARTNER + "%eth0", "1.2.3.4 5", "\u0661.2.3.4", "1.2.3.4\u0000",
        };
        for (String o : odd) {
            FakeRequest r = FakeRequest.get("/").peer("10.0.0.2")
                    .header("X-Forwarded-For", o + ", 10.0.0.1");
            assertEquals("10.0.0.1", XFF.resolve(r), o);
        }
    }

    @Test
    void addresses_withDecorationsProxiesDoWrite_areTheirAddress() {
        String[] fine = {
            CLIENT + ":0", CLIENT + ":65535", "[::ffff:" + CLIENT + "]:443", "::ffff:" + CLIENT,
            " " + CLIENT + "\t",
        };
        for (String f : fine) {
            FakeRequest r = FakeRequest.get("/").peer("10.0.0.2").header("X-Forwarded-For", f);
            assertEquals(CLIENT, XFF.resolve(r), f);
        }
        FakeRequest zoned = FakeRequest.get("/").peer("10.0.0.2").header("X-Forwarded-For", "fe80::1%eth0.7");
        assertEquals("fe80::/64", XFF.resolve(zoned));
        FakeRequest obfuscatedPort = FakeRequest.get("/").peer("10.0.0.2")
                .header("Forwarded", "for=\"[2001:db8::1]:_port7\"");
        assertEquals("2001:db8::/64", RFC7239.resolve(obfuscatedPort));
    }

    @Test
    void hugeClientPrefix_costsNothingAndChangesNothing() {
        String[] prefixes = {"x".repeat(1 << 16), "\"".repeat(1 << 16), "\\".repeat(1 << 16),
            "for=\"" + "\\\"".repeat(1 << 15), ",".repeat(1 << 16), "for=1.2.3.4;".repeat(1 << 12)};
        for (String p : prefixes) {
            assertEquals(CLIENT, RFC7239.resolve(forwarded(p)));
            assertEquals(CLIENT, XFF.resolve(xff(p)));
        }
    }
}
