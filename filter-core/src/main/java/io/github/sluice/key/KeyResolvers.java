package io.github.sluice.key;

import io.github.sluice.request.RequestView;
import io.github.sluice.internal.Names;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The built-in {@link KeyResolver}s. Each is a value (equal configurations are equal) whose
 * {@code toString()} is its form in the configuration language, e.g. {@code header:X-Api-Key}.
 * All are thread-safe and never throw on request content.
 */
public final class KeyResolvers {

    /** The key of {@link #global()}. */
    public static final String GLOBAL = "global";

    private KeyResolvers() {
    }

    /**
     * The client's address under the default settings ({@link ClientAddress#DIRECT}: no proxy
     * trusted). The enforcer resolves it with its own client-address settings (trusted proxies,
     * forwarding header, IPv6 prefix; see {@link #withClientAddress}), the same that its
     * allow-lists use, so behind a reverse proxy those are given once, to the enforcer.
     *
     * @return the resolver ({@code ip})
     */
    public static ClientAddress ip() {
        return ClientAddress.DIRECT;
    }

    /**
     * Returns {@code key} with the given client-address settings behind its {@code ip}: the key
     * itself when it is {@link #ip()} (a {@link ClientAddress} equal to
     * {@link ClientAddress#DIRECT}), each such element of a {@link #firstOf} chain, and nothing
     * else. The enforcer applies this to every policy, so that the settings it was given serve
     * both the {@code ip} keys and the allow-lists.
     *
     * @param key a key, e.g. a policy's
     * @param addresses the client-address settings
     * @return the key with {@code addresses} as its {@code ip}; {@code key} itself if nothing changed
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code key} holds a {@link ClientAddress} with settings of
     *     its own that differ from {@code addresses}: two sets of client-address settings, one for
     *     keys and one for allow-lists, would each be right for only one of them
     */
    public static KeyResolver withClientAddress(KeyResolver key, ClientAddress addresses) {
        Objects.requireNonNull(addresses, "addresses");
        if (Objects.requireNonNull(key, "key") instanceof ClientAddress own) {
            if (own.equals(addresses)) {
                return own;
            }
            if (own.equals(ClientAddress.DIRECT)) {
                return addresses;
            }
            throw new IllegalArgumentException("key ip must use the client-address settings given to the enforcer ("
                    + addresses + ") but has its own (" + own + "); give trusted proxies, forwarded header and"
                    + " IPv6 prefix once, to the enforcer, and key the policy with KeyResolvers.ip()");
        }
        if (key instanceof FirstOf chain) {
            List<KeyResolver> resolvers = new java.util.ArrayList<>(chain.resolvers());
            boolean changed = false;
            for (int i = 0; i < resolvers.size(); i++) {
                KeyResolver r = withClientAddress(resolvers.get(i), addresses);
                changed |= r != resolvers.get(i);
                resolvers.set(i, r);
            }
            return changed ? new FirstOf(List.copyOf(resolvers), chain.tags()) : chain;
        }
        return key;
    }

    /**
     * A resolver the application registers by name, written {@code bean:<name>} in the policy
     * language (in Spring Boot, a bean of type {@link KeyResolver} with that name). Until it is
     * bound, with {@link #withNamed} (which {@code Enforcer.Builder.build()} does with the
     * resolvers given to {@code Enforcer.Builder.keyResolver(name, resolver)}), it is a reference
     * only, and resolving a request with it throws. Once bound it resolves as the registered
     * resolver does, except that an exception that resolver throws is caught and yields no key,
     * as for {@link #custom}. In a {@link #firstOf} chain its keys are tagged {@code bean:<name>:}.
     *
     * @param name the registered name
     * @return the unbound reference ({@code bean:<name>}); equal to every other reference to {@code name}
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or holds whitespace
     */
    public static KeyResolver bean(String name) {
        return new NamedKey(Names.word("bean", name), null);
    }

