package io.github.sluice.policy;

import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import io.github.sluice.internal.Checks;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.KeyResolver;
import java.util.Objects;

/**
 * Writes a {@link Policy} back in the policy language: the line a user would have written, e.g.
 * {@code per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*}. Options at their default are
 * left out; the rate is written with the permits and the period that read best ({@code 100/1m}
 * rather than {@code 1/600ms}).
 *
 * <p>For every policy {@link PolicyParser} reads, {@code Policy.parse(format(p))} equals
 * {@code p}. A policy built in code may hold what the language cannot say: a custom key is written
 * {@code key=custom:<name>}, an adaptive limit its settings in braces, a rate finer than the
 * language's milliseconds the nearest one it can say, followed by {@code (approximately)}; such a
 * line describes the policy but does not parse back to it.
 *
 * <p>Stateless and thread-safe.
 */
public final class PolicyFormat {

    /** The units of the language, largest first, with their nanoseconds. */
    private static final String[] UNITS = {"d", "h", "m", "s", "ms"};
    private static final long[] UNIT_NANOS = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
        1_000_000_000L, 1_000_000L};
    /** How many permits the search for a readable rate tries before giving up. */
    private static final long SEARCH = 100_000;

    private PolicyFormat() {
    }

    /**
     * Formats a policy as one line of the policy language.
     *
     * @param policy the policy
     * @return e.g. {@code login = fixed-window 5/1m key=ip match=POST:/login}
     * @throws NullPointerException if {@code policy} is null
     */
    public static String format(Policy policy) {
        Objects.requireNonNull(policy, "policy");
        String algorithm = algorithm(policy.algorithm());
        Plans plans = policy.plans();
        if (plans != null && plans.resolver() != null) {
            // With plans=, each plan gives the limit: the algorithm's own is not written.
            String[] words = algorithm.split(" ", 3);
            algorithm = words[0] + (words.length > 2 ? " " + words[2] : "");
        }
        StringBuilder b = new StringBuilder(64).append(policy.name()).append(" = ").append(algorithm);
        b.append(" key=").append(key(policy.key()));
        if (!policy.match().equals(Match.ALL)) {
            b.append(" match=").append(policy.match());
        }
        if (!policy.requestCost().equals(RequestCost.ONE)) {
            b.append(" cost=").append(policy.requestCost());
            policy.requestCost().fallback().ifPresent(d -> b.append(" cost-default=").append(d));
        }
        if (policy.status() != 429) {
            b.append(" status=").append(policy.status());
        }
        if (!policy.allow().isEmpty()) {
            b.append(" allow=").append(policy.allow());
        }
        if (!policy.unresolved().equals(Unresolved.SKIP)) {
            b.append(" unresolved=").append(policy.unresolved());
        }
        if (!policy.charge().always()) {
            b.append(' ').append(policy.charge());
        }
        if (policy.dryRun()) {
            b.append(" dry-run");
        }
        if (plans != null) {
            plans(b, plans);
        }
        return b.toString();
    }

    /** The plan options, as {@link PlanOptions} reads them; settings at their default are left out. */
    private static void plans(StringBuilder b, Plans plans) {
        if (plans.resolver() != null) {
            b.append(" plan=").append(key(plans.resolver())).append(" plans=");
            for (int i = 0; i < plans.plans().size(); i++) {
                Plans.Plan p = plans.plans().get(i);
                b.append(i == 0 ? "" : ",").append(p.name()).append(':').append(p.limit());
            }
            if (plans.plans().size() > 1) {
                b.append(" default-plan=").append(plans.defaultPlan().name());
            }
            if (plans.blockedStatus() != Plans.DEFAULT_BLOCKED_STATUS) {
                b.append(" blocked-status=").append(plans.blockedStatus());
            }
        }
        if (plans.override() != null) {
            b.append(" override=").append(plans.override());
            if (plans.overrideCache() != Plans.DEFAULT_OVERRIDE_CACHE) {
                b.append(" override-cache=").append(plans.overrideCache());
            }
            if (!plans.overrideTtl().equals(Plans.DEFAULT_OVERRIDE_TTL)) {
                b.append(" override-ttl=").append(duration(plans.overrideTtl().toNanos()));
            }
            if (!plans.overrideTimeout().equals(Plans.DEFAULT_OVERRIDE_TIMEOUT)) {
                b.append(" override-timeout=").append(duration(plans.overrideTimeout().toNanos()));
            }
        }
    }

    /**
     * Formats an algorithm with its arguments and options, as after the {@code =} of a policy line.
     *
     * @param algorithm the algorithm
     * @return e.g. {@code token-bucket 100/1m burst=20}
     * @throws NullPointerException if {@code algorithm} is null
     */
    public static String algorithm(Algorithm<?> algorithm) {
        Objects.requireNonNull(algorithm, "algorithm");
        if (algorithm instanceof TokenBucket t) {
            String exact = exactRate(t.rate(), t.rate().permits(), "burst", t.burst());
            return "token-bucket " + (exact != null ? exact : rate(t.intervalNanos(), t.burst(), "burst", t.burst()));
        }
        if (algorithm instanceof Gcra g) {
            // The language's default burst is the permits less one: the limit is the permits.
            String exact = exactRate(g.rate(), g.rate().permits() - 1, "burst", g.burst());
            return "gcra " + (exact != null ? exact : rate(g.emissionIntervalNanos(), g.burst() + 1, "burst", g.burst()));
        }
        if (algorithm instanceof LeakyBucket l) {
            String exact = exactRate(l.rate(), l.rate().permits(), "capacity", l.capacity());
            return "leaky-bucket " + (exact != null ? exact : rate(l.intervalNanos(), l.capacity(), "capacity", l.capacity()));
        }
        if (algorithm instanceof ShapingLeakyBucket s) {
            return "shaping " + rate(s.intervalNanos(), -1, null, 0)
                    + (s.slack() == ShapingLeakyBucket.DEFAULT_SLACK ? "" : " slack=" + s.slack())
                    + (s.maxDelayNanos() == ShapingLeakyBucket.DEFAULT_MAX_DELAY.toNanos() ? ""
                            : " max-delay=" + duration(s.maxDelayNanos()));
        }
        if (algorithm instanceof FixedWindow f && f.calendar() != null) {
            return "fixed-window " + f.limit() + "/" + f.calendar();
        }
        if (algorithm instanceof FixedWindow f) {
            return "fixed-window " + f.limit() + "/" + duration(f.windowNanos())
                    + (f.alignment() == FixedWindow.Alignment.EPOCH ? "" : " align=first-request");
        }
        if (algorithm instanceof SlidingWindow s) {
            return "sliding-window " + s.limit() + "/" + duration(s.windowNanos())
                    + (s.slots() == SlidingWindow.DEFAULT_SLOTS ? "" : " slots=" + s.slots());
        }
        if (algorithm instanceof SlidingLog s) {
            return "sliding-log " + s.limit() + "/" + duration(s.windowNanos());
        }
        if (algorithm instanceof WarmUp w) {
            return "warm-up " + w.permits() + "/" + duration(w.periodNanos()) + " warm-up=" + duration(w.warmUpNanos())
                    + (w.coldFactor() == WarmUp.DEFAULT_COLD_FACTOR ? "" : " cold-factor=" + decimal(w.coldFactor()));
        }
        if (algorithm instanceof SmoothBursty s) {
            return "smooth-bursty " + s.permits() + "/" + duration(s.periodNanos())
                    + (s.maxBurstNanos() == SmoothBursty.DEFAULT_MAX_BURST.toNanos() ? ""
                            : " max-burst=" + duration(s.maxBurstNanos()));
        }
        if (algorithm instanceof Concurrency c) {
            return "concurrency " + c.maxInFlight() + (c.maxWaitNanos() == 0 ? "" : " max-wait=" + duration(c.maxWaitNanos()));
        }
        if (algorithm instanceof AdaptiveLimit<?> a) {
            return a.toString();
        }
        return algorithm.kind() + "{" + algorithm + "}";
    }

    /** The key in the language: {@code ip} for any client-address settings (the enforcer lists those once). */
    static String key(KeyResolver key) {
        return key instanceof ClientAddress ? "ip" : key.toString();
    }

    /**
     * A rate whose interval is {@code interval} nanoseconds, written {@code permits/period} so
     * that the language reads it back to the same interval: {@code count/1s}, {@code 1m}, ... if
     * {@code count} permits fit a whole unit (the option is then left out), else the smallest
     * whole unit's permits ({@code 100/1m burst=20}), else {@code count} per a whole number of a
     * unit, else any permits up to a bound.
     *
     * @param count the permits that make the option named {@code option} its default, or -1
     * @param option the option that the rate's permits default, or {@code null}
     * @param value the option's value
     */
    private static String rate(long interval, long count, String option, long value) {
        // count permits per one whole unit: the option is the default and is left out.
        if (count >= 1) {
            for (int u = UNITS.length - 2; u >= 0; u--) {
                if (interval(count, UNIT_NANOS[u]) == interval) {
                    return count + "/1" + UNITS[u];
                }
            }
        }
        String rate = null;
        for (int u = UNITS.length - 2; u >= 0 && rate == null; u--) {
            long p = UNIT_NANOS[u] / interval;
            for (long q = Math.max(1, p); q <= p + 1 && rate == null; q++) {
                if (interval(q, UNIT_NANOS[u]) == interval) {
                    rate = q + "/1" + UNITS[u];
                }
            }
        }
        if (rate == null && count >= 1) {
            rate = perPeriod(count, interval);
        }
        for (long q = 1; q <= SEARCH && rate == null; q++) {
            rate = perPeriod(q, interval);
        }
        if (rate == null) {
            return "1/" + duration(interval) + " (approximately)" + (option == null ? "" : " " + option + "=" + value);
        }
        long permits = Long.parseLong(rate.substring(0, rate.indexOf('/')));
        return rate + (option == null || permits == value ? "" : " " + option + "=" + value);
    }

    /**
     * The rate as configured, {@code permits/period}, which the language reads back to the same
     * exact schedule, with the option when it is not the language's default.
     *
     * @return the text, or {@code null} if the period is not a whole number of a unit the
     *     language knows
     */
    private static String exactRate(Rate rate, long defaultValue, String option, long value) {
        if (rate == null) {
            return null;
        }
        String period = duration(rate.periodNanos());
        if (period.endsWith("(approximately)")) {
            return null;
        }
        return rate.permits() + "/" + period + (value == defaultValue ? "" : " " + option + "=" + value);
    }

    /** {@code q} permits per a whole number of the largest unit that gives {@code interval}, or {@code null}. */
    private static String perPeriod(long q, long interval) {
        if (interval > Long.MAX_VALUE / q) {
            return null;
        }
        long span = q * interval;
        for (int u = 0; u < UNITS.length; u++) {
            // The periods whose interval for q permits is this one: ((interval - 1) * q, interval * q].
            long k = span / UNIT_NANOS[u];
            if (k >= 1 && interval(q, k * UNIT_NANOS[u]) == interval) {
                return q + "/" + k + UNITS[u];
            }
        }
        return null;
    }

    private static long interval(long permits, long period) {
        return permits > period ? -1 : Checks.intervalNanos(permits, period);
    }

    /** A duration in the largest unit of the language that holds it exactly: {@code 90s}, {@code 2m}. */
    static String duration(long nanos) {
        for (int u = 0; u < UNITS.length; u++) {
            if (nanos % UNIT_NANOS[u] == 0) {
                return nanos / UNIT_NANOS[u] + UNITS[u];
            }
        }
        return nanos / 1_000_000 + "ms (approximately)";
    }

    private static String decimal(double v) {
        String s = Double.toString(v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }
}
