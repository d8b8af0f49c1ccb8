package io.github.sluice.key;

import io.github.sluice.request.RequestView;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * The {@code ip} key: the client's address, seen through trusted reverse proxies.
 *
 * <h2>Rules</h2>
 * <ol>
 *   <li>The TCP peer's address ({@link RequestView#peerAddress()}) is the client unless it lies
 *       in a trusted proxy network. By default no proxy is trusted, and forwarding headers are
 *       ignored entirely: anybody can write them.
 *   <li>When the peer is a trusted proxy, the {@link ForwardedHeader} is read: all its field
 *       lines joined in order, then walked <em>from the right</em>. Each address that is a trusted
 *       proxy is skipped; the first untrusted address is the client. The leftmost value is never
 *       taken just because it is leftmost: a client can put anything there.
 *   <li>Each line is read from the right too ({@link HopScanner}): the hops a trusted proxy
 *       appended are parsed exactly as it wrote them, whatever the client put to their left; a
 *       quote the client leaves open or escapes cannot swallow them.
 *   <li>A value that is not an address (garbage, {@code unknown}, an obfuscated {@code _node},
 *       an RFC 7239 element without {@code for=} or that does not parse cleanly) stops the walk,
 *       and nothing left of it is read: the key is the last good address, i.e. the trusted hop
 *       whose view the bad value was. A client-chosen value behind an untrusted hop can therefore
 *       never become the key. When every hop is trusted, the key is the leftmost (trusted)
 *       address.
 *   <li>IPv6 clients are grouped by prefix (default {@code /64}: one key per subscriber site,
 *       which typically owns a whole /64), written like {@code 2001:db8:1:2::/64}; IPv4-mapped
 *       IPv6 ({@code ::ffff:192.0.2.1}) is IPv4. Brackets, ports and zones are tolerated.
 *   <li>A missing or unparseable peer address yields the key {@code unknown}: one shared bucket,
 *       rather than no limit at all.
 * </ol>
 *
 * <p>Parsing is done here, on the characters, with no {@code InetAddress} (which may query DNS)
 * and never throws. At most {@value #MAX_HOPS} hops are examined from the right, and a line is
 * read only as far left as the walk goes, so a 64 KiB header costs at most one linear scan.
 *
 * <p>Allocation: a direct IPv4 peer in canonical form is returned as the very string the
 * adapter passed; otherwise the key string and a small parse holder are allocated.
 *
 * <p>Immutable and thread-safe.
 */
public final class ClientAddress implements KeyResolver {

    /** Hops examined from the right of a forwarding header before giving up on the walk. */
    public static final int MAX_HOPS = 64;
    /** The key when the peer's address is missing or not an address. */
    public static final String UNKNOWN = "unknown";

    /** No proxy trusted, IPv6 grouped by /64: the default {@code ip} key. */
    public static final ClientAddress DIRECT = builder().build();

    private final List<Cidr> trusted;
    private final Cidr[] trustedArray;
    private final ForwardedHeader header;
    private final int ipv6Prefix;

    private ClientAddress(Builder b) {
        this.trusted = List.copyOf(b.trusted);
        this.trustedArray = trusted.toArray(new Cidr[0]);
        this.header = b.header;
        this.ipv6Prefix = b.ipv6Prefix;
    }

    /** @return a builder: no trusted proxy, {@code X-Forwarded-For}, IPv6 prefix 64 */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the trusted proxy networks, possibly empty */
    public List<Cidr> trustedProxies() {
        return trusted;
    }

    /** @return the header walked when the peer is a trusted proxy */
    public ForwardedHeader header() {
        return header;
    }

    /** @return the IPv6 prefix length that groups clients, 1..128 */
    public int ipv6Prefix() {
        return ipv6Prefix;
    }

    /**
     * Resolves the client's address key. Never {@code null}, never throws.
     *
     * @param request the request
     * @return {@code a.b.c.d}, an IPv6 prefix like {@code 2001:db8::/64}, or {@link #UNKNOWN}
     */
    @Override
    public String resolve(RequestView request) {
        String peer = request.peerAddress();
        if (peer == null) {
            return UNKNOWN;
        }
        if (trustedArray.length == 0 && Ip.parseV4Bits(peer, 0, peer.length()) >= 0) {
            return peer; // the common case: a canonical IPv4 literal is its own key, nothing allocated
        }
        Ip ip = new Ip();
        if (!ip.parseLenient(peer, 0, peer.length())) {
            return UNKNOWN;
        }
        if (trustedArray.length == 0 || !isTrusted(ip)) {
            return peerKey(peer, ip);
        }
        walk(request, ip);
        return IpFormat.format(ip, ipv6Prefix);
    }

    /**
     * Tells whether the client's address, found as {@link #resolve} finds it, lies in one of
     * {@code networks}: the test behind allow-lists of networks.
     *
     * @param request the request
     * @param networks the networks; not copied, not modified
     * @return {@code true} if the address is known and in a network; {@code false} if the address
     *     is unknown or in none of them
     * @throws NullPointerException if an argument is null
     */
    public boolean clientIn(RequestView request, Cidr... networks) {
        Ip ip = new Ip();
        if (!resolveInto(request, ip)) {
            return false;
        }
        for (Cidr c : networks) {
            if (c.containsIp(ip)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Resolves the client's address into {@code out} (the full address, not the prefix).
     *
     * @return {@code false} if the peer's address is unknown
     */
    boolean resolveInto(RequestView request, Ip out) {
        String peer = request.peerAddress();
        if (peer == null || !out.parseLenient(peer, 0, peer.length())) {
            return false;
        }
        if (trustedArray.length > 0 && isTrusted(out)) {
            walk(request, out);
        }
        return true;
    }

    private String peerKey(String peer, Ip ip) {
        // A canonical IPv4 literal is its own key: the common case allocates no string.
        if (ip.isV4() && Ip.parseV4Bits(peer, 0, peer.length()) >= 0) {
            return peer;
        }
        return IpFormat.format(ip, ipv6Prefix);
    }

    boolean isTrusted(Ip ip) {
        for (Cidr c : trustedArray) {
            if (c.containsIp(ip)) {
                return true;
            }
        }
        return false;
    }

    /** Walks the forwarding header from the right; {@code ip} holds the last good address. */
    private void walk(RequestView request, Ip ip) {
        Iterator<String> lines;
        try {
            lines = request.headers(header.headerName());
        } catch (RuntimeException e) {
            return; // a broken adapter must not open the gate: keep the proxy's address
        }
        if (lines == null || !lines.hasNext()) {
            return;
        }
        String first = lines.next();
        List<String> more = null;
        while (lines.hasNext()) {
            if (more == null) {
                more = new ArrayList<>(2);
            }
            more.add(lines.next());
        }
        Ip candidate = new Ip();
        HopScanner hops = new HopScanner(header);
        int budget = MAX_HOPS;
        // Lines are joined in order, so the last line holds the rightmost hops.
        for (int li = more == null ? 0 : more.size(); li >= 0; li--) {
            String line = li == 0 ? first : more.get(li - 1);
            if (line == null) {
                continue;
            }
            hops.reset(line);
            int hop;
            while ((hop = hops.next(candidate)) != HopScanner.END) {
                if (budget-- == 0) {
                    return; // more hops than we examine: the rightmost ones were all trusted
                }
                if (hop == HopScanner.NOT_AN_ADDRESS) {
                    return; // garbage, unknown, obfuscated, malformed: keep the last good address
                }
                ip.set(candidate);
                if (!isTrusted(candidate)) {
                    return;
                }
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClientAddress c && c.trusted.equals(trusted) && c.header == header
                && c.ipv6Prefix == ipv6Prefix;
    }

    @Override
    public int hashCode() {
        return Objects.hash(trusted, header, ipv6Prefix);
    }

    @Override
    public String toString() {
        return "ip{trusted=" + trusted + ", header=" + header.headerName() + ", ipv6Prefix=" + ipv6Prefix + '}';
    }

    /** Builds a {@link ClientAddress}. Not thread-safe. */
    public static final class Builder {
        private final List<Cidr> trusted = new ArrayList<>();
        private ForwardedHeader header = ForwardedHeader.X_FORWARDED_FOR;
        private int ipv6Prefix = 64;

        private Builder() {
        }

        /**
         * Adds trusted proxy networks.
         *
         * @param cidrs networks such as {@code 10.0.0.0/8}, {@code 2001:db8::/32} or single addresses
         * @return this builder
         * @throws NullPointerException if an element is null
         * @throws IllegalArgumentException if an element is not a network (see {@link Cidr#parse}),
         *     or holds every IPv4 or every IPv6 address ({@code 0.0.0.0/0}, {@code ::/0})
         */
        public Builder trustedProxies(String... cidrs) {
            for (String c : cidrs) {
                trusted.add(notEverything(Cidr.parse(c)));
            }
            return this;
        }

        /**
         * Adds trusted proxy networks.
         *
         * @param cidrs the networks
         * @return this builder
         * @throws NullPointerException if an element is null
         * @throws IllegalArgumentException if a network holds every IPv4 or every IPv6 address
         */
        public Builder trustedProxies(List<Cidr> cidrs) {
            for (Cidr c : cidrs) {
                trusted.add(notEverything(Objects.requireNonNull(c, "cidr")));
            }
            return this;
        }

        /** Trusting every address would make the forwarding header, which anyone writes, the key. */
        private static Cidr notEverything(Cidr c) {
            if (c.coversAFamily()) {
                throw new IllegalArgumentException("trusted proxies must not include " + c
                        + ": trusting every address lets any client choose its own key through the forwarding header");
            }
            return c;
        }

        /**
         * Sets the header that trusted proxies write. Default {@link ForwardedHeader#X_FORWARDED_FOR}.
         *
         * @param header the header
         * @return this builder
         * @throws NullPointerException if {@code header} is null
         */
        public Builder header(ForwardedHeader header) {
            this.header = Objects.requireNonNull(header, "header");
            return this;
        }

        /**
         * Sets how IPv6 clients are grouped. Default 64.
         *
         * @param bits the prefix length kept, 1..128 (128: one key per address)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder ipv6Prefix(int bits) {
            if (bits < 1 || bits > 128) {
                throw new IllegalArgumentException("ipv6-prefix must be between 1 and 128 but was " + bits);
            }
            this.ipv6Prefix = bits;
            return this;
        }

        /** @return the resolver */
        public ClientAddress build() {
            return new ClientAddress(this);
        }
    }
}