    /**
     * Returns {@code key} with every {@code bean:<name>} reference (see {@link #bean}) bound to the
     * resolver {@code registered} returns for its name: {@code key} itself if it holds none, a new
     * chain if a {@link #firstOf} chain holds some (with the same tags). A reference that is
     * bound already is bound again, so that an enforcer built twice uses its own registrations.
     *
     * @param key a key, e.g. a policy's
     * @param registered returns the resolver registered under a name, or {@code null} if none is
     * @return the bound key
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a name has no resolver; the message names it
     */
    public static KeyResolver withNamed(KeyResolver key, Function<String, KeyResolver> registered) {
        Objects.requireNonNull(registered, "registered");
        if (Objects.requireNonNull(key, "key") instanceof NamedKey named) {
            KeyResolver r = registered.apply(named.name());
            if (r == null) {
                throw new IllegalArgumentException("key bean:" + named.name() + " names no registered key resolver;"
                        + " register one under '" + named.name() + "' (Enforcer.Builder.keyResolver(name, resolver),"
                        + " or in Spring Boot a KeyResolver bean of that name)");
            }
            if (r instanceof NamedKey) {
                throw new IllegalArgumentException("key bean:" + named.name() + " must be registered with a resolver"
                        + " of its own, not with the reference " + r);
            }
            return new NamedKey(named.name(), r);
        }
        if (key instanceof FirstOf chain) {
            List<KeyResolver> resolvers = new java.util.ArrayList<>(chain.resolvers());
            boolean changed = false;
            for (int i = 0; i < resolvers.size(); i++) {
                KeyResolver r = withNamed(resolvers.get(i), registered);
                changed |= r != resolvers.get(i);
                resolvers.set(i, r);
            }
            return changed ? new FirstOf(List.copyOf(resolvers), chain.tags()) : chain;
        }
        return key;
    }

    /**
     * The first line of a request header, without the optional whitespace around a field value
     * (spaces and horizontal tabs, RFC 9110 {@code OWS}; nothing else is removed), e.g. an API key.
     * An absent header, or one of only such whitespace, yields no key (the policy does not
     * apply); chain with {@link #firstOf} to fall back. A client chooses this value freely: use it
     * only for identities the application checks. Allow-listed keys on such a policy exempt any
     * client that sends one, and a partition read from a header is claimed by any client that
     * names it: the enforcer's start-up line warns about both ({@link #clientHeaders}).
     *
     * @param name the header name
     * @return the resolver ({@code header:<name>})
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is not an HTTP token
     */
    public static KeyResolver header(String name) {
        return new HeaderKey(Names.token("header", name));
    }

    /**
     * The request headers a key is read from, which any client can write: the name of each
     * {@link #header} resolver in {@code key}, a {@link #firstOf} chain's included, in order. The
     * forwarding header behind {@link #ip()} is not among them (only trusted proxies are believed),
     * nor what a {@link #bean} or {@link #custom} resolver reads, which only the application knows.
     *
     * @param key a key, e.g. a policy's key or partition
     * @return the header names as configured, empty if none
     * @throws NullPointerException if {@code key} is null
     */
    public static List<String> clientHeaders(KeyResolver key) {
        if (Objects.requireNonNull(key, "key") instanceof HeaderKey h) {
            return List.of(h.name());
        }
        if (key instanceof FirstOf chain) {
            List<String> names = new java.util.ArrayList<>();
            for (KeyResolver r : chain.resolvers()) {
                names.addAll(clientHeaders(r));
            }
            return List.copyOf(names);
        }
        return List.of();
    }

    /**
     * The authenticated principal's name, verbatim (not trimmed: {@code " alice"} and
     * {@code "alice"} are two keys); unauthenticated requests, and an empty name, yield no key.
     *
     * @return the resolver ({@code principal})
     */
    public static KeyResolver principal() {
        return PrincipalKey.INSTANCE;
    }

    /**
     * A request attribute's {@code toString()}, verbatim (not trimmed), e.g. a tenant id set by an
     * earlier filter; an absent attribute, or one whose {@code toString()} is empty, yields no key.
     *
     * @param name the attribute name
     * @return the resolver ({@code attribute:<name>})
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or holds whitespace
     */
    public static KeyResolver attribute(String name) {
        return new AttributeKey(Names.word("attribute", name));
    }

    /**
     * The same key for every request: one limit shared by all clients.
     *
     * @param value the key
     * @return the resolver ({@code constant:<value>})
     * @throws NullPointerException if {@code value} is null
     * @throws IllegalArgumentException if {@code value} is blank or holds whitespace
     */
    public static KeyResolver constant(String value) {
        return new ConstantKey(Names.word("constant", value));
    }

