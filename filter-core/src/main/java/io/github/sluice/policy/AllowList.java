package io.github.sluice.policy;

import io.github.sluice.key.Cidr;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.Keys;
import io.github.sluice.request.RequestView;
import io.github.sluice.internal.Names;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Clients that bypass a policy: networks (an entry that parses as an address or CIDR, e.g.
 * {@code 10.0.0.0/8}, compared with the client's address) and keys (any other entry, compared
 * with the key the policy's resolver produced, e.g. a partner's API key).
 *
 * <p>The client address used for networks is the one resolved by the enforcer's
 * {@link ClientAddress} (the configured trusted proxies apply), whatever the policy's key.
 *
 * <p>Keys are compared with the key after the enforcer bounded it ({@link Keys#bound}): a key
 * entry too long to survive that bound also matches as its digest, so a partner's 300-character
 * token can be listed as it is; an entry written as a digest ({@code sha256:...}, e.g. copied
 * from a debug log) matches the long key it is the digest of, and never a client that sends
 * that text verbatim (which is hashed again).
 *
 * <p>Immutable and thread-safe.
 */
public final class AllowList {

    /** The empty allow-list. */
    public static final AllowList NONE = new AllowList(List.of(), Set.of());

    private final List<Cidr> networks;
    private final Cidr[] networkArray;
    private final Set<String> keys;
    /** The keys, and the digests of those longer than a digest, as the enforcer's bound may hash them. */
    private final Set<String> matched;

    private AllowList(List<Cidr> networks, Set<String> keys) {
        this.networks = List.copyOf(networks);
        this.networkArray = this.networks.toArray(new Cidr[0]);
        this.keys = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(keys));
        Set<String> m = new java.util.HashSet<>(keys);
        for (String k : keys) {
            if (k.length() > Keys.HASH_LENGTH && !k.startsWith(Keys.HASH_PREFIX)) {
                m.add(Keys.hash(k));
            }
        }
        this.matched = Set.copyOf(m);
    }

    /**
     * Creates an allow-list.
     *
     * @param entries networks ({@code 10.0.0.0/8}, {@code 192.0.2.7}, {@code 2001:db8::/32}) and
     *     keys (anything else without whitespace)
     * @return the allow-list
     * @throws NullPointerException if an entry is null
     * @throws IllegalArgumentException if an entry is blank or holds whitespace, looks like an
     *     address but is not a valid network (see {@link Cidr#parse}), or starts with
     *     {@value Keys#HASH_PREFIX} without being a digest
     */
    public static AllowList of(Collection<String> entries) {
        List<Cidr> networks = new ArrayList<>();
        Set<String> keys = new LinkedHashSet<>();
        for (String e : entries) {
            Objects.requireNonNull(e, "allow entry");
            String t = e.strip();
            Cidr c = tryCidr(t);
            if (c != null) {
                networks.add(c);
            } else {
                String k = Names.word("allow entry", t);
                if (k.startsWith(Keys.HASH_PREFIX) && !Keys.isDigest(k)) {
                    throw new IllegalArgumentException("allow entry '" + k + "' starts with '" + Keys.HASH_PREFIX
                            + "', which only digests do, but is not one (" + Keys.HASH_PREFIX
                            + " and 32 base64url characters): no key could ever match it");
                }
                keys.add(k);
            }
        }
        return networks.isEmpty() && keys.isEmpty() ? NONE : new AllowList(networks, keys);
    }

    /**
     * Creates an allow-list.
     *
     * @param entries networks and keys
     * @return the allow-list
     * @throws NullPointerException if an entry is null
     * @throws IllegalArgumentException if an entry is blank or holds whitespace
     */
    public static AllowList of(String... entries) {
        return of(List.of(entries));
    }

    /**
     * Reads an entry that looks like an address as a network, strictly: a malformed one (a prefix
     * out of range, an octet with a leading zero, a port) is refused rather than kept as a key that
     * no client address could ever equal.
     *
     * @return the network, or {@code null} if the entry does not look like an address
     */
    private static Cidr tryCidr(String t) {
        if (!looksLikeAddress(t)) {
            return null;
        }
        String problem = Cidr.problem(t);
        if (problem != null) {
            throw new IllegalArgumentException("allow entry '" + t + "': " + problem);
        }
        return Cidr.parse(t);
    }

    /**
     * An entry is taken for an address when the part before any {@code /} starts with a digit (of
     * any script, so that a non-ASCII digit is reported rather than taken for a key) and holds
     * only digits, dots and colons, with a dot or followed by a numeric prefix; or when it starts
     * with a bracket; or holds {@code ::} after at most four hex digits; or is made of at least
     * three colon-separated groups of one to four hex digits. Keys such as {@code partner},
     * {@code 12345} or the tagged keys of fallback chains ({@code ip:192.0.2.1},
     * {@code attribute:tenant:acme}) are not.
     */
    static boolean looksLikeAddress(String t) {
        if (t.isEmpty()) {
            return false;
        }
        int slash = t.indexOf('/');
        String head = slash < 0 ? t : t.substring(0, slash);
        if (!head.isEmpty() && Character.isDigit(head.charAt(0))) {
            boolean dot = false;
            boolean other = false;
            for (int i = 0; i < head.length(); i++) {
                char c = head.charAt(i);
                if (c == '.' || c == ':') {
                    dot |= c == '.';
                } else if (!Character.isDigit(c)) {
                    other = true;
                }
            }
            boolean numericPrefix = slash >= 0 && t.substring(slash + 1).chars().allMatch(Character::isDigit);
            if (!other && (dot || numericPrefix)) {
                return true;
            }
        }
        if (t.charAt(0) == '[') {
            return true;
        }
        String first = t.substring(0, Math.max(0, t.indexOf(':')));
        if (t.contains("::") && first.length() <= 4 && first.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            return true; // not a tagged chain key such as ip:2001:db8::/64
        }
        int end = t.length();
        for (int i = 0; i < t.length(); i++) {
            if (t.charAt(i) == '/' || t.charAt(i) == '%') {
                end = i;
                break;
            }
        }
        String[] groups = t.substring(0, end).split(":", -1);
        if (groups.length < 3) {
            return false;
        }
        for (String g : groups) {
            if (g.isEmpty() || g.length() > 4 || !g.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.')) {
                return false;
            }
        }
        return true;
    }

    /** @return {@code true} if nothing is allowed through */
    public boolean isEmpty() {
        return networkArray.length == 0 && keys.isEmpty();
    }

    /** @return the networks */
    public List<Cidr> networks() {
        return networks;
    }

    /** @return the keys */
    public Set<String> keys() {
        return keys;
    }

    /**
     * Tells whether a request bypasses the policy.
     *
     * @param key the key the policy's resolver produced
     * @param request the request
     * @param addresses how to find the client's address for network entries
     * @return {@code true} if the key or the client's address is listed
     */
    public boolean allows(String key, RequestView request, ClientAddress addresses) {
        if (key != null && matched.contains(key)) {
            return true;
        }
        if (networkArray.length == 0) {
            return false;
        }
        return addresses.clientIn(request, networkArray);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AllowList a && a.networks.equals(networks) && a.keys.equals(keys);
    }

    @Override
    public int hashCode() {
        return Objects.hash(networks, keys);
    }

    /** @return the entries, comma-separated, as in the configuration language */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Cidr c : networks) {
            b.append(b.length() > 0 ? "," : "").append(c);
        }
        for (String k : keys) {
            b.append(b.length() > 0 ? "," : "").append(k);
        }
        return b.toString();
    }
}
