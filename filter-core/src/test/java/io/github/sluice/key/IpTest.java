package io.github.sluice.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IpTest {

    private static String canonical(String text, int prefix) {
        Ip ip = new Ip();
        assertTrue(ip.parseLenient(text, 0, text.length()), text);
        return IpFormat.format(ip, prefix);
    }

    @Test
    void parse_ipv4_isCanonical() {
        assertEquals("192.0.2.1", canonical("192.0.2.1", 128));
        assertEquals("0.0.0.0", canonical("0.0.0.0", 128));
        assertEquals("255.255.255.255", canonical("255.255.255.255", 128));
    }

    @Test
    void parse_ipv4WithPortOrSpaces_isTolerated() {
        assertEquals("192.0.2.1", canonical(" 192.0.2.1:8080 ", 128));
    }

    @Test
    void parse_ipv4MappedIpv6_isIpv4() {
        assertEquals("192.0.2.1", canonical("::ffff:192.0.2.1", 64));
        assertEquals("192.0.2.1", canonical("::ffff:c000:201", 64));
        assertEquals("192.0.2.1", canonical("[::FFFF:192.0.2.1]:443", 64));
    }

    @Test
    void parse_ipv6_isGroupedByPrefixInRfc5952Form() {
        assertEquals("2001:db8:1:2::/64", canonical("2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd", 64));
        assertEquals("2001:db8::/56", canonical("2001:db8:0:ff::1", 56));
        assertEquals("2001:db8::1", canonical("2001:db8::1", 128));
        assertEquals("::1", canonical("::1", 128));
        assertEquals("::", canonical("::", 128));
        assertEquals("2001:db8:0:1:1:1:1:1", canonical("2001:db8:0:1:1:1:1:1", 128));
        assertEquals("2001:db8::1:0:0:1", canonical("2001:db8:0:0:1:0:0:1", 128));
        assertEquals("1::", canonical("1::", 128));
        // RFC 5952 4.2.2: "::" never shortens a single zero group
        assertEquals("1:2:3:4:5:6:0:8", canonical("1:2:3:4:5:6:0:8", 128));
        assertEquals("1:0:0:4::8", canonical("1:0:0:4:0:0:0:8", 128));
        assertEquals("1::4:0:0:7:8", canonical("1:0:0:4:0:0:7:8", 128));
    }

    @Test
    void parse_ipv6WithBracketsPortAndZone_isTolerated() {
        assertEquals("fe80::/64", canonical("fe80::1%eth0", 64));
        assertEquals("2001:db8::1", canonical("[2001:db8::1]:8443", 128));
        assertEquals("2001:db8::1", canonical("[2001:db8::1%25en0]", 128));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "unknown", "_hidden", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4",
        "1.2.3.4:", "1.2.3.4:99999999", "1.2.3.-4", "::1::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", ":1:2:3:4:5:6:7",
        "12345::", "g::1", "[::1", "[::1]x", "::1]", "1.2.3.4/8", "2001:db8::1.2.3", "::ffff:1.2.3.256",
        "1:2:3:4:5:6:7:1.2.3.4", "example.com", "localhost", "0x7f.1.1.1", "1e1.0.0.1", "１.２.３.４"})
    void parse_garbage_isRefusedWithoutThrowing(String text) {
        assertFalse(new Ip().parseLenient(text, 0, text.length()), text);
    }

    /**
     * The dotted-quad reader that every direct IPv4 request goes through, against a reference
     * model (split on dots, each part 1-3 ASCII digits, no leading zero, at most 255) on random
     * strings over digits, dots and a few other characters, and on near misses of real addresses.
     */
    @Test
    void parseV4Bits_randomText_agreesWithReferenceModel() {
        Random random = new Random(15);
        String alphabet = "0123456789.....0129:x -";
        for (int i = 0; i < 200_000; i++) {
            StringBuilder b = new StringBuilder();
            if (i % 2 == 0) {
                for (int k = random.nextInt(18); k > 0; k--) {
                    b.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
            } else {
                b.append(random.nextInt(300)).append('.').append(random.nextInt(300)).append('.')
                        .append(random.nextInt(300)).append('.').append(random.nextInt(300));
                int at = random.nextInt(b.length() + 1);
                switch (random.nextInt(5)) {
                    case 0 -> b.insert(at, '0');
                    case 1 -> b.insert(at, '.');
                    case 2 -> b.deleteCharAt(Math.min(at, b.length() - 1));
                    default -> {
                    }
                }
            }
            String text = b.toString();
            String padded = "[" + text + "]";
            assertEquals(referenceV4(text), Ip.parseV4Bits(text, 0, text.length()), text);
            assertEquals(referenceV4(text), Ip.parseV4Bits(padded, 1, padded.length() - 1), padded);
        }
    }

    /** @return the 32 bits of a canonical dotted quad, or -1 */
    private static long referenceV4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return -1;
        }
        long v = 0;
        for (String p : parts) {
            if (!p.matches("[0-9]{1,3}") || (p.length() > 1 && p.charAt(0) == '0') || Integer.parseInt(p) > 255) {
                return -1;
            }
            v = (v << 8) | Integer.parseInt(p);
        }
        return v;
    }

    @Test
    void parse_randomAddresses_agreesWithTheJdk() throws Exception {
        // Given random 128-bit addresses written by the JDK (a literal: InetAddress does no DNS here)
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[16];
            random.nextBytes(bytes);
            if (i % 3 == 0) {
                for (int z = random.nextInt(16); z < 16 && z < 12; z++) {
                    bytes[z] = 0; // runs of zeros exercise "::"
                }
            }
            String text = InetAddress.getByAddress(bytes).getHostAddress();
            // When we parse the JDK's text
            Ip ip = new Ip();
            assertTrue(ip.parseLenient(text, 0, text.length()), text);
            // Then the bits are the JDK's bits, and our canonical text parses back to them
            long hi = 0;
            long lo = 0;
            for (int b = 0; b < 8; b++) {
                hi = (hi << 8) | (bytes[b] & 0xFF);
                lo = (lo << 8) | (bytes[b + 8] & 0xFF);
            }
            assertEquals(hi, ip.hi, text);
            assertEquals(lo, ip.lo, text);
            String canonical = IpFormat.format(ip, 128);
            Ip again = new Ip();
            assertTrue(again.parseStrict(canonical, 0, canonical.length()), canonical);
            assertEquals(hi, again.hi, canonical);
            assertEquals(lo, again.lo, canonical);
        }
    }
}
