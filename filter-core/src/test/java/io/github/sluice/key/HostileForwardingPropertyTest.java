package io.github.sluice.key;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.policy.AllowList;
import io.github.sluice.testing.FakeRequest;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Property: for any forwarding header a client can send, resolving the key never throws and
 * yields exactly the address the trusted-path rules designate: walking from the right, trusted
 * proxies are skipped, the first untrusted address is the client, and a bad hop stops the walk on
 * the last good address. The expected key is computed by an independent oracle over hops whose
 * class (trusted, untrusted, bad) the generator knows, and compared in the bit domain with the
 * JDK's literal parser.
 *
 * <p>A second family of cases puts the attacker where it really is: it writes any bytes at all
 * (open and escaped quotes, commas and semicolons, control characters, non-ASCII, allow-listed
 * and trusted addresses, several field lines, 64 KiB), and trusted proxies then append their
 * clean hops after it, on its last line or on lines of their own. The key must be what the
 * proxies wrote, never anything the attacker wrote, and never an allow-listed address unless a
 * trusted hop put it there.
 */
class HostileForwardingPropertyTest {

    private static final int CASES_PER_HEADER = 60_000;
    private static final ClientAddress XFF = ClientAddress.builder()
            .trustedProxies("10.0.0.0/8", "fd00::/8").build();
    private static final ClientAddress RFC7239 = ClientAddress.builder()
            .trustedProxies("10.0.0.0/8", "fd00::/8").header(ForwardedHeader.FORWARDED).build();
    private static final String JUNK = "abcdefghijklmnopqrstuvwxyzABCXYZ_!@$&()*+-/<>?[]{}|~`^ \t\u0000\u0001\u007f\u00e9\u4e2d"
            + "\ud83d\ude00:.0123456789";

    /** A generated hop: its text, and for an address its 16 bytes and whether it is trusted. */
    private record Hop(String text, byte[] address, boolean trusted) {
        boolean bad() {
            return address == null;
        }
    }

    @Test
    void resolve_hostileXForwardedFor_neverThrowsAndFollowsTheTrustedPathRules() throws Exception {
        check(XFF, false, 1);
    }

    @Test
    void resolve_hostileForwarded_neverThrowsAndFollowsTheTrustedPathRules() throws Exception {
        check(RFC7239, true, 2);
    }

    @Test
    void resolve_attackerPrefixThenTrustedHops_isAlwaysWhatTheProxiesSaw() throws Exception {
        checkAttacks(XFF, false, 3);
    }

    @Test
    void resolve_attackerPrefixThenTrustedForwardedElements_isAlwaysWhatTheProxiesSaw() throws Exception {
        checkAttacks(RFC7239, true, 4);
    }

