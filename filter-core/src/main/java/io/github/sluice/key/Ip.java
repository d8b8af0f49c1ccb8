package io.github.sluice.key;

/**
 * A mutable 128-bit address and a strict, allocation-free parser for IP literals taken from
 * untrusted text. IPv4 is held in its IPv4-mapped IPv6 form ({@code ::ffff:a.b.c.d}), so an
 * IPv4-mapped IPv6 literal and the IPv4 literal are the same address.
 *
 * <p>Never resolves names and never throws on bad input: {@link #parse} returns {@code false}.
 * Not thread-safe; each caller uses its own instance.
 */
final class Ip {

    /** High bits of {@code ::ffff:0:0/96}, the IPv4-mapped prefix. */
    static final long MAPPED_HI = 0L;
    /** Low-word bits 32..47 of the IPv4-mapped prefix. */
    static final long MAPPED_LO = 0x0000_FFFF_0000_0000L;

    long hi;
    long lo;

    /** @return {@code true} if this address is an IPv4 (or IPv4-mapped) address */
    boolean isV4() {
        return hi == MAPPED_HI && (lo & 0xFFFF_FFFF_0000_0000L) == MAPPED_LO;
    }

    void set(Ip other) {
        hi = other.hi;
        lo = other.lo;
    }

    /**
     * Parses an address, tolerating the decorations proxies and containers add: surrounding
     * whitespace and brackets, a port after an IPv4 literal or a bracketed IPv6 literal (a number
     * up to 65535, or an RFC 7239 obfuscated port such as {@code _p1}), and an IPv6 zone
     * ({@code %eth0}: up to {@value #MAX_ZONE} letters, digits, {@code . _ ~ -}; dropped).
     * Anything else around the address (a quote, a second port, a space inside) makes it no
     * address at all.
     *
     * @param s the text
     * @param from first index, inclusive
     * @param to last index, exclusive
     * @return {@code true} if {@code s[from, to)} held an address; on {@code false} this
     *     object's content is unspecified
     */
    boolean parseLenient(CharSequence s, int from, int to) {
        from = skipSpace(s, from, to);
        to = trimSpace(s, from, to);
        if (from >= to) {
            return false;
        }
        if (s.charAt(from) == '[') {
            int close = indexOf(s, ']', from + 1, to);
            if (close < 0 || !portOrEnd(s, close + 1, to)) {
                return false;
            }
            int zone = zoneStart(s, from + 1, close);
            return zone >= 0 && parseV6(s, from + 1, zone);
        }
        int colon = indexOf(s, ':', from, to);
        if (colon < 0) {
            return parseV4(s, from, to);
        }
        if (indexOf(s, ':', colon + 1, to) < 0) {
            // Exactly one colon: IPv4 with a port.
            return portOrEnd(s, colon, to) && parseV4(s, from, colon);
        }
        int zone = zoneStart(s, from, to);
        return zone >= 0 && parseV6(s, from, zone);
    }

    /**
     * Parses a bare IPv4 or IPv6 literal, without brackets, port or zone.
     *
     * @param s the text
     * @param from first index, inclusive
     * @param to last index, exclusive
     * @return {@code true} if {@code s[from, to)} is exactly an address
     */
    boolean parseStrict(CharSequence s, int from, int to) {
        if (from >= to) {
            return false;
        }
        return indexOf(s, ':', from, to) < 0 ? parseV4(s, from, to) : parseV6(s, from, to);
    }

    /** Parses dotted-quad IPv4; leading zeros are refused (some stacks read them as octal). */
    boolean parseV4(CharSequence s, int from, int to) {
        long v = parseV4Bits(s, from, to);
        if (v < 0) {
            return false;
        }
        hi = MAPPED_HI;
        lo = MAPPED_LO | v;
        return true;
    }

    /**
     * Reads a canonical dotted quad: four decimal octets of at most 255 separated by dots, no sign,
     * no leading zero, nothing else. It runs on every request keyed by a direct IPv4 peer, so it
     * reads octet by octet, each character once, with one test per character where a loop over
     * characters would keep counters of digits and dots.
     *
     * @return the 32 address bits, or {@code -1} if not a dotted quad
     */
    static long parseV4Bits(CharSequence s, int from, int to) {
        if (to - from < 7 || to - from > 15) {
            return -1;
        }
        long v = 0;
        int i = from;
        for (int k = 0; ; k++) {
            // The octet's first digit; a 0 is the whole octet (a leading zero may mean octal).
            int octet = digit(s.charAt(i++));
            if (octet < 0) {
                return -1;
            }
            if (octet > 0 && i < to) {
                int d = digit(s.charAt(i));
                if (d >= 0) {
                    octet = octet * 10 + d;
                    if (++i < to && (d = digit(s.charAt(i))) >= 0) {
                        octet = octet * 10 + d;
                        if (octet > 255) {
                            return -1;
                        }
                        i++;
                    }
                }
            }
            v = (v << 8) | octet;
            if (k == 3) {
                return i == to ? v : -1;
            }
            // A dot and at least one more character: the next octet's first digit reads it.
            if (i + 1 >= to || s.charAt(i++) != '.') {
                return -1;
            }
        }
    }

