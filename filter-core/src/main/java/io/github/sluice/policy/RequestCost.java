package io.github.sluice.policy;

import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * How many permits one request takes from a policy: a constant, or a number read from the request.
 * Written after {@code cost=} in the policy language:
 * <table>
 *   <caption>Cost sources</caption>
 *   <tr><th>written</th><th>built</th><th>permits per request</th></tr>
 *   <tr><td>{@code cost=5}</td><td>{@link #of(long) of(5)}</td><td>5 (default 1)</td></tr>
 *   <tr><td>{@code cost=header:X-Cost}</td><td>{@link #header(String)}</td><td>the header's value,
 *       one whole number of ASCII digits</td></tr>
 *   <tr><td>{@code cost=body} or {@code cost=body:64KiB}</td><td>{@link #body(long)}</td><td>the
 *       declared {@code Content-Length}, one permit per unit (default 1 KiB) rounded up, at least
 *       1</td></tr>
 *   <tr><td>{@code cost=bean:name}</td><td>{@link #bean(String)}</td><td>what the
 *       {@link CostFunction} registered under {@code name} returns</td></tr>
 * </table>
 *
 * <p><b>Bad costs.</b> A cost read from the request is bad when it is missing, not one whole
 * number (a sign, a fraction, a list, two header lines, other characters), or zero, or when the
 * {@link CostFunction} throws or returns less than 1. A bad cost is refused with 400 (411
 * <i>Length Required</i> for a body cost without a {@code Content-Length}, e.g. a chunked upload),
 * with a problem body and without {@code Retry-After}, unless the policy has a default cost
 * ({@code cost-default=N}, {@link #orElse(long)}): then the request is charged that many permits.
 * A bad cost is never free, and never an exception.
 *
 * <p><b>Costs above the limit.</b> A cost above the policy's limit (more than 18 digits
 * included) can never be admitted: the request is refused at once, without touching the store
 * and without {@code Retry-After}, with 413 <i>Content Too Large</i> for a body cost and 400
 * otherwise. The default cost never replaces such a cost: a client cannot pay less by asking for
 * more.
 *
 * <p>Immutable and thread-safe. Two costs are {@link #equals equal} when they are written alike;
 * a {@code bean:} cost's registered function is not part of its identity.
 */
public final class RequestCost {

    /** Where a cost comes from. */
    public enum Source {
        /** A constant: {@code cost=5}. */
        CONSTANT,
        /** A request header: {@code cost=header:X-Cost}. */
        HEADER,
        /** The declared body size: {@code cost=body:1KiB}. */
        BODY,
        /** A function registered by name: {@code cost=bean:name}. */
        BEAN
    }

    /** One permit, the cost of a policy that sets none. */
    public static final RequestCost ONE = new RequestCost(Source.CONSTANT, 1, null, 0, null);

    /** The unit of {@code cost=body}: 1 KiB. */
    public static final long DEFAULT_BODY_UNIT = 1024;

    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");
    private static final Pattern BEAN_NAME = Pattern.compile("[^\\s:|]{1,128}");
    private static final Pattern SIZE = Pattern.compile("([0-9]{1,18})(B|KiB|MiB|GiB|KB|MB|GB)?");

    private final Source source;
    /** {@link Source#CONSTANT}: the permits; {@link Source#BODY}: the bytes per permit; else 0. */
    private final long number;
    /** {@link Source#HEADER}: the header name as written; {@link Source#BEAN}: the name. */
    private final String name;
    /** The permits charged for a bad cost, or 0 if a bad cost is refused. */
    private final long fallback;
    /** The function a {@code bean:} cost is bound to, or {@code null}. */
    private final CostFunction function;

    private RequestCost(Source source, long number, String name, long fallback, CostFunction function) {
        this.source = source;
        this.number = number;
        this.name = name;
        this.fallback = fallback;
        this.function = function;
    }

    /**
     * A constant cost.
     *
     * @param permits {@code >= 1}
     * @return the cost
     * @throws IllegalArgumentException if {@code permits < 1}
     */
    public static RequestCost of(long permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("cost must be >= 1 but was " + permits);
        }
        return permits == 1 ? ONE : new RequestCost(Source.CONSTANT, permits, null, 0, null);
    }

    /**
     * A cost read from the first line of a request header: one whole number of ASCII digits, with
     * optional spaces or tabs around it. A client writes this header itself, so it chooses its own
     * cost: see {@code docs/security.md}.
     *
     * @param name the header name, an RFC 9110 token, e.g. {@code X-Cost}
     * @return the cost
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is not a token
     */
    public static RequestCost header(String name) {
        Objects.requireNonNull(name, "name");
        if (!TOKEN.matcher(name).matches()) {
            throw new IllegalArgumentException("cost=header:<name> needs a header name (an HTTP token of at most"
                    + " 128 characters) but was '" + name + "'");
        }
        return new RequestCost(Source.HEADER, 0, name, 0, null);
    }

    /**
     * A cost from the body size the request declares ({@code Content-Length}): one permit per
     * {@code unitBytes}, rounded up, at least 1 (a request without a body still costs one permit).
     * The container reads no more than the declared length (HTTP/1.1), or resets a stream whose
     * body differs from it (HTTP/2), so the declared size is the size received.
     *
     * @param unitBytes bytes per permit, {@code >= 1}, e.g. {@link #DEFAULT_BODY_UNIT}
     * @return the cost
     * @throws IllegalArgumentException if {@code unitBytes < 1}
     */
    public static RequestCost body(long unitBytes) {
        if (unitBytes < 1) {
            throw new IllegalArgumentException("the unit of cost=body must be >= 1 byte but was " + unitBytes);
        }
        return new RequestCost(Source.BODY, unitBytes, null, 0, null);
    }

    /**
     * A cost computed by a {@link CostFunction} registered under {@code name}
     * ({@code Enforcer.Builder.costFunction}), bound when the enforcer is built.
     *
     * @param name the registered name, without whitespace, {@code :} or {@code |}
     * @return the unbound reference
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if the name is blank or holds those characters
     */
    public static RequestCost bean(String name) {
        Objects.requireNonNull(name, "name");
        if (!BEAN_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("cost=bean:<name> needs a name without whitespace, ':' or '|'"
                    + " (at most 128 characters) but was '" + name + "'");
        }
        return new RequestCost(Source.BEAN, 0, name, 0, null);
    }

    /**
     * Parses the text after {@code cost=}: {@code 5}, {@code header:X-Cost}, {@code body},
     * {@code body:64KiB} (units {@code B}, {@code KiB}, {@code MiB}, {@code GiB}, {@code KB},
     * {@code MB}, {@code GB}; none is bytes) or {@code bean:name}.
     *
     * @param text the text
     * @return the cost
     * @throws NullPointerException if {@code text} is null
     * @throws IllegalArgumentException if the text is none of these
     */
    public static RequestCost parse(String text) {
        Objects.requireNonNull(text, "text");
        if (text.equals("body")) {
            return body(DEFAULT_BODY_UNIT);
        }
        int colon = text.indexOf(':');
        String prefix = colon < 0 ? text : text.substring(0, colon);
        String rest = colon < 0 ? "" : text.substring(colon + 1);
        switch (prefix) {
            case "header":
                return header(rest);
            case "bean":
                return bean(rest);
            case "body":
                return body(size(rest));
            default:
                break;
        }
        if (colon < 0 && text.matches("[0-9]{1,18}")) {
            return of(Long.parseLong(text));
        }
        throw new IllegalArgumentException("cost must be a whole number (e.g. 5), header:<name>, body,"
                + " body:<size> (e.g. body:64KiB) or bean:<name>, but was '" + text + "'");
    }

    private static long size(String text) {
        java.util.regex.Matcher m = SIZE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("the unit of cost=body must be a size such as 1KiB, 64KiB, 1MiB or"
                    + " 512 (bytes), but was '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "B" : m.group(2);
        long scale = switch (unit) {
            case "KiB" -> 1L << 10;
            case "MiB" -> 1L << 20;
            case "GiB" -> 1L << 30;
            case "KB" -> 1_000L;
            case "MB" -> 1_000_000L;
            case "GB" -> 1_000_000_000L;
            default -> 1L;
        };
        if (n < 1 || n > Long.MAX_VALUE / scale) {
            throw new IllegalArgumentException("the unit of cost=body must be between 1 byte and "
                    + (Long.MAX_VALUE / scale) + unit + " but was '" + text + "'");
        }
        return n * scale;
    }

    /**
     * Returns this cost with a default: the permits a request whose cost is bad (see the class
     * description) is charged instead of being refused. Written {@code cost-default=N}.
     *
     * @param permits {@code >= 1}
     * @return the cost with the default
     * @throws IllegalArgumentException if {@code permits < 1}
     * @throws IllegalStateException if this cost is a constant, which is never bad
     */
    public RequestCost orElse(long permits) {
        if (source == Source.CONSTANT) {
            throw new IllegalStateException("cost-default applies to a cost read from the request (header:, body,"
                    + " bean:), not to the constant cost " + number);
        }
        if (permits < 1) {
            throw new IllegalArgumentException("cost-default must be >= 1 but was " + permits
                    + " (a bad cost is never free)");
        }
        return new RequestCost(source, number, name, permits, function);
    }

    /**
     * Binds a {@code bean:} cost to its function.
     *
     * @param function the function registered under {@link #name()}
     * @return the bound cost, equal to this one
     * @throws NullPointerException if {@code function} is null
     * @throws IllegalStateException if this is not a {@code bean:} cost
     */
    public RequestCost bind(CostFunction function) {
        Objects.requireNonNull(function, "function");
        if (source != Source.BEAN) {
            throw new IllegalStateException("only a bean: cost is bound to a function, not " + this);
        }
        return new RequestCost(source, number, name, fallback, function);
    }

    /** @return where the cost comes from */
    public Source source() {
        return source;
    }

    /** @return {@code true} for a constant cost, which is the same for every request */
    public boolean constant() {
        return source == Source.CONSTANT;
    }

    /** @return the permits of a constant cost; for a cost read from the request, 1 (the least it takes) */
    public long permits() {
        return source == Source.CONSTANT ? number : 1;
    }

    /** @return the bytes per permit of a body cost; 0 for other sources */
    public long unitBytes() {
        return source == Source.BODY ? number : 0;
    }

    /** @return the header name ({@link Source#HEADER}) or registered name ({@link Source#BEAN}); else {@code null} */
    public String name() {
        return name;
    }

    /** @return the permits charged for a bad cost, or empty if a bad cost is refused (the default) */
    public OptionalLong fallback() {
        return fallback == 0 ? OptionalLong.empty() : OptionalLong.of(fallback);
    }

    /** @return the bound function of a {@code bean:} cost, or {@code null} if unbound or another source */
    public CostFunction function() {
        return function;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RequestCost c && c.source == source && c.number == number && c.fallback == fallback
                && (source == Source.HEADER ? c.name.equalsIgnoreCase(name) : Objects.equals(c.name, name));
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, number, fallback, name == null ? null : name.toLowerCase(Locale.ROOT));
    }

    /** @return the form written after {@code cost=}, e.g. {@code header:X-Cost} or {@code body:1KiB} */
    @Override
    public String toString() {
        return switch (source) {
            case CONSTANT -> Long.toString(number);
            case HEADER -> "header:" + name;
            case BEAN -> "bean:" + name;
            case BODY -> number == DEFAULT_BODY_UNIT ? "body" : "body:" + unit(number);
        };
    }

    private static String unit(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return bytes / (1L << 30) + "GiB";
        }
        if (bytes % (1L << 20) == 0) {
            return bytes / (1L << 20) + "MiB";
        }
        if (bytes % (1L << 10) == 0) {
            return bytes / (1L << 10) + "KiB";
        }
        return Long.toString(bytes);
    }
}
