package io.github.sluice.http;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.HeaderSink;
import java.util.ArrayList;
import java.util.List;

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
 * binding entry's {@code t}, at least 1, and is left out when the binding entry can never pass
 * (a cost above its limit or a bad cost, or no key with {@code unresolved=deny}). Integers are clamped to the 15 digits RFC 9651 allows.
 *
 * <p>Fields another layer of Sluice wrote on the same response first are merged, not repeated:
 * see {@link LayeredFields}.
 */
final class RateLimitHeaders {

    /** The largest Structured Fields integer. */
    static final long SF_MAX = 999_999_999_999_999L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private RateLimitHeaders() {
    }

    /**
     * What an enforcer writes that depends on its {@link HeaderOptions} only: the field names of
     * the draft-06 and {@code X-RateLimit-*} styles, and the {@code Access-Control-Expose-Headers}
     * value for each combination of denied and degraded. Immutable.
     */
    static final class Plan {
        final HeaderOptions options;
        private final String limitName;
        private final String remainingName;
        private final String resetName;
        /** Indexed by {@code (denied ? 2 : 0) | (degraded ? 1 : 0)}; {@code null} writes nothing. */
        private final String[] exposed = new String[4];
        /**
         * True if {@link #write} adds no field to an allowed response with these options: no
         * field style for allowed responses ({@code NONE} or only-on-denial), no degraded field,
         * hence nothing to expose. Such a response skips the header step, and never looks up
         * another layer's fields.
         */
        final boolean silentWhenAllowed;

        Plan(HeaderOptions options) {
            this.options = options;
            String prefix = switch (options.style()) {
                case DRAFT_06 -> "RateLimit-";
                case X_RATELIMIT -> "X-RateLimit-";
                case DRAFT, NONE -> null;
            };
            this.limitName = prefix == null ? null : prefix + "Limit";
            this.remainingName = prefix == null ? null : prefix + "Remaining";
            this.resetName = prefix == null ? null : prefix + "Reset";
            if (options.exposeHeaders()) {
                for (int k = 0; k < exposed.length; k++) {
                    exposed[k] = exposedList((k & 2) != 0, (k & 1) != 0);
                }
            }
            this.silentWhenAllowed = (options.onlyOnDenial() || options.style() == HeaderStyle.NONE)
                    && options.degradedHeader() == null && exposed[0] == null && exposed[1] == null;
        }

        /** The names {@link #write} emits in this case, in the order it emits them. */
        private String exposedList(boolean denied, boolean degraded) {
            List<String> names = new ArrayList<>();
            if (denied) {
                names.add("Retry-After");
            }
            if (!options.onlyOnDenial() || denied) {
                switch (options.style()) {
                    case DRAFT -> names.addAll(List.of("RateLimit-Policy", "RateLimit"));
                    case DRAFT_06, X_RATELIMIT -> names.addAll(List.of(limitName, remainingName, resetName));
                    case NONE -> {
                    }
                }
            }
            if (degraded && options.degradedHeader() != null) {
                names.add(options.degradedHeader());
            }
            return names.isEmpty() ? null : String.join(", ", names);
        }
    }

    static void write(Verdict v, PolicyGroup group, HeaderSink sink) {
        Plan plan = group.plan;
        HeaderOptions options = plan.options;
        boolean denied = v.denied();
        if (denied) {
            // As Verdict.retryAfterSeconds(), with the binding entry found once. A denial that can
            // never succeed (a cost above the limit, a bad cost, no key) has no time to wait for:
            // a Retry-After would tell the client to send it again.
            Verdict.Entry binding = v.bindingEntry();
            if (binding.retryAfterNanos() != Decision.NEVER) {
                String retryAfter = binding.how.retryAfter(Math.max(1, resetSeconds(binding)));
                String earlier = sink.existing("Retry-After");
                sink.header("Retry-After", earlier == null ? retryAfter : LayeredFields.retryAfter(earlier, retryAfter));
            }
        }
        if (!options.onlyOnDenial() || denied) {
            switch (options.style()) {
                case DRAFT -> draft(v, group, sink, denied);
                case DRAFT_06, X_RATELIMIT -> triple(v, plan, sink);
                case NONE -> {
                }
            }
        }
        boolean degraded = false;
        if (options.degradedHeader() != null) {
            String field = degradedField(v);
            if (field != null) {
                writeTokens(sink, options.degradedHeader(), field);
                degraded = true;
            }
        }
        String exposed = plan.exposed[(denied ? 2 : 0) | (degraded ? 1 : 0)];
        if (exposed != null) {
            writeTokens(sink, "Access-Control-Expose-Headers", exposed);
        }
    }

    /**
     * The two draft fields, merged with another layer's if the response has them
     * ({@link LayeredFields}). One look-up when it has not: a layer that wrote {@code RateLimit}
     * wrote {@code RateLimit-Policy} too.
     */
    private static void draft(Verdict v, PolicyGroup group, HeaderSink sink, boolean denied) {
        String policy = group.policyField(v);
        String limit = limitField(v);
        String earlierPolicy = sink.existing("RateLimit-Policy");
        if (earlierPolicy != null) {
            String[] merged = LayeredFields.draft(earlierPolicy, sink.existing("RateLimit"), policy, limit, denied);
            policy = merged[0];
            limit = merged[1];
        }
        sink.header("RateLimit-Policy", policy);
        sink.header("RateLimit", limit);
    }

    /** A token-list field, as the union with another layer's if the response has one. */
    private static void writeTokens(HeaderSink sink, String name, String value) {
        String earlier = sink.existing(name);
        sink.header(name, earlier == null ? value : LayeredFields.tokens(earlier, value));
    }