    /** @return the value of a decimal digit, or -1 */
    private static int digit(char c) {
        int d = c - '0';
        return d >= 0 && d <= 9 ? d : -1;
    }

    /** Parses an IPv6 literal (RFC 4291 section 2.2 text forms, incl. a trailing dotted quad). */
    boolean parseV6(CharSequence s, int from, int to) {
        if (to - from < 2 || to - from > 45) {
            return false;
        }
        hi = 0;
        lo = 0;
        int groups = 0;
        int gap = -1; // number of groups written before "::", or -1 if there is none
        int i = from;
        if (s.charAt(i) == ':') {
            if (s.charAt(i + 1) != ':') {
                return false;
            }
            gap = 0;
            i += 2;
        }
        while (i < to) {
            int start = i;
            int value = 0;
            while (i < to && i - start < 5) {
                int d = hexDigit(s.charAt(i));
                if (d < 0) {
                    break;
                }
                value = (value << 4) | d;
                i++;
            }
            if (i < to && s.charAt(i) == '.') {
                // A trailing dotted quad fills the last two groups.
                long v4 = parseV4Bits(s, start, to);
                if (v4 < 0 || groups > 6) {
                    return false;
                }
                push((int) (v4 >>> 16));
                push((int) (v4 & 0xFFFF));
                groups += 2;
                break;
            }
            int digits = i - start;
            if (digits == 0 || digits > 4 || groups == 8) {
                return false;
            }
            push(value);
            groups++;
            if (i == to) {
                break;
            }
            if (s.charAt(i) != ':' || ++i == to) {
                return false; // junk, or a trailing single colon
            }
            if (s.charAt(i) == ':') {
                if (gap >= 0) {
                    return false;
                }
                gap = groups;
                i++;
            }
        }
        if (gap < 0 ? groups != 8 : groups > 7) {
            return false;
        }
        if (gap >= 0) {
            openGap(groups - gap, 8 - groups);
        }
        return true;
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private void push(int group) {
        hi = (hi << 16) | (lo >>> 48);
        lo = (lo << 16) | group;
    }

    /** Moves the groups written before "::" up by {@code missing} groups, leaving zeros. */
    private void openGap(int after, int missing) {
        int afterBits = after * 16;
        long keepH;
        long keepL;
        if (afterBits < 64) {
            keepH = 0;
            keepL = afterBits == 0 ? 0 : lo & ((1L << afterBits) - 1);
        } else {
            keepH = afterBits == 64 ? 0 : hi & ((1L << (afterBits - 64)) - 1);
            keepL = lo;
        }
        long beforeH = hi ^ keepH;
        long beforeL = lo ^ keepL;
        int shiftBits = missing * 16;
        if (shiftBits >= 64) {
            hi = (beforeL << (shiftBits - 64)) | keepH;
            lo = keepL;
        } else {
            hi = (beforeH << shiftBits) | (beforeL >>> (64 - shiftBits)) | keepH;
            lo = (beforeL << shiftBits) | keepL;
        }
    }

    /** The longest zone id accepted; interface names are at most 15 characters on Linux. */
    static final int MAX_ZONE = 32;

    /** Nothing, or {@code :} and a port: 1 to 5 digits up to 65535, or {@code _} and obfuscation. */
    private static boolean portOrEnd(CharSequence s, int from, int to) {
        if (from == to) {
            return true;
        }
        if (s.charAt(from) != ':' || to - from < 2) {
            return false;
        }
        if (s.charAt(from + 1) == '_') {
            // RFC 7239 6.3 obfport: "_" 1*(ALPHA / DIGIT / "." / "_" / "-")
            if (to - from < 3 || to - from > 2 + MAX_ZONE) {
                return false;
            }
            for (int i = from + 2; i < to; i++) {
                char c = s.charAt(i);
                if (!(isAsciiLetterOrDigit(c) || c == '.' || c == '_' || c == '-')) {
                    return false;
                }
            }
            return true;
        }
        if (to - from > 6) {
            return false;
        }
        int port = 0;
        for (int i = from + 1; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 0xFFFF;
    }

    /**
     * @return the index of the {@code %} that starts a well-formed zone id, {@code to} if there is
     *     no zone, or -1 if the zone is empty, too long or holds other characters
     */
    private static int zoneStart(CharSequence s, int from, int to) {
        int pct = indexOf(s, '%', from, to);
        if (pct < 0) {
            return to;
        }
        if (to - pct < 2 || to - pct > 1 + MAX_ZONE) {
            return -1;
        }
        for (int i = pct + 1; i < to; i++) {
            char c = s.charAt(i);
            if (!(isAsciiLetterOrDigit(c) || c == '.' || c == '_' || c == '~' || c == '-')) {
                return -1;
            }
        }
        return pct;
    }

    private static boolean isAsciiLetterOrDigit(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    static int indexOf(CharSequence s, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    static int skipSpace(CharSequence s, int from, int to) {
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        return from;
    }

    static int trimSpace(CharSequence s, int from, int to) {
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        return to;
    }
}
