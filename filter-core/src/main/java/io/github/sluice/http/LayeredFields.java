package io.github.sluice.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Merges this enforcer's fields into those another layer wrote on the same response before it: a
 * servlet filter in front of a JAX-RS runtime or a Spring MVC handler, a web filter in front of a
 * handler filter, the path stage of the JAX-RS feature with its {@code @RateLimited} stage. The
 * client gets one field line of each name, listing both layers' policies, as the IETF draft
 * defines {@code RateLimit} and {@code RateLimit-Policy}: Structured Field Lists (RFC 9651), one
 * member per policy, each policy name once.
 *
 * <ul>
 *   <li>{@code RateLimit-Policy}: the earlier layer's members, then this one's (configuration
 *       order, the outer layer first).
 *   <li>{@code RateLimit}: this layer's members first if it denied the request; otherwise the two
 *       lists merged by the share of the quota left ({@code r/q}), smallest first, the earlier
 *       layer first among equals: denials first, then closest to exhaustion, as for one layer.
 *   <li>A policy name in both layers (two enforcers each with a {@code per-ip}, or one policy
 *       applied by a filter and again by {@code @RateLimited}): one member of that name is kept in
 *       each field, both from the same layer, so that {@code q} and {@code r} describe one
 *       limiter: the layer whose member has the smaller share left (the limiter that refuses
 *       first), this layer's on a tie (its numbers are the later ones).
 *   <li>{@code Retry-After}: the larger of the two delta-seconds values, so that a client that
 *       waits it is not refused again by either layer.
 *   <li>Token lists ({@code Access-Control-Expose-Headers}, the degraded-policies field): the union,
 *       each token once (case-insensitive), the earlier layer's first.
 *   <li>The one-policy styles ({@code RateLimit-Limit}, {@code X-RateLimit-*}): the three fields of
 *       the layer closer to exhaustion ({@link #keepsEarlierTriple}).
 * </ul>
 * A member the parser cannot read (no name) is kept as it is. Stateless; allocates only when
 * another layer's field is present.
 */
final class LayeredFields {

    private LayeredFields() {
    }

    /** One member of a Structured Field List: its text, its name (the item), and its parameters read. */
    private static final class Member {
        final String text;
        final String name;
        final long q;
        final long r;
        boolean dropped;

        Member(String text) {
            this.text = text;
            int semicolon = topLevel(text, ';', 0);
            this.name = semicolon < 0 ? text : text.substring(0, semicolon);
            this.q = param(text, "q", semicolon);
            this.r = param(text, "r", semicolon);
        }
    }

    /**
     * Merges the draft fields.
     *
     * @param earlierPolicy the {@code RateLimit-Policy} already on the response
     * @param earlierLimit the {@code RateLimit} already on the response, or {@code null}
     * @param policy this layer's {@code RateLimit-Policy}
     * @param limit this layer's {@code RateLimit}
     * @param denied whether this layer denied the request
     * @return {@code {RateLimit-Policy, RateLimit}} to write
     */
    static String[] draft(String earlierPolicy, String earlierLimit, String policy, String limit, boolean denied) {
        List<Member> ep = members(earlierPolicy);
        List<Member> el = members(earlierLimit);
        List<Member> mp = members(policy);
        List<Member> ml = members(limit);
        for (Member m : ml) {
            Member e = named(el, m.name);
            Member eq = named(ep, m.name);
            Member mq = named(mp, m.name);
            if (e == null && eq == null) {
                continue;
            }
            boolean keepEarlier = e != null && share(e, eq) < share(m, mq);
            if (keepEarlier) {
                m.dropped = true;
                if (mq != null) {
                    mq.dropped = true;
                }
            } else {
                drop(e);
                drop(eq);
            }
        }
        for (Member m : mp) {
            // A policy member without a RateLimit member of its name in this layer (not written by
            // Sluice, but tolerated): the later layer's replaces the earlier one's.
            if (!m.dropped && named(ml, m.name) == null) {
                drop(named(ep, m.name));
            }
        }
        StringBuilder p = new StringBuilder(length(earlierPolicy) + policy.length() + 2);
        append(p, ep);
        append(p, mp);
        StringBuilder l = new StringBuilder(length(earlierLimit) + limit.length() + 2);
        if (denied) {
            append(l, ml);
            append(l, el);
        } else {
            // Both lists are already in order (closest to exhaustion first): merge them.
            int i = 0;
            int j = 0;
            while (i < el.size() || j < ml.size()) {
                Member e = next(el, i);
                Member m = next(ml, j);
                if (e == null && m == null) {
                    break;
                }
                boolean takeEarlier = m == null
                        || (e != null && share(e, named(ep, e.name)) <= share(m, named(mp, m.name)));
                if (takeEarlier) {
                    append(l, e);
                    i = el.indexOf(e) + 1;
                } else {
                    append(l, m);
                    j = ml.indexOf(m) + 1;
                }
            }
        }
        return new String[] {p.toString(), l.toString()};
    }

    /** @return the first member at or after {@code from} that is kept, or {@code null} */
    private static Member next(List<Member> list, int from) {
        for (int k = from; k < list.size(); k++) {
            if (!list.get(k).dropped) {
                return list.get(k);
            }
        }
        return null;
    }

    private static void drop(Member m) {
        if (m != null) {
            m.dropped = true;
        }
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }

    private static void append(StringBuilder b, List<Member> list) {
        for (Member m : list) {
            if (!m.dropped) {
                append(b, m);
            }
        }
    }

    private static void append(StringBuilder b, Member m) {
        if (b.length() > 0) {
            b.append(", ");
        }
        b.append(m.text);
    }

    /**
     * The share of the quota a {@code RateLimit} member says is left, with its layer's
     * {@code RateLimit-Policy} member for {@code q}; 0 (closest) when unknown.
     */
    private static double share(Member limit, Member policy) {
        if (limit == null || limit.r < 0 || policy == null || policy.q <= 0) {
            return 0;
        }
        return (double) limit.r / policy.q;
    }

    private static Member named(List<Member> list, String name) {
        for (Member m : list) {
            if (!m.dropped && m.name.equals(name)) {
                return m;
            }
        }
        return null;
    }

    /** @return the members of a list field, trimmed, empty ones left out */
    private static List<Member> members(String field) {
        List<Member> out = new ArrayList<>(4);
        if (field == null) {
            return out;
        }
        int start = 0;
        while (start <= field.length()) {
            int comma = topLevel(field, ',', start);
            int end = comma < 0 ? field.length() : comma;
            String text = field.substring(start, end).strip();
            if (!text.isEmpty()) {
                out.add(new Member(text));
            }
            if (comma < 0) {
                break;
            }
            start = comma + 1;
        }
        return out;
    }

    /** @return the index of {@code c} at or after {@code from} outside a quoted string, or -1 */
    private static int topLevel(String s, char c, int from) {
        boolean quoted = false;
        for (int i = from; i < s.length(); i++) {
            char x = s.charAt(i);
            if (quoted) {
                if (x == '\\') {
                    i++;
                } else if (x == '"') {
                    quoted = false;
                }
            } else if (x == '"') {
                quoted = true;
            } else if (x == c) {
                return i;
            }
        }
        return -1;
    }

    /** @return the integer parameter {@code key} of a member whose parameters start at {@code from}, or -1 */
    private static long param(String member, String key, int from) {
        int i = from;
        while (i >= 0 && i < member.length()) {
            int next = topLevel(member, ';', i + 1);
            String p = member.substring(i + 1, next < 0 ? member.length() : next).strip();
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).strip().equals(key)) {
                return number(p.substring(eq + 1).strip());
            }
            i = next;
        }
        return -1;
    }

    /** @return a non-negative decimal integer of at most 18 digits, or -1 */
    static long number(String s) {
        if (s == null || s.isEmpty() || s.length() > 18) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /**
     * @return the larger of two {@code Retry-After} delta-seconds values; this layer's if the
     *     earlier one is not a number (an HTTP-date from someone else: not comparable)
     */
    static String retryAfter(String earlier, String mine) {
        long e = number(earlier.strip());
        long m = number(mine);
        return e > m ? earlier.strip() : mine;
    }

    /** @return the union of two comma-separated token lists, each token once, the earlier's first */
    static String tokens(String earlier, String mine) {
        StringBuilder b = new StringBuilder(earlier.length() + mine.length() + 2);
        List<String> seen = new ArrayList<>(8);
        for (String list : new String[] {earlier, mine}) {
            for (String t : list.split(",")) {
                String token = t.strip();
                String key = token.toLowerCase(Locale.ROOT);
                if (!token.isEmpty() && !seen.contains(key)) {
                    seen.add(key);
                    if (b.length() > 0) {
                        b.append(", ");
                    }
                    b.append(token);
                }
            }
        }
        return b.toString();
    }

    /**
     * Whether the one-policy fields already on the response ({@code RateLimit-Limit},
     * {@code -Remaining}, or the {@code X-RateLimit-} ones) are kept instead of this layer's: they
     * are when this layer admitted the request and they show a strictly smaller share of the
     * quota left. A denial is always reported.
     *
     * @param earlierLimit the limit field on the response
     * @param earlierRemaining the remaining field on the response, or {@code null}
     * @param limit this layer's limit
     * @param remaining this layer's remaining
     * @param denied whether this layer denied the request
     * @return {@code true} to leave the earlier fields as they are
     */
    static boolean keepsEarlierTriple(String earlierLimit, String earlierRemaining, long limit, long remaining,
            boolean denied) {
        if (denied) {
            return false;
        }
        long el = number(earlierLimit.strip());
        long er = earlierRemaining == null ? -1 : number(earlierRemaining.strip());
        if (el <= 0 || er < 0) {
            return false;
        }
        double mine = limit <= 0 ? 0 : (double) remaining / limit;
        return (double) er / el < mine;
    }
}