    /**
     * @return a plan's member of {@code RateLimit-Policy}, e.g. {@code "api.pro";q=1000;w=60}, or
     *     {@code "api.banned";q=0} for a plan without a limit
     */
    static String policyItem(String label, io.github.sluice.core.Algorithm<?> limit, boolean concurrency) {
        StringBuilder b = new StringBuilder(32);
        sfString(b, label);
        if (limit == null) {
            return b.append(";q=0").toString();
        }
        b.append(";q=").append(clamp(limit.limit()));
        if (concurrency) {
            b.append(";qu=\"concurrent-requests\"");
        } else {
            b.append(";w=").append(clamp(windowSeconds(limit.windowNanos())));
        }
        return b.toString();
    }

    /** @return a policy's member of {@code RateLimit-Policy}, e.g. {@code "per-ip";q=100;w=60} */
    static String policyItem(Policy p) {
        StringBuilder b = new StringBuilder(32);
        sfString(b, p.name());
        b.append(";q=").append(clamp(p.algorithm().limit()));
        if (p.concurrency()) {
            b.append(";qu=\"concurrent-requests\"");
        } else {
            b.append(";w=").append(clamp(windowSeconds(p.algorithm().windowNanos())));
        }
        return b.toString();
    }

    /**
     * The {@code RateLimit} value: every entry, denials first, then closest to exhaustion first,
     * entries equally close in verdict order. Written into one buffer of the exact length.
     */
    static String limitField(Verdict v) {
        Verdict.Entry first = v.first();
        if (v.after(first) == null) {
            return limitItem(first);
        }
        int n = 0;
        int length = 0;
        for (Verdict.Entry e = first; e != null; e = v.after(e)) {
            length += (n > 0 ? 2 : 0) + e.how.limitPrefix.length() + digits(clamp(e.remaining()))
                    + (e.how.concurrency ? 0 : 3 + digits(clamp(resetSeconds(e))));
            n++;
        }
        StringBuilder b = new StringBuilder(length);
        // A selection sort: each round takes the closest entry ranked after the previous one, ties
        // broken by verdict order, so the order is that of a stable sort and needs no array.
        Verdict.Entry previous = null;
        int previousIndex = -1;
        for (int k = 0; k < n; k++) {
            Verdict.Entry next = null;
            int nextIndex = -1;
            int i = 0;
            for (Verdict.Entry e = first; e != null; e = v.after(e), i++) {
                boolean ranksAfter = previous == null || closer(previous, e)
                        || (!closer(e, previous) && i > previousIndex);
                if (ranksAfter && (next == null || closer(e, next))) {
                    next = e;
                    nextIndex = i;
                }
            }
            if (k > 0) {
                b.append(", ");
            }
            b.append(next.how.limitPrefix).append(clamp(next.remaining()));
            if (!next.how.concurrency) {
                b.append(";t=").append(clamp(resetSeconds(next)));
            }
            previous = next;
            previousIndex = nextIndex;
        }
        return b.toString();
    }

    /** A one-entry verdict's {@code RateLimit} value: the policy's last one if the numbers repeat. */
    private static String limitItem(Verdict.Entry e) {
        boolean denied = e.outcome() == Outcome.DENIED;
        boolean full = !denied && e.remaining() + e.cost >= e.limit();
        return e.how.limitItem(clamp(e.remaining()), clamp(resetSeconds(e)), denied, full);
    }

    /**
     * A policy's member of {@code RateLimit}, e.g. {@code "per-ip";r=42;t=17}, formatted straight
     * into its string: the concatenation sizes the result before writing it.
     */
    static String limitItem(Enforcement how, long remaining, long seconds) {
        return how.concurrency ? how.limitPrefix + remaining : how.limitPrefix + remaining + ";t=" + seconds;
    }

    /** @return the decimal digits of {@code value}, {@code 0 <= value} */
    private static int digits(long value) {
        int d = 1;
        for (long p = 10; d < 19 && value >= p; p *= 10) {
            d++;
        }
        return d;
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

    /** The {@code t} of a decision, in whole seconds rounded up. */
    static long resetSeconds(MutableDecision d) {
        if (d.outcome() == Outcome.DENIED && d.retryAfterNanos() != Decision.NEVER) {
            return Math.max(ceilSeconds(d.retryAfterNanos()), 1);
        }
        return ceilSeconds(d.resetNanos());
    }

    private static void triple(Verdict v, Plan plan, HeaderSink sink) {
        Verdict.Entry binding = v.bindingEntry() != null ? v.bindingEntry() : v.first();
        String earlierLimit = sink.existing(plan.limitName);
        if (earlierLimit != null && LayeredFields.keepsEarlierTriple(earlierLimit, sink.existing(plan.remainingName),
                binding.limit(), binding.remaining(), v.denied())) {
            return; // another layer's policy is closer to exhaustion: its three fields stay
        }
        sink.header(plan.limitName, Long.toString(binding.limit()));
        sink.header(plan.remainingName, Long.toString(binding.remaining()));
        sink.header(plan.resetName, Long.toString(resetSeconds(binding)));
    }

    private static String degradedField(Verdict v) {
        Verdict.Entry first = v.first();
        if (v.after(first) == null) {
            return first.degraded() ? first.how.name : null;
        }
        StringBuilder b = null;
        for (Verdict.Entry e = first; e != null; e = v.after(e)) {
            if (e.degraded()) {
                if (b == null) {
                    b = new StringBuilder(32);
                } else {
                    b.append(", ");
                }
                b.append(e.how.name);
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

    static long clamp(long value) {
        return Math.max(0, Math.min(value, SF_MAX));
    }

    /** @return {@code s} as an RFC 9651 sf-string, quotes included */
    static String sfString(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2);
        sfString(b, s);
        return b.toString();
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