    /**
     * The constant key {@value #GLOBAL}: one limit for the whole application.
     *
     * @return the resolver ({@code global})
     */
    public static KeyResolver global() {
        return ConstantKey.GLOBAL_KEY;
    }

    /**
     * The first key any of {@code resolvers} yields, e.g. {@code firstOf(principal(),
     * header("X-Api-Key"), ip())}. Keys are tagged by their source ({@code principal:alice},
     * {@code header:X-Api-Key:k-123}, {@code attribute:tenant:acme}, {@code ip:192.0.2.1},
     * {@code custom:<name>:...}; a resolver of another class by its place, {@code #2:...}), so
     * that a value from one source never shares the quota of the same value from another: an
     * API key equal to someone's user name or address, a user name equal to a tenant's.
     *
     * @param resolvers at least two resolvers, tried in order
     * @return the resolver ({@code a|b|c}); yields no key only if none does
     * @throws NullPointerException if an element is null
     * @throws IllegalArgumentException if fewer than two are given; if a source is given twice,
     *     or two tags could produce the same key ({@code attribute:a} and {@code attribute:a:b});
     *     or if a resolver that always yields a key ({@code ip}, {@code global},
     *     {@code constant:...}) is followed by others, which could never be reached
     */
    public static KeyResolver firstOf(KeyResolver... resolvers) {
        List<KeyResolver> list = List.of(resolvers);
        if (list.size() < 2) {
            throw new IllegalArgumentException(
                    "a key fallback chain must have at least 2 resolvers but had " + list.size());
        }
        String[] tags = new String[list.size()];
        for (int i = 0; i < tags.length; i++) {
            KeyResolver r = list.get(i);
            tags[i] = tag(r, i);
            for (int j = 0; j < i; j++) {
                if (comparable(tags[j]).equals(comparable(tags[i]))) {
                    throw new IllegalArgumentException("a key fallback chain must not name '" + tags[i] + "' twice");
                }
                String shorter = tags[j].length() < tags[i].length() ? tags[j] : tags[i];
                String longer = shorter == tags[j] ? tags[i] : tags[j];
                if (comparable(longer).startsWith(comparable(shorter) + ':')) {
                    throw new IllegalArgumentException("a key fallback chain must not hold both '" + shorter
                            + "' and '" + longer + "': their keys could be equal");
                }
            }
            if (i > 0 && alwaysYields(list.get(i - 1))) {
                throw new IllegalArgumentException("a key fallback chain must end at '" + name(list.get(i - 1))
                        + "', which always yields a key, but '" + name(r) + "' follows it");
            }
        }
        return new FirstOf(list, tags);
    }

    /**
     * The tag of a chain element: its configuration name, which no other source shares; the tag
     * of a resolver that has none is its place, stable across instances (unlike a lambda's
     * {@code toString()}, which holds an identity hash).
     */
    private static String tag(KeyResolver r, int index) {
        if (r instanceof ClientAddress) {
            return "ip";
        }
        if (r instanceof ConstantKey c) {
            return GLOBAL.equals(c.value()) ? GLOBAL : "constant";
        }
        if (r instanceof HeaderKey || r instanceof PrincipalKey || r instanceof AttributeKey || r instanceof CustomKey
                || r instanceof NamedKey) {
            return r.toString();
        }
        return "#" + (index + 1);
    }

    /** Header names are case-insensitive: {@code header:X-A} and {@code header:x-a} are one source. */
    private static String comparable(String tag) {
        return tag.startsWith("header:") ? tag.toLowerCase(java.util.Locale.ROOT) : tag;
    }

    private static boolean alwaysYields(KeyResolver r) {
        return r instanceof ClientAddress || r instanceof ConstantKey;
    }

    private static String name(KeyResolver r) {
        return r instanceof ClientAddress ? "ip" : r.toString();
    }

