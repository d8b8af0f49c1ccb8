package io.github.sluice.key;

import java.util.Objects;

/**
 * An IPv4 or IPv6 network in CIDR notation, e.g. {@code 10.0.0.0/8} or {@code 2001:db8::/32}; a
 * bare address is a network of one ({@code /32} or {@code /128}). IPv4 networks also contain the
 * IPv4-mapped IPv6 forms of their addresses.
 *
 * <p>Parsing never consults DNS. Immutable and thread-safe.
 */
public final class Cidr {

    private final long hi;
    private final long lo;
    /** Prefix length over the 128-bit (IPv4-mapped for IPv4) address. */
    private final int bits;
    private final boolean v4;

    private Cidr(long hi, long lo, int bits, boolean v4) {
        this.bits = bits;
        this.hi = hi & IpFormat.mask(bits);
        this.lo = lo & IpFormat.mask(bits - 64);
        this.v4 = v4;
    }

    /**
     * Parses a network.
     *
     * @param text {@code address} or {@code address/prefix}, e.g. {@code 192.168.0.0/16}
     * @return the network; host bits after the prefix are ignored ({@code 10.1.2.3/8} is
     *     {@code 10.0.0.0/8})
     * @throws NullPointerException if {@code text} is null
     * @throws IllegalArgumentException if it is not an address with an optional prefix in range
     */
    public static Cidr parse(String text) {
        Objects.requireNonNull(text, "text");
        String t = text.strip();
        int slash = t.indexOf('/');
        int end = slash < 0 ? t.length() : slash;
        Ip ip = new Ip();
        if (!ip.parseStrict(t, 0, end)) {
            throw new IllegalArgumentException(
                    "CIDR must be an IPv4 or IPv6 address with an optional /prefix but was '" + text + "'");
        }
        boolean v4 = ip.isV4() && t.indexOf(':') < 0;
        int max = v4 ? 32 : 128;
        int prefix = max;
        if (slash >= 0) {
            String p = t.substring(slash + 1);
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException(
                        "CIDR prefix must be a number between 0 and " + max + " but was '" + text + "'");
            }
            prefix = Integer.parseInt(p);
            if (prefix > max) {
                throw new IllegalArgumentException(
                        "CIDR prefix must be between 0 and " + max + " but was " + prefix + " in '" + text + "'");
            }
        }
        return new Cidr(ip.hi, ip.lo, v4 ? prefix + 96 : prefix, v4);
    }

    /**
     * Tells whether the address given as text lies in this network. Text that is not an address
     * (see {@link ClientAddress} for what is tolerated) is in no network.
     *
     * @param address an address literal
     * @return {@code true} if it parses and lies in this network
     */
    public boolean contains(String address) {
        if (address == null) {
            return false;
        }
        Ip ip = new Ip();
        return ip.parseLenient(address, 0, address.length()) && containsIp(ip);
    }

    boolean containsIp(Ip ip) {
        return (ip.hi & IpFormat.mask(bits)) == hi && (ip.lo & IpFormat.mask(bits - 64)) == lo;
    }

    /** @return the prefix length, 0..32 for IPv4, 0..128 for IPv6 */
    public int prefix() {
        return v4 ? bits - 96 : bits;
    }

    /** @return {@code true} for an IPv4 network */
    public boolean ipv4() {
        return v4;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c && c.hi == hi && c.lo == lo && c.bits == bits && c.v4 == v4;
    }

    @Override
    public int hashCode() {
        return Objects.hash(hi, lo, bits, v4);
    }

    /** @return the canonical notation, e.g. {@code 10.0.0.0/8} or {@code 2001:db8::/32} */
    @Override
    public String toString() {
        Ip ip = new Ip();
        ip.hi = hi;
        ip.lo = lo;
        if (v4) {
            return IpFormat.format(ip, 128) + "/" + prefix();
        }
        StringBuilder b = new StringBuilder();
        IpFormat.appendV6(b, hi, lo);
        return b.append('/').append(bits).toString();
    }
}
