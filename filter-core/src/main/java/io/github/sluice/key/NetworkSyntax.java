package io.github.sluice.key;

/**
 * Explains why a network written in configuration is not one: the strict grammar behind
 * {@link Cidr#parse}, run once at start-up, with a message that names the fault and, where
 * there is one obvious intent, how to write it ({@code write 192.168.1.0/24}).
 *
 * <p>The hot path never comes here: requests are parsed by {@link Ip}, which only says yes or no.
 */
final class NetworkSyntax {

    private NetworkSyntax() {
    }

    /**
     * @param t a network's text, stripped and not empty
     * @return what is wrong with it, or {@code null} if it is an address with an optional valid
     *     prefix (host bits are checked by the caller)
     */
    static String problem(String t) {
        int slashes = count(t, '/');
        if (slashes > 1) {
            return "a network has one '/' before its prefix but this has " + slashes;
        }
        int slash = t.indexOf('/');
        String address = slash < 0 ? t : t.substring(0, slash);
        String suffix = slash < 0 ? "" : t.substring(slash);
        if (address.startsWith("[")) {
            int close = address.indexOf(']');
            if (close > 0) {
                String inner = address.substring(1, close);
                String after = address.substring(close + 1);
                if (after.isEmpty()) {
                    return "write an IPv6 " + (slash < 0 ? "address" : "network") + " without brackets: "
                            + inner + suffix;
                }
                if (after.startsWith(":")) {
                    return "a network has no port; write " + inner + suffix;
                }
            }
            return generic();
        }
        int pct = address.indexOf('%');
        if (pct >= 0) {
            return "a network has no zone id; write " + address.substring(0, pct) + suffix;
        }
        int colons = count(address, ':');
        if (colons == 1 && address.indexOf('.') >= 0) {
            return "a network has no port; write " + address.substring(0, address.indexOf(':')) + suffix;
        }
        String why = colons == 0 ? ipv4(address, suffix) : ipv6(address);
        if (why != null) {
            return why;
        }
        if (slash >= 0) {
            return prefix(t.substring(slash + 1), colons == 0 ? 32 : 128, address);
        }
        return null;
    }

    private static String generic() {
        return "must be an IPv4 or IPv6 address with an optional /prefix, such as 10.0.0.0/8 or 2001:db8::/32";
    }

    private static String ipv4(String a, String suffix) {
        if (a.isEmpty() || !Character.isDigit(a.charAt(0))) {
            return generic(); // a host name, a word: not an attempt at an address
        }
        for (int i = 0; i < a.length(); i++) {
            char c = a.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return notAllowed(c, "an IPv4 address");
            }
        }
        String[] octets = a.split("\\.", -1);
        if (octets.length != 4) {
            return "an IPv4 address has 4 octets but this has " + octets.length;
        }
        StringBuilder fixed = new StringBuilder();
        String leadingZero = null;
        for (String o : octets) {
            if (o.isEmpty()) {
                return "an IPv4 address has no empty octet";
            }
            if (o.length() > 3 || Integer.parseInt(o) > 255) {
                return "IPv4 octet '" + o + "' is above 255";
            }
            if (o.length() > 1 && o.charAt(0) == '0' && leadingZero == null) {
                leadingZero = o;
            }
            fixed.append(fixed.length() > 0 ? "." : "").append(Integer.parseInt(o));
        }
        if (leadingZero != null) {
            return "IPv4 octet '" + leadingZero + "' has a leading zero, which some systems read as octal; write "
                    + fixed + suffix;
        }
        return null;
    }

    private static String ipv6(String a) {
        for (int i = 0; i < a.length(); i++) {
            char c = a.charAt(i);
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!hex && c != ':' && c != '.') {
                return c < 0x80 && Character.isLetter(c) ? "'" + c + "' is not a hex digit"
                        : notAllowed(c, "an IPv6 address");
            }
        }
        int gap = a.indexOf("::");
        if (gap >= 0 && a.indexOf("::", gap + 1) >= 0) {
            return "'::' may appear only once in an IPv6 address";
        }
        if (a.contains(":::")) {
            return "an IPv6 address has no empty group (':::')";
        }
        String[] sides = gap < 0 ? new String[] {a} : new String[] {a.substring(0, gap), a.substring(gap + 2)};
        int groups = 0;
        for (int si = 0; si < sides.length; si++) {
            if (sides[si].isEmpty() && gap >= 0) {
                continue;
            }
            String[] parts = sides[si].split(":", -1);
            for (int i = 0; i < parts.length; i++) {
                String p = parts[i];
                if (p.isEmpty()) {
                    return "an IPv6 address has no empty group (a single ':' at its start or end)";
                }
                if (p.indexOf('.') >= 0) {
                    if (si != sides.length - 1 || i != parts.length - 1) {
                        return "an IPv4 address may end an IPv6 address only as its last two groups";
                    }
                    String why = ipv4(p, "");
                    if (why != null) {
                        return why;
                    }
                    groups += 2;
                    continue;
                }
                if (p.length() > 4) {
                    return "an IPv6 group has at most 4 hex digits but '" + p + "' has " + p.length();
                }
                groups++;
            }
        }
        if (gap < 0 && groups != 8) {
            return groups > 8 ? "an IPv6 address has 8 groups but this has " + groups
                    : "an IPv6 address has 8 groups, or fewer with '::', but this has " + groups + " and no '::'";
        }
        if (gap >= 0 && groups > 7) {
            return "an IPv6 address with '::' has at most 7 groups but this has " + groups;
        }
        return new Ip().parseStrict(a, 0, a.length()) ? null : generic();
    }

    private static String prefix(String p, int max, String address) {
        if (p.isEmpty()) {
            return "the prefix after '/' is missing";
        }
        for (int i = 0; i < p.length(); i++) {
            if (p.charAt(i) < '0' || p.charAt(i) > '9') {
                return "the prefix must be a whole number between 0 and " + max + " but was '" + p + "'";
            }
        }
        int value = p.length() > 3 ? Integer.MAX_VALUE : Integer.parseInt(p);
        if (value > max) {
            return "the prefix of an IPv" + (max == 32 ? 4 : 6) + " network must be between 0 and " + max
                    + " but was " + p;
        }
        if (p.length() > 1 && p.charAt(0) == '0') {
            return "the prefix has a leading zero; write " + address + "/" + value;
        }
        return null;
    }

    private static String notAllowed(char c, String what) {
        String code = String.format("U+%04X", (int) c);
        if (Character.isDigit(c)) {
            return "'" + c + "' (" + code + ") is not an ASCII digit; write addresses with 0-9";
        }
        return (c < 0x20 || c >= 0x7f ? code : "'" + c + "' (" + code + ")") + " is not allowed in " + what;
    }

    private static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                n++;
            }
        }
        return n;
    }
}
