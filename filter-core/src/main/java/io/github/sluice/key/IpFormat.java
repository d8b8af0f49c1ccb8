package io.github.sluice.key;

/** Canonical text of addresses and prefixes (RFC 5952 for IPv6). */
final class IpFormat {

    private IpFormat() {
    }

    /**
     * Formats an address masked to a prefix.
     *
     * @param ip the address
     * @param v6Prefix for an IPv6 address, the prefix length kept (1..128); the text then ends in
     *     {@code /prefix} unless it is 128
     * @return {@code a.b.c.d} for IPv4 (and IPv4-mapped), else the compressed IPv6 text
     */
    static String format(Ip ip, int v6Prefix) {
        if (ip.isV4()) {
            long v = ip.lo & 0xFFFF_FFFFL;
            return (v >>> 24) + "." + ((v >>> 16) & 0xFF) + "." + ((v >>> 8) & 0xFF) + "." + (v & 0xFF);
        }
        long h = ip.hi & mask(v6Prefix);
        long l = ip.lo & mask(v6Prefix - 64);
        StringBuilder b = new StringBuilder(44);
        appendV6(b, h, l);
        if (v6Prefix < 128) {
            b.append('/').append(v6Prefix);
        }
        return b.toString();
    }

    /** @return a mask keeping the top {@code bits} bits of a long (all if >= 64, none if <= 0) */
    static long mask(int bits) {
        if (bits <= 0) {
            return 0;
        }
        return bits >= 64 ? -1L : -1L << (64 - bits);
    }

    static void appendV6(StringBuilder b, long h, long l) {
        int bestStart = -1;
        int bestLen = 1; // RFC 5952 4.2.2: a single zero group is not compressed
        int runStart = -1;
        for (int g = 0; g < 8; g++) {
            if (group(h, l, g) == 0) {
                if (runStart < 0) {
                    runStart = g;
                }
                if (g - runStart + 1 > bestLen) {
                    bestStart = runStart;
                    bestLen = g - runStart + 1;
                }
            } else {
                runStart = -1;
            }
        }
        for (int g = 0; g < 8; g++) {
            if (g == bestStart) {
                b.append("::");
                g += bestLen - 1;
                continue;
            }
            if (g > 0 && g != bestStart + bestLen) {
                b.append(':');
            }
            b.append(Integer.toHexString(group(h, l, g)));
        }
    }

    private static int group(long h, long l, int g) {
        long word = g < 4 ? h : l;
        return (int) (word >>> (48 - 16 * (g & 3))) & 0xFFFF;
    }
}
