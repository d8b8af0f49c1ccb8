package io.github.sluice.key;

/**
 * Reads one forwarding header line hop by hop <em>from the right</em>, never throwing.
 *
 * <h2>Why from the right</h2>
 * A trusted proxy appends its hop at the right end of the line, after whatever the client sent.
 * Read from the left, a quoted string that the client leaves open ({@code for=x;a="}) runs on
 * into the proxy's {@code , for=203.0.113.9} and swallows it, and an escaped quote
 * ({@code a="\"}) does the same; the client's own {@code for=} then looks like the last element.
 * Read from the right, the proxy's element is parsed first and exactly as the proxy wrote it: its
 * quoted strings open right after {@code =}, so nothing the client wrote to its left can change
 * where they start or end. The walk stops at the first hop, reading leftwards, that is not a clean
 * element: the rest of the line is never interpreted.
 *
 * <h2>Syntax accepted</h2>
 * <ul>
 *   <li>{@code X-Forwarded-For}: hops are separated by commas; a hop is an address with optional
 *       surrounding whitespace (see {@link Ip#parseLenient}). Quotes are not part of the syntax, so
 *       a quoted hop is not an address, and a quote never joins two hops.
 *   <li>{@code Forwarded} (RFC 7239 section 4): elements separated by commas, each a list of
 *       {@code name=value} pairs separated by semicolons (whitespace tolerated around the
 *       separators, empty pairs allowed); a name is a token; a value is a token (colons and
 *       brackets tolerated, as proxies write bare IPv6) or a quoted string with quoted-pairs. A
 *       {@code for} given twice in one element, a quoted string that is not closed, a character
 *       that fits nowhere: the element is malformed, which stops the walk like a value that is
 *       not an address.
 * </ul>
 *
 * <p>Cost: each character of the line is looked at a bounded number of times, and only as far
 * left as the walk goes. Not thread-safe: one scanner per walk.
 */
final class HopScanner {

    /** {@link #next}: a hop that is an address, now in the output. */
    static final int ADDRESS = 0;
    /** {@link #next}: a hop that is not an address (garbage, unknown, obfuscated, malformed). */
    static final int NOT_AN_ADDRESS = 1;
    /** {@link #next}: the line has no hop left. */
    static final int END = 2;

    /** Longer than any address literal with brackets, zone and port: such a quoted value is no node. */
    private static final int MAX_NODE_CHARS = 96;

    private final boolean rfc7239;
    private String line;
    /** The exclusive end of the part of the line not read yet; -1 once the line is done. */
    private int pos;

    HopScanner(ForwardedHeader header) {
        this.rfc7239 = header == ForwardedHeader.FORWARDED;
    }

    /** Starts on a line; its rightmost hop comes first. */
    void reset(String line) {
        this.line = line;
        this.pos = line.length();
    }

    /**
     * Reads the next hop leftwards.
     *
     * @param out receives the hop's address when the result is {@link #ADDRESS}
     * @return {@link #ADDRESS}, {@link #NOT_AN_ADDRESS} or {@link #END}
     */
    int next(Ip out) {
        if (pos < 0) {
            return END;
        }
        return rfc7239 ? nextElement(out) : nextXff(out);
    }

    private int nextXff(Ip out) {
        int end = pos;
        int comma = end - 1;
        while (comma >= 0 && line.charAt(comma) != ',') {
            comma--;
        }
        pos = comma; // -1 when this was the leftmost hop
        return out.parseLenient(line, comma + 1, end) ? ADDRESS : NOT_AN_ADDRESS;
    }