    /**
     * A key computed by application code. Two custom resolvers are equal only if their functions
     * are the same object.
     *
     * @param name a label for logs and {@code toString()}
     * @param function the function; may return {@code null} (the policy does not apply); an
     *     exception it throws is caught and treated as {@code null}
     * @return the resolver ({@code custom:<name>})
     * @throws NullPointerException if an argument is null
     */
    public static KeyResolver custom(String name, Function<? super RequestView, String> function) {
        return new CustomKey(Objects.requireNonNull(name, "name"), Objects.requireNonNull(function, "function"));
    }

    /**
     * A header value without its optional whitespace (RFC 9110 {@code OWS}: spaces and horizontal
     * tabs, and nothing else), or {@code null} if nothing is left. Any other character, a vertical
     * tab or a no-break space, say, is part of the key: trimming more would give distinct values one
     * bucket.
     */
    static String headerValue(String s) {
        if (s == null) {
            return null;
        }
        int from = 0;
        int to = s.length();
        while (from < to && ows(s.charAt(from))) {
            from++;
        }
        while (to > from && ows(s.charAt(to - 1))) {
            to--;
        }
        return from == to ? null : s.substring(from, to);
    }

    private static boolean ows(char c) {
        return c == ' ' || c == '\t';
    }

    /**
     * A value the application gave (a principal's name, an attribute), verbatim: {@code null} if
     * it is null or empty, else itself, whitespace included, so that {@code " alice"} and
     * {@code "alice"} stay two keys.
     */
    static String verbatim(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private record HeaderKey(String name) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            return headerValue(request.header(name));
        }

        @Override
        public String toString() {
            return "header:" + name;
        }
    }

    private record PrincipalKey() implements KeyResolver {
        static final PrincipalKey INSTANCE = new PrincipalKey();

        @Override
        public String resolve(RequestView request) {
            return verbatim(request.principal());
        }

        @Override
        public String toString() {
            return "principal";
        }
    }

    private record AttributeKey(String name) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            Object v = request.attribute(name);
            return v == null ? null : verbatim(v.toString());
        }

        @Override
        public String toString() {
            return "attribute:" + name;
        }
    }

    private record ConstantKey(String value) implements KeyResolver {
        static final ConstantKey GLOBAL_KEY = new ConstantKey(GLOBAL);

        @Override
        public String resolve(RequestView request) {
            return value;
        }

        @Override
        public String toString() {
            return GLOBAL.equals(value) ? GLOBAL : "constant:" + value;
        }
    }

    private record FirstOf(List<KeyResolver> resolvers, String[] tags) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            for (int i = 0; i < tags.length; i++) {
                String key = resolvers.get(i).resolve(request);
                if (key != null) {
                    return tags[i] + ':' + key;
                }
            }
            return null;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FirstOf f && f.resolvers.equals(resolvers);
        }

        @Override
        public int hashCode() {
            return resolvers.hashCode();
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            for (KeyResolver r : resolvers) {
                if (b.length() > 0) {
                    b.append('|');
                }
                b.append(name(r));
            }
            return b.toString();
        }
    }

    /**
     * {@code bean:<name>}: a reference to a registered resolver, bound ({@code resolver} not null)
     * by {@link #withNamed}. References are equal by name until bound; bound ones also by resolver.
     */
    private record NamedKey(String name, KeyResolver resolver) implements KeyResolver {
        @Override
        public String resolve(RequestView request) {
            KeyResolver r = resolver;
            if (r == null) {
                throw new IllegalStateException("key bean:" + name + " is not bound to a resolver: build the policy"
                        + " into an Enforcer that has one registered under '" + name + "'");
            }
            try {
                return r.resolve(request);
            } catch (RuntimeException e) {
                return null;
            }
        }

        @Override
        public String toString() {
            return "bean:" + name;
        }
    }

    private static final class CustomKey implements KeyResolver {
        private final String name;
        private final Function<? super RequestView, String> function;

        CustomKey(String name, Function<? super RequestView, String> function) {
            this.name = name;
            this.function = function;
        }

        @Override
        public String resolve(RequestView request) {
            try {
                return function.apply(request);
            } catch (RuntimeException e) {
                return null;
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CustomKey c && c.name.equals(name) && c.function == function;
        }

        @Override
        public int hashCode() {
            return name.hashCode() * 31 + System.identityHashCode(function);
        }

        @Override
        public String toString() {
            return "custom:" + name;
        }
    }
}
