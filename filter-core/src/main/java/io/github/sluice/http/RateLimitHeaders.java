package io.github.sluice.http;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.HeaderSink;

/**
 * Formats the rate-limit header fields of a {@link Verdict}.
 *
 * <p>Draft syntax (Structured Fields, RFC 9651): every entry is a list member, a string item
 * (the policy name) with integer parameters.
 * <ul>
 *   <li>{@code RateLimit-Policy}: every entry in configuration order,
 *       {@code "name";q=<limit>;w=<window seconds>}; a concurrency policy has no window and
 *       carries {@code qu="concurrent-requests"} instead.
 *   <li>{@code RateLimit}: every entry, denials first, then closest to exhaustion first
 *       (smallest share of the quota left), {@code "name";r=<remaining>;t=<seconds>}; a
 *       concurrency policy has no {@code t}.
 * </ul>
 * {@code w} is rounded to the nearest second (at least 1). {@code t} is whole seconds rounded up,
 * so that a client that waits it is never early: {@code t}
 * is the time until the quota is fully restored, except for a denying entry, whose {@code t} is
 * the time until the denied request would pass (its retry-after). {@code Retry-After} is the
 * binding entry's {@code t}, at least 1. Integers are clamped to the 15 digits RFC 9651 allows.
 */
final class RateLimitHeaders {

    /** The largest Structured Fields integer. */
    static final long SF_MAX = 999_999_999_999_999L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private RateLimitHeaders() {
    }

    static void write(Verdict v, HeaderOptions options, HeaderSink sink) {
        boolean denied = v.outcome == Outcome.DENIED;
        StringBuilder exposed = options.exposeHeaders() ? new StringBuilder(64) : null;
        if (denied) {
            emit(sink, exposed, "Retry-After", Long.toString(v.retryAfterSeconds()));
        }
        if (!options.onlyOnDenial() || denied) {
            switch (options.style()) {
                case DRAFT -> {
                    emit(sink, exposed, "RateLimit-Policy", policyField(v));
                    emit(sink, exposed, "RateLimit", limitField(v));
                }
                case DRAFT_06 -> triple(v, sink, exposed, "RateLimit-");
                case X_RATELIMIT -> triple(v, sink, exposed, "X-RateLimit-");
                case NONE -> {
                }
            }
        }
        if (options.degradedHeader() != null) {
            String degraded = degradedField(v);
            if (degraded != null) {
                emit(sink, exposed, options.degradedHeader(), degraded);
            }
        }
        if (exposed != null && exposed.length() > 0) {
            sink.header("Access-Control-Expose-Headers", exposed.toString());
        }
    }

    private static void emit(HeaderSink sink, StringBuilder exposed, String name, String value) {
        sink.header(name, value);
        if (exposed != null) {
            if (exposed.length() > 0) {
                exposed.append(", ");
            }
            exposed.append(name);
        }
    }

    static String policyField(Verdict v) {
        StringBuilder b = new StringBuilder(32 * v.size());
        for (int i = 0; i < v.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            Policy p = v.policies[i];
            sfString(b, p.name());
            b.append(";q=").append(clamp(p.algorithm().limit()));
            if (p.concurrency()) {
                b.append(";qu=\"concurrent-requests\"");
            } else {
                b.append(";w=").append(clamp(windowSeconds(p.algorithm().windowNanos())));
            }
        }
        return b.toString();
    }

    static String limitField(Verdict v) {
        int n = v.size();
        StringBuilder b = new StringBuilder(32 * n);
        if (n == 1) {
            limitItem(b, v, 0);
            return b.toString();
        }
        int[] order = exhaustionOrder(v);
        for (int k = 0; k < n; k++) {
            if (k > 0) {
                b.append(", ");
            }
            limitItem(b, v, order[k]);
        }
        return b.toString();
    }

    private static void limitItem(StringBuilder b, Verdict v, int i) {
        sfString(b, v.policies[i].name());
        b.append(";r=").append(clamp(v.decisions[i].remaining()));
        if (!v.policies[i].concurrency()) {
            b.append(";t=").append(clamp(resetSeconds(v, i)));
        }
    }

    /** Entries sorted: denials first, then by the share of quota left, ascending; stable. */
    static int[] exhaustionOrder(Verdict v) {
        int n = v.size();
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = 1; i < n; i++) {
            int x = order[i];
            int j = i - 1;
            while (j >= 0 && closer(v.decisions[x], v.decisions[order[j]])) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = x;
        }
        return order;
    }

    /** @return {@code true} if {@code a} is strictly closer to exhaustion than {@code b} */
    static boolean closer(MutableDecision a, MutableDecision b) {
        boolean da = a.outcome() == Outcome.DENIED;
        boolean db = b.outcome() == Outcome.DENIED;
        if (da != db) {
            return da;
        }
        if (da) {
            return a.retryAfterNanos() > b.retryAfterNanos();
        }
        double ra = share(a);
        double rb = share(b);
        return ra < rb || (ra == rb && a.remaining() < b.remaining());
    }

    private static double share(MutableDecision d) {
        return d.limit() <= 0 ? 0 : (double) d.remaining() / d.limit();
    }

    /** The {@code t} of an entry, in whole seconds rounded up. */
    static long resetSeconds(Verdict v, int i) {
        if (i < 0) {
            return 0;
        }
        MutableDecision d = v.decisions[i];
        if (d.outcome() == Outcome.DENIED && d.retryAfterNanos() != Decision.NEVER) {
            return Math.max(ceilSeconds(d.retryAfterNanos()), 1);
        }
        return ceilSeconds(d.resetNanos());
    }

    private static void triple(Verdict v, HeaderSink sink, StringBuilder exposed, String prefix) {
        int i = v.binding >= 0 ? v.binding : 0;
        MutableDecision d = v.decisions[i];
        emit(sink, exposed, prefix + "Limit", Long.toString(d.limit()));
        emit(sink, exposed, prefix + "Remaining", Long.toString(d.remaining()));
        emit(sink, exposed, prefix + "Reset", Long.toString(resetSeconds(v, i)));
    }

    private static String degradedField(Verdict v) {
        StringBuilder b = null;
        for (int i = 0; i < v.size(); i++) {
            if (v.decisions[i].degraded()) {
                if (b == null) {
                    b = new StringBuilder(32);
                } else {
                    b.append(", ");
                }
                sfString(b, v.policies[i].name());
            }
        }
        return b == null ? null : b.toString();
    }

    /**
     * The announced window, rounded to the nearest second (at least 1): a window is a property of
     * the policy, and rounding to nearest keeps {@code 3/10s}, whose token interval is rounded up to
     * whole nanoseconds, announced as {@code w=10}.
     */
    static long windowSeconds(long nanos) {
        long seconds = nanos / NANOS_PER_SECOND + (nanos % NANOS_PER_SECOND >= NANOS_PER_SECOND / 2 ? 1 : 0);
        return Math.max(1, seconds);
    }

    static long ceilSeconds(long nanos) {
        if (nanos <= 0) {
            return 0;
        }
        return (nanos - 1) / NANOS_PER_SECOND + 1;
    }

    private static long clamp(long value) {
        return Math.max(0, Math.min(value, SF_MAX));
    }

    /** An RFC 9651 sf-string: printable ASCII, with {@code "} and {@code \} escaped. */
    static void sfString(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\');
            }
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        b.append('"');
    }
}