    private int nextElement(Ip out) {
        int i = pos;
        int forFrom = -1;
        int forTo = -1;
        boolean forEscaped = false;
        while (true) {
            i = owsLeft(i);
            if (i == 0) {
                pos = -1;
                break;
            }
            char c = line.charAt(i - 1);
            if (c == ',') {
                pos = i - 1;
                break;
            }
            if (c == ';') {
                i--; // an empty pair
                continue;
            }
            int valueFrom;
            int valueTo;
            boolean escaped = false;
            if (c == '"') {
                int close = i - 1;
                int open = openingQuote(close);
                if (open < 0) {
                    return malformed();
                }
                int content = quotedContent(open + 1, close);
                if (content < 0) {
                    return malformed();
                }
                escaped = content > 0;
                valueFrom = open + 1;
                valueTo = close;
                i = open;
            } else {
                int j = i;
                while (j > 0 && valueChar(line.charAt(j - 1))) {
                    j--;
                }
                if (j == i) {
                    return malformed();
                }
                valueFrom = j;
                valueTo = i;
                i = j;
            }
            if (i == 0 || line.charAt(i - 1) != '=') {
                return malformed();
            }
            int nameTo = --i;
            while (i > 0 && tchar(line.charAt(i - 1))) {
                i--;
            }
            if (i == nameTo) {
                return malformed();
            }
            if (nameTo - i == 3 && line.regionMatches(true, i, "for", 0, 3)) {
                if (forFrom >= 0) {
                    return malformed(); // RFC 7239 4: a parameter occurs at most once per element
                }
                forFrom = valueFrom;
                forTo = valueTo;
                forEscaped = escaped;
            }
            int k = owsLeft(i);
            if (k > 0 && line.charAt(k - 1) != ';' && line.charAt(k - 1) != ',') {
                return malformed(); // two pairs without a separator, or junk
            }
            i = k;
        }
        if (forFrom < 0) {
            return NOT_AN_ADDRESS; // no for=: the element says nothing about the client
        }
        if (forEscaped) {
            if (forTo - forFrom > MAX_NODE_CHARS) {
                return NOT_AN_ADDRESS;
            }
            String plain = unescape(line, forFrom, forTo);
            return out.parseLenient(plain, 0, plain.length()) ? ADDRESS : NOT_AN_ADDRESS;
        }
        return out.parseLenient(line, forFrom, forTo) ? ADDRESS : NOT_AN_ADDRESS;
    }

    /** Nothing left of a malformed element is read: it and the rest of the line are not hops. */
    private int malformed() {
        pos = -1;
        return NOT_AN_ADDRESS;
    }

    private int owsLeft(int i) {
        while (i > 0 && (line.charAt(i - 1) == ' ' || line.charAt(i - 1) == '\t')) {
            i--;
        }
        return i;
    }

    /**
     * Finds the quote that opens the quoted string closed at {@code close}: the nearest quote to
     * its left preceded by an even number of backslashes (an odd number escapes it).
     *
     * @return its index, or -1 if there is none
     */
    private int openingQuote(int close) {
        int j = close - 1;
        while (j >= 0) {
            if (line.charAt(j) == '"') {
                int b = j;
                while (b > 0 && line.charAt(b - 1) == '\\') {
                    b--;
                }
                if (((j - b) & 1) == 0) {
                    return j;
                }
                j = b - 1;
            } else {
                j--;
            }
        }
        return -1;
    }

    /**
     * Checks the content of a quoted string (RFC 9110 5.6.4: qdtext and quoted-pairs), read from
     * the left so that a trailing backslash, which would escape the closing quote, is caught.
     *
     * @return -1 if invalid, 1 if it holds a quoted-pair, 0 otherwise
     */
    private int quotedContent(int from, int to) {
        int escapes = 0;
        for (int k = from; k < to; k++) {
            char ch = line.charAt(k);
            if (ch == '\\') {
                if (k + 1 >= to || !textChar(line.charAt(k + 1))) {
                    return -1;
                }
                k++;
                escapes = 1;
            } else if (ch == '"' || !textChar(ch)) {
                return -1;
            }
        }
        return escapes;
    }

    /** HTAB, SP, visible ASCII and obs-text (anything above ASCII, however the container decoded it). */
    private static boolean textChar(char c) {
        return c == '\t' || (c >= 0x20 && c != 0x7f);
    }

    /** RFC 9110 tchar. */
    static boolean tchar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || (c < 0x80 && "!#$%&'*+-.^_`|~".indexOf(c) >= 0);
    }

    /** A token character, or the colon and brackets of a bare IPv6 node that proxies write unquoted. */
    private static boolean valueChar(char c) {
        return tchar(c) || c == ':' || c == '[' || c == ']';
    }

    private static String unescape(String s, int from, int to) {
        StringBuilder b = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < to) {
                c = s.charAt(++i);
            }
            b.append(c);
        }
        return b.toString();
    }
}
