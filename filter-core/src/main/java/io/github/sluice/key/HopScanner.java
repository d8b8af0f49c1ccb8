package io.github.sluice.key;

/**
 * Splits one forwarding header line into hops and parses a hop's address, never throwing.
 *
 * <p>The line is scanned once from the left (RFC 7239 quoted strings may hold commas, so the
 * element boundaries can only be found that way); the boundaries of the last {@code max} hops are
 * kept in a ring, so a 64 KiB line of commas costs one linear scan and a fixed amount of memory.
 *
 * <p>Not thread-safe: one scanner per walk.
 */
final class HopScanner {

    private final ForwardedHeader header;
    private final int max;
    private final int[] bounds;
    private int count;
    private int total;

    HopScanner(ForwardedHeader header, int max) {
        this.header = header;
        this.max = max;
        this.bounds = new int[2 * max];
    }

    /**
     * Scans a line.
     *
     * @return the number of hops retained (the rightmost ones, at most {@code max})
     */
    int scan(String line) {
        count = 0;
        total = 0;
        int start = 0;
        boolean quoted = false;
        int n = line.length();
        for (int i = 0; i < n; i++) {
            char c = line.charAt(i);
            if (header == ForwardedHeader.FORWARDED) {
                if (quoted && c == '\\') {
                    i++; // quoted-pair: the next character is literal
                    continue;
                }
                if (c == '"') {
                    quoted = !quoted;
                    continue;
                }
            }
            if (c == ',' && !quoted) {
                add(start, i);
                start = i + 1;
            }
        }
        add(start, n);
        return count;
    }

    /** @return {@code true} if the last line scanned had more hops than were retained */
    boolean truncated() {
        return total > count;
    }

    private void add(int from, int to) {
        int slot = total % max;
        bounds[2 * slot] = from;
        bounds[2 * slot + 1] = to;
        total++;
        count = Math.min(total, max);
    }

    /**
     * Parses the {@code k}-th retained hop (0 = leftmost retained) into {@code out}.
     *
     * @return {@code false} if the hop is not an address (garbage, {@code unknown}, {@code _x},
     *     or a {@code Forwarded} element without {@code for=})
     */
    boolean address(String line, int k, Ip out) {
        int slot = (total - count + k) % max;
        int from = bounds[2 * slot];
        int to = bounds[2 * slot + 1];
        if (header == ForwardedHeader.X_FORWARDED_FOR) {
            return out.parseLenient(line, from, to);
        }
        return forwardedFor(line, from, to, out);
    }

    /** Finds {@code for=} among the {@code ;}-separated pairs of an RFC 7239 element. */
    private static boolean forwardedFor(String line, int from, int to, Ip out) {
        int i = from;
        while (i < to) {
            i = Ip.skipSpace(line, i, to);
            int eq = i;
            while (eq < to && line.charAt(eq) != '=' && line.charAt(eq) != ';') {
                eq++;
            }
            if (eq >= to || line.charAt(eq) != '=') {
                return false; // a pair without '=' is malformed
            }
            boolean isFor = eq - i == 3 && line.regionMatches(true, i, "for", 0, 3);
            int v = eq + 1;
            int end;
            int valueFrom;
            int valueTo;
            if (v < to && line.charAt(v) == '"') {
                end = v + 1;
                boolean escaped = false;
                while (end < to && line.charAt(end) != '"') {
                    if (line.charAt(end) == '\\') {
                        escaped = true;
                        end++;
                    }
                    end++;
                }
                if (end >= to) {
                    return false; // unterminated quoted string
                }
                valueFrom = v + 1;
                valueTo = end;
                end++;
                if (isFor) {
                    if (escaped) {
                        if (valueTo - valueFrom > 64) {
                            return false; // longer than any address literal with a port
                        }
                        String plain = unescape(line, valueFrom, valueTo);
                        return out.parseLenient(plain, 0, plain.length());
                    }
                    return out.parseLenient(line, valueFrom, valueTo);
                }
            } else {
                end = v;
                while (end < to && line.charAt(end) != ';') {
                    end++;
                }
                valueFrom = v;
                valueTo = Ip.trimSpace(line, v, end);
                if (isFor) {
                    // An unquoted value is a token: no brackets or colons are allowed in it, but
                    // proxies in the wild write bare IPv6 and ports; accept what parses.
                    return out.parseLenient(line, valueFrom, valueTo);
                }
            }
            i = Ip.skipSpace(line, end, to);
            if (i < to) {
                if (line.charAt(i) != ';') {
                    return false;
                }
                i++;
            }
        }
        return false;
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