    /** An address that an allow-list lets through, and that the attacker writes everywhere. */
    private static final byte[] PARTNER = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, 0, 2, 1};
    private static final AllowList ALLOW = AllowList.of("192.0.2.1", "10.0.0.0/8", "fd00::/8");
    private static final String[] ATTACK_WORDS = {
        "for=", "FOR=", "For=\"", "\"", "\"", "\\", "\\\"", ",", ", ", ";", "=", " ", "\t", "by=", "proto=https",
        "192.0.2.1", "\"192.0.2.1\"", "[::ffff:192.0.2.1]:80", "10.0.0.5", "fd00::5", "\"[fd00::5]\"", "unknown",
        "_hidden", "[", "]", ":", "%", "%25eth0", "\u0000", "\r", "\n", "\u007f", "\u00e9", "\u00ff", "\u4e2d",
        "\ud83d\ude00", "\u0661", "x", "'", "#", "for=\"192.0.2.1", "for=192.0.2.1;x=\"", "for=\"\\\"",
    };

    private static void checkAttacks(ClientAddress resolver, boolean rfc7239, long seed) throws Exception {
        Random random = new Random(seed);
        for (int c = 0; c < CASES_PER_HEADER / 2; c++) {
            // Given whatever the attacker sends, on one or more field lines
            List<String> lines = new ArrayList<>();
            int attackerLines = random.nextInt(4);
            for (int i = 0; i < attackerLines; i++) {
                lines.add(attackText(random));
            }
            // and the hops the proxies append: the client as the first proxy saw it (an untrusted
            // address, or a value that is not one), then each further proxy's trusted address
            List<Hop> hops = new ArrayList<>();
            if (random.nextInt(4) == 0) {
                hops.add(new Hop(rfc7239 ? (random.nextBoolean() ? "for=unknown" : "for=_hidden")
                        : (random.nextBoolean() ? "unknown" : "_hidden"), null, false));
            } else {
                byte[] client = untrustedAddress(random);
                while (Arrays.equals(client, PARTNER)) {
                    client = untrustedAddress(random);
                }
                hops.add(new Hop(addressText(random, client, rfc7239), client, false));
            }
            int proxies = random.nextInt(4);
            for (int i = 0; i < proxies; i++) {
                byte[] a = trustedAddress(random);
                hops.add(new Hop(addressText(random, a, rfc7239), a, true));
            }
            for (Hop h : hops) {
                if (lines.isEmpty() || random.nextInt(3) == 0) {
                    lines.add(h.text());
                } else {
                    String sep = random.nextBoolean() ? ", " : ",";
                    lines.set(lines.size() - 1, lines.get(lines.size() - 1) + sep + h.text());
                }
            }
            byte[] peer = trustedAddress(random);
            FakeRequest request = FakeRequest.get("/").peer(peerText(random, peer));
            for (String line : lines) {
                request.header(rfc7239 ? "Forwarded" : "X-Forwarded-For", line);
            }

            // When the key is resolved
            String key = resolver.resolve(request);

            // Then it is what the proxies saw, and allow-listed only if a trusted hop wrote it
            byte[] expected = oracle(hops, peer);
            int n = c;
            Supplier<String> context = () -> "case " + n + " seed " + seed + " peer " + request.peerAddress()
                    + " lines " + escape(lines) + " key " + key;
            byte[] actual = keyBytes(key, context);
            assertArrayEquals(group(expected), actual, context);
            assertFalse(Arrays.equals(group(PARTNER), actual), context);
            if (ALLOW.allows(key, request, resolver)) {
                assertTrue(expected == peer || trustedHop(hops, expected), context);
            }
        }
    }

    private static boolean trustedHop(List<Hop> hops, byte[] address) {
        for (Hop h : hops) {
            if (h.trusted() && h.address() == address) {
                return true;
            }
        }
        return false;
    }

    private static String attackText(Random random) {
        if (random.nextInt(200) == 0) {
            return ATTACK_WORDS[random.nextInt(ATTACK_WORDS.length)].repeat(1 + random.nextInt(1 << 14));
        }
        StringBuilder b = new StringBuilder();
        int words = random.nextInt(12);
        for (int i = 0; i < words; i++) {
            b.append(random.nextInt(4) == 0 ? String.valueOf(JUNK.charAt(random.nextInt(JUNK.length())))
                    : ATTACK_WORDS[random.nextInt(ATTACK_WORDS.length)]);
        }
        return b.toString();
    }

    private static String escape(List<String> lines) {
        StringBuilder b = new StringBuilder("[");
        for (String line : lines) {
            String shown = line.length() > 200 ? line.substring(0, 200) + "...(" + line.length() + ")" : line;
            for (char ch : shown.toCharArray()) {
                b.append(ch < 0x20 || ch > 0x7e ? String.format("\\u%04x", (int) ch) : String.valueOf(ch));
            }
            b.append(" | ");
        }
        return b.append(']').toString();
    }

    private static void check(ClientAddress resolver, boolean rfc7239, long seed) throws Exception {
        Random random = new Random(seed);
        for (int c = 0; c < CASES_PER_HEADER; c++) {
            // Given a trusted or untrusted peer and a random chain of hops split over field lines
            boolean peerTrusted = random.nextInt(10) > 0;
            byte[] peer = peerTrusted ? trustedAddress(random) : untrustedAddress(random);
            List<Hop> hops = new ArrayList<>();
            int n = random.nextInt(8);
            for (int i = 0; i < n; i++) {
                hops.add(hop(random, rfc7239));
            }
            FakeRequest request = FakeRequest.get("/").peer(peerText(random, peer));
            List<String> lines = lines(random, hops, rfc7239);
            for (String line : lines) {
                request.header(rfc7239 ? "Forwarded" : "X-Forwarded-For", line);
            }

            // When the key is resolved
            String key = resolver.resolve(request);

            // Then it is the oracle's address, grouped as configured
            byte[] expected = peerTrusted ? oracle(hops, peer) : peer;
            int at = c;
            Supplier<String> context = () -> "case " + at + " seed " + seed + " peer " + request.peerAddress()
                    + " lines " + escape(lines) + " key " + key;
            assertArrayEquals(group(expected), keyBytes(key, context), context);
        }
    }

    /** Walks from the right: skip trusted, stop at the first untrusted, fall back on a bad hop. */
    private static byte[] oracle(List<Hop> hops, byte[] peer) {
        byte[] lastGood = peer;
        for (int i = hops.size() - 1; i >= 0; i--) {
            Hop h = hops.get(i);
            if (h.bad()) {
                return lastGood;
            }
            lastGood = h.address();
            if (!h.trusted()) {
                return lastGood;
            }
        }
        return lastGood;
    }

    private static Hop hop(Random random, boolean rfc7239) {
        int kind = random.nextInt(10);
        if (kind < 4) {
            byte[] a = trustedAddress(random);
            return new Hop(addressText(random, a, rfc7239), a, true);
        }
        if (kind < 7) {
            byte[] a = untrustedAddress(random);
            return new Hop(addressText(random, a, rfc7239), a, false);
        }
        return new Hop(badText(random, rfc7239), null, false);
    }

    /** Joins hops with separators, sometimes breaking to a new field line between two hops. */
    private static List<String> lines(Random random, List<Hop> hops, boolean rfc7239) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < hops.size(); i++) {
            if (i > 0) {
                if (random.nextInt(4) == 0) {
                    lines.add(line.toString());
                    line.setLength(0);
                } else {
                    line.append(random.nextBoolean() ? "," : " , ");
                }
            }
            line.append(hops.get(i).text());
        }
        if (!hops.isEmpty()) {
            lines.add(line.toString());
        }
        return lines;
    }

    private static byte[] trustedAddress(Random random) {
        byte[] a = new byte[16];
        if (random.nextBoolean()) {
            a[10] = (byte) 0xff;
            a[11] = (byte) 0xff;
            a[12] = 10;
            for (int i = 13; i < 16; i++) {
                a[i] = (byte) random.nextInt(256);
            }
        } else {
            random.nextBytes(a);
            a[0] = (byte) 0xfd;
        }
        return a;
    }

    private static byte[] untrustedAddress(Random random) {
        byte[] a = new byte[16];
        if (random.nextBoolean()) {
            a[10] = (byte) 0xff;
            a[11] = (byte) 0xff;
            a[12] = (byte) (11 + random.nextInt(200));
            for (int i = 13; i < 16; i++) {
                a[i] = (byte) random.nextInt(256);
            }
        } else {
            random.nextBytes(a);
            a[0] = (byte) (0x20 + random.nextInt(0xd0)); // never fd00::/8, never the IPv4-mapped range
        }
        return a;
    }

    private static boolean isV4(byte[] a) {
        for (int i = 0; i < 10; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return a[10] == (byte) 0xff && a[11] == (byte) 0xff;
    }

    private static String plain(byte[] a) {
        try {
            if (isV4(a)) {
                return InetAddress.getByAddress(Arrays.copyOfRange(a, 12, 16)).getHostAddress();
            }
            String s = InetAddress.getByAddress(a).getHostAddress();
            return s;
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static String peerText(Random random, byte[] a) {
        String p = plain(a);
        if (isV4(a)) {
            return random.nextInt(5) == 0 ? "::ffff:" + p : p;
        }
        return random.nextInt(4) == 0 ? "[" + p + "]" : p;
    }

    /** An address as proxies write it: ports, brackets, mapped forms, upper case, spaces. */
    private static String addressText(Random random, byte[] a, boolean rfc7239) {
        String p = plain(a);
        String text;
        if (isV4(a)) {
            text = switch (random.nextInt(4)) {
                case 0 -> p + ":" + random.nextInt(65536);
                case 1 -> "::ffff:" + p;
                default -> p;
            };
        } else {
            String v6 = random.nextBoolean() ? p.toUpperCase() : p.replaceAll("(^|:)0(:0)+(:|$)", "$1:$3")
                    .replaceFirst(":::", "::");
            text = switch (random.nextInt(3)) {
                case 0 -> "[" + v6 + "]:" + random.nextInt(65536);
                case 1 -> "[" + v6 + "]";
                default -> v6;
            };
        }
        if (rfc7239) {
            boolean needsQuotes = text.indexOf(':') >= 0 || text.indexOf('[') >= 0;
            String value = needsQuotes || random.nextBoolean() ? "\"" + text + "\"" : text;
            String element = (random.nextBoolean() ? "for=" : "FOR=") + value;
            if (random.nextInt(3) == 0) {
                element = "proto=https;" + element;
            }
            if (random.nextInt(3) == 0) {
                element = element + ";by=\"[2001:db8::1]\"";
            }
            return element;
        }
        return random.nextBoolean() ? text : " " + text + "\t";
    }

    /** A hop that is not an address: never contains '%', ',' or an unbalanced quote. */
    private static String badText(Random random, boolean rfc7239) {
        int kind = random.nextInt(8);
        String junk;
        switch (kind) {
            case 0 -> junk = "unknown";
            case 1 -> junk = "_" + word(random, 1 + random.nextInt(8));
            case 2 -> junk = "";
            case 3 -> junk = "x".repeat(random.nextInt(50) == 0 ? 65_536 : 1 + random.nextInt(100));
            case 4 -> junk = random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
            case 5 -> junk = "[" + word(random, 3) + "]:" + random.nextInt(99);
            default -> {
                StringBuilder b = new StringBuilder("g");
                int len = random.nextInt(40);
                for (int i = 0; i < len; i++) {
                    b.append(JUNK.charAt(random.nextInt(JUNK.length())));
                }
                junk = b.toString();
            }
        }
        if (rfc7239) {
            return switch (random.nextInt(4)) {
                case 0 -> "for=\"" + junk.replace("\"", "").replace("\\", "") + ",still-one-value\"";
                case 1 -> "proto=https;by=" + word(random, 4); // an element without for=
                default -> "for=" + junk.replace("\"", "").replace(";", "");
            };
        }
        return junk;
    }

    private static String word(Random random, int len) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < len; i++) {
            b.append((char) ('g' + random.nextInt(20)));
        }
        return b.toString();
    }

    /** The expected key's bits: IPv4 as is, IPv6 masked to /64. */
    private static byte[] group(byte[] a) {
        byte[] g = a.clone();
        if (!isV4(a)) {
            Arrays.fill(g, 8, 16, (byte) 0);
        }
        return g;
    }

    /** Parses a key with the JDK, after checking it is a literal (so no name lookup can happen). */
    private static byte[] keyBytes(String key, Supplier<String> context) throws Exception {
        assertTrue(key != null && key.matches("[0-9a-f:.]+(/64)?"), () -> context.get() + " key " + key);
        String literal = key.endsWith("/64") ? key.substring(0, key.length() - 3) : key;
        byte[] raw = InetAddress.getByName(literal).getAddress();
        if (raw.length == 4) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(raw, 0, mapped, 12, 4);
            assertEquals(-1, key.indexOf(':'), context);
            return mapped;
        }
        return raw;
    }
}
