package io.github.sluice.redis.internal;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Where Redis is: one server (or a Sentinel-monitored primary), given by a Lettuce URI, or a
 * Redis Cluster, given by its seed nodes. The client discovers the rest of a cluster from any seed
 * that answers.
 *
 * <p>A cluster is written {@code redis-cluster://[[user:]password@]host[:port][,host[:port]...]
 * [?options]} ({@code rediss-cluster://} for TLS): the credentials and options apply to every
 * node; a port left out is 6379. Or as a list of ordinary {@code redis://} URIs, one per seed.
 *
 * <p>Immutable and thread-safe. Messages and {@link #describe()} never contain a password.
 */
public final class Endpoint {

    private static final String CLUSTER = "redis-cluster";
    private static final String CLUSTER_TLS = "rediss-cluster";

    /** The URI of a single server or Sentinel, as given; or null. */
    private final String single;
    /** The seed nodes' URIs, each complete; or null. */
    private final List<String> seeds;
    /** Parsed once to check them and to describe them; never handed out (RedisURI is mutable). */
    private final RedisURI parsedSingle;
    private final List<RedisURI> parsedSeeds;

    private Endpoint(String single, List<String> seeds) {
        this.single = single;
        this.seeds = seeds;
        this.parsedSingle = single == null ? null : RedisURI.create(single);
        this.parsedSeeds = seeds == null ? null : seeds.stream().map(RedisURI::create).toList();
    }

    /**
     * Parses a URI: Lettuce's ({@code redis://}, {@code rediss://}, {@code redis-socket://},
     * {@code redis-sentinel://}), or a cluster's ({@code redis-cluster://},
     * {@code rediss-cluster://}).
     *
     * @param uri the URI
     * @return the endpoint
     * @throws NullPointerException if {@code uri} is null
     * @throws IllegalArgumentException if it is malformed; the message names the URI without
     *     its password
     */
    public static Endpoint parse(String uri) {
        Objects.requireNonNull(uri, "uri");
        String text = uri.strip();
        int sep = text.indexOf("://");
        String scheme = sep < 0 ? "" : text.substring(0, sep).toLowerCase(Locale.ROOT);
        if (scheme.equals(CLUSTER) || scheme.equals(CLUSTER_TLS)) {
            return new Endpoint(null, clusterSeeds(text, scheme, sep));
        }
        node("uri", text, uri);
        return new Endpoint(text, null);
    }

    /**
     * A cluster given by its seed nodes, each a {@code redis://} or {@code rediss://} URI.
     *
     * @param seedUris at least one URI
     * @return the endpoint
     * @throws NullPointerException if the list or a URI is null
     * @throws IllegalArgumentException if the list is empty or a URI is malformed or not a
     *     single node's
     */
    public static Endpoint cluster(List<String> seedUris) {
        Objects.requireNonNull(seedUris, "cluster");
        if (seedUris.isEmpty()) {
            throw new IllegalArgumentException("cluster must name at least one seed node but was empty");
        }
        List<String> nodes = new ArrayList<>(seedUris.size());
        for (String s : seedUris) {
            Objects.requireNonNull(s, "cluster seed");
            RedisURI node = node("cluster seed", s.strip(), s);
            if (node.getHost() == null || !node.getSentinels().isEmpty()) {
                throw new IllegalArgumentException("cluster seed must be a redis:// or rediss:// URI of one"
                        + " node but was '" + redact(s) + "'");
            }
            nodes.add(s.strip());
        }
        return new Endpoint(null, List.copyOf(nodes));
    }

    private static List<String> clusterSeeds(String text, String scheme, int sep) {
        String rest = text.substring(sep + 3);
        int end = rest.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int i = rest.indexOf(c, Math.max(0, rest.lastIndexOf('@') + 1));
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        String authority = rest.substring(0, end);
        String tail = rest.substring(end);
        int at = authority.lastIndexOf('@');
        String credentials = at < 0 ? "" : authority.substring(0, at + 1);
        String hosts = authority.substring(at + 1);
        if (tail.startsWith("/") && !tail.matches("/0?([?#].*)?")) {
            throw new IllegalArgumentException("uri must not select a database other than 0 (Redis"
                    + " Cluster has only database 0) but was '" + redact(text) + "'");
        }
        String base = scheme.equals(CLUSTER_TLS) ? "rediss://" : "redis://";
        List<String> nodes = new ArrayList<>();
        for (String host : hosts.split(",", -1)) {
            if (host.isBlank()) {
                throw new IllegalArgumentException("uri must list seed nodes as host:port separated by"
                        + " ',' (e.g. redis-cluster://10.0.0.1:6379,10.0.0.2:6379) but was '"
                        + redact(text) + "'");
            }
            String node = base + credentials + host.strip() + tail;
            node("uri", node, text);
            nodes.add(node);
        }
        return List.copyOf(nodes);
    }

    private static RedisURI node(String parameter, String uri, String original) {
        try {
            checkPorts(uri);
            RedisURI parsed = RedisURI.create(uri);
            if (parsed.getHost() == null && parsed.getSocket() == null
                    && parsed.getSentinels().isEmpty()) {
                throw new IllegalArgumentException("no host");
            }
            return parsed;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(parameter + " must be a Redis URI such as"
                    + " redis://127.0.0.1:6379 or redis-cluster://10.0.0.1:6379,10.0.0.2:6379 but"
                    + " was '" + redact(original) + "': " + e.getMessage(), e);
        }
    }

    /**
     * Lettuce reads {@code host:notaport} as a host named {@code host:notaport} on port 6379: a
     * typo would connect elsewhere (or nowhere) instead of failing. Every {@code host:port} of the
     * authority must end in a port between 1 and 65535, if it has one.
     */
    private static void checkPorts(String uri) {
        int sep = uri.indexOf("://");
        if (sep < 0 || uri.regionMatches(true, 0, "redis-socket", 0, 12)) {
            return;
        }
        String rest = uri.substring(sep + 3);
        int at = rest.lastIndexOf('@');
        int end = rest.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int i = rest.indexOf(c, at + 1);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        for (String hostPort : rest.substring(at + 1, end).split(",")) {
            int colon = hostPort.lastIndexOf(':');
            if (colon < 0 || colon < hostPort.lastIndexOf(']')) {
                continue;
            }
            String port = hostPort.substring(colon + 1);
            if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65_535) {
                throw new IllegalArgumentException("port must be a number between 1 and 65535 but was '"
                        + port + "'");
            }
        }
    }

    /** @return whether this is a cluster */
    public boolean cluster() {
        return seeds != null;
    }

    /** @return a new copy of the URI of the single server or Sentinel; only if not a {@link #cluster()} */
    public RedisURI single() {
        return RedisURI.create(single);
    }

    /** @return new copies of the seed nodes' URIs; only for a {@link #cluster()} */
    public List<RedisURI> seeds() {
        return seeds.stream().map(RedisURI::create).toList();
    }

    /** @return where Redis is, without credentials, for messages */
    public String describe() {
        if (parsedSeeds != null) {
            StringBuilder sb = new StringBuilder("cluster ");
            for (int i = 0; i < parsedSeeds.size(); i++) {
                sb.append(i == 0 ? "" : ",").append(parsedSeeds.get(i).getHost()).append(':')
                        .append(parsedSeeds.get(i).getPort());
            }
            return sb.toString();
        }
        if (parsedSingle.getSentinelMasterId() != null) {
            return "sentinel master " + parsedSingle.getSentinelMasterId();
        }
        if (parsedSingle.getHost() == null) {
            return String.valueOf(parsedSingle.getSocket());
        }
        return parsedSingle.getHost() + ':' + parsedSingle.getPort();
    }

    /**
     * @param uri a URI
     * @return the URI with its credentials replaced by {@code ***}
     */
    public static String redact(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        return scheme >= 0 && at > scheme ? uri.substring(0, scheme + 3) + "***@" + uri.substring(at + 1) : uri;
    }

    @Override
    public String toString() {
        return describe();
    }
}
