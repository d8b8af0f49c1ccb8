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
     * <p>Strict, because a network that means something else than it seems is a security hole:
     * an IPv4 octet with a leading zero ({@code 010} is 8 to some parsers, 10 to others), a port
     * or a zone id (no network has one), brackets, a prefix out of range or with a leading zero,
     * and bits set after the prefix ({@code 10.1.2.3/8}: meant {@code /32}, or {@code 10.0.0.0/8}?)
     * are all refused, with a message that says which and how to write it.
     *
     * @param text {@code address} or {@code address/prefix}, e.g. {@code 192.168.0.0/16}; a bare
     *     address is a network of one
     * @return the network
     * @throws NullPointerException if {@code text} is null
     * @throws IllegalArgumentException if it is not a network, e.g. {@code CIDR '10.0.0.0/33': the
     *     prefix of an IPv4 network must be between 0 and 32 but was 33}
     */
    public static Cidr parse(String text) {
        Objects.requireNonNull(text, "text");
        String t = text.strip();
        String problem = problem(t);
        if (problem != null) {
            throw new IllegalArgumentException("CIDR '" + text + "': " + problem);
        }
        return of(t);
    }

    /**
     * Tells what is wrong with a network's text.
     *
     * @param t the text, stripped
     * @return the problem, or {@code null} if {@link #parse} accepts it
     * @throws NullPointerException if {@code t} is null
     */
    public static String problem(String t) {
        if (t.isEmpty()) {
            return "must not be empty";
        }
        String problem = NetworkSyntax.problem(t);
        if (problem != null) {
            return problem;
        }
        Cidr c = of(t);
        Ip ip = new Ip();
        int slash = t.indexOf('/');
        ip.parseStrict(t, 0, slash < 0 ? t.length() : slash);
        if (c.hi != ip.hi || c.lo != ip.lo) {
            String address = t.substring(0, slash);
            return "bits are set after the /" + c.prefix() + " prefix; write " + c + " for the network, or "
                    + address + "/" + (c.v4 ? 32 : 128) + " for the one address";
        }
        return null;
    }

    /** Builds a network from text that {@link NetworkSyntax#problem} accepts. */
    private static Cidr of(String t) {
        int slash = t.indexOf('/');
        int end = slash < 0 ? t.length() : slash;
        Ip ip = new Ip();
        ip.parseStrict(t, 0, end);
        boolean v4 = t.lastIndexOf(':', end) < 0;
        int prefix = slash < 0 ? (v4 ? 32 : 128) : Integer.parseInt(t.substring(slash + 1));
        return new Cidr(ip.hi, ip.lo, v4 ? prefix + 96 : prefix, v4);
    }

    /**
     * @return {@code true} if this network holds every IPv4 address or every IPv6 address
     *     ({@code 0.0.0.0/0}, {@code ::/0}, or an IPv6 network holding {@code ::ffff:0:0/96})
     */
    boolean coversAFamily() {
        return bits == (v4 ? 96 : 0) || (bits <= 96 && (Ip.MAPPED_HI & IpFormat.mask(bits)) == hi
                && (Ip.MAPPED_LO & IpFormat.mask(bits - 64)) == lo);
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
