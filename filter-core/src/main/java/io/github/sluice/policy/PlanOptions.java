package io.github.sluice.policy;

import io.github.sluice.core.Algorithm;
import io.github.sluice.key.KeyResolver;
import java.time.Duration;
import java.util.function.Function;

/**
 * The plan options of the policy language: {@code plan=}, {@code plans=}, {@code default-plan=},
 * {@code blocked-status=}, {@code override=} and its settings (see {@link Plans}). A policy with
 * {@code plans=} writes no limit after its algorithm: each plan's limit takes that place, with the
 * algorithm's other options, so {@code token-bucket burst=20 plans=free:100/1m,pro:1000/1m} is
 * {@code token-bucket 100/1m burst=20} for {@code free}.
 */
final class PlanOptions {

    static final String[] NAMES = {"plan", "plans", "default-plan", "blocked-status", "override",
        "override-cache", "override-ttl", "override-timeout"};

    private PlanOptions() {
    }

    /**
     * @return the specification the policy's own algorithm is read from: {@code spec} itself, or,
     *     with {@code plans=}, {@code spec} with the default plan's limit as its positional argument
     */
    static String shapeSpec(Line ctx, Args args, String spec) {
        String plans = args.peek("plans");
        if (plans == null) {
            return spec;
        }
        String kind = args.kind;
        if (kind.equals("adaptive")) {
            throw ctx.error("plans", plans, "plans need an algorithm with a fixed limit; an adaptive limit moves"
                    + " with latency, so a plan could not promise its clients a quota (use a rate or concurrency"
                    + " algorithm, or adaptive partitions= for shares of one adaptive limit)");
        }
        String rest = spec.substring(kind.length()).strip();
        String firstWord = rest.isEmpty() ? "" : rest.split("[ \t]+")[0];
        if (!firstWord.isEmpty() && firstWord.indexOf('=') < 0) {
            throw ctx.error("plans", plans, "with plans=..., each plan gives the limit: remove '" + firstWord
                    + "' after " + kind);
        }
        String[] entries = entries(ctx, plans);
        String def = args.peek("default-plan");
        String limit = null;
        for (String e : entries) {
            int colon = e.indexOf(':');
            String l = e.substring(colon + 1);
            if (def != null && e.substring(0, colon).equals(def) && !special(l)) {
                limit = l;
            }
            if (limit == null && !special(l)) {
                limit = l;
            }
        }
        if (limit == null) {
            throw ctx.error("plans", plans, "at least one plan must have a limit, not only unlimited or blocked");
        }
        return kind + " " + limit + (rest.isEmpty() ? "" : " " + rest);
    }

    private static boolean special(String limit) {
        return limit.equals("unlimited") || limit.equals("blocked");
    }

    private static String[] entries(Line ctx, String plans) {
        String[] entries = plans.split(",", -1);
        for (String e : entries) {
            int colon = e.indexOf(':');
            if (colon <= 0 || colon == e.length() - 1) {
                throw ctx.error("plans", plans, "plans must be written name:limit,name:limit (e.g. "
                        + "free:100/1m,pro:1000/1m,internal:unlimited,banned:blocked), but '" + e + "' is not");
            }
        }
        return entries;
    }

    /**
     * Reads the plan options into {@code b}, if any: marks them understood, builds every plan's
     * algorithm from {@code spec} with the plan's limit in place of the default's.
     */
    static void read(Line ctx, Args args, String spec, Policy.Builder b) {
        String plan = given(args, "plan");
        String plans = given(args, "plans");
        String def = given(args, "default-plan");
        String blocked = given(args, "blocked-status");
        String override = given(args, "override");
        String cache = given(args, "override-cache");
        String ttl = given(args, "override-ttl");
        String timeout = given(args, "override-timeout");
        if (plans == null) {
            if (plan != null) {
                throw ctx.error("plan", plan, "plan=... needs plans=name:limit,... (e.g. plans=free:100/1m,pro:1000/1m"
                        + " default-plan=free)");
            }
            if (def != null) {
                throw ctx.error("default-plan", def, "default-plan needs plans=name:limit,...");
            }
            if (blocked != null) {
                throw ctx.error("blocked-status", blocked, "blocked-status needs a plan whose limit is blocked");
            }
            if (override == null) {
                String orphan = cache != null ? "override-cache" : ttl != null ? "override-ttl" : timeout != null
                        ? "override-timeout" : null;
                if (orphan != null) {
                    throw ctx.error(orphan, args.peek(orphan), orphan + " needs override=bean:NAME or override=file:PATH");
                }
                return;
            }
        } else if (plan == null) {
            throw ctx.error("plans", plans, "plans=... needs plan=... (how a request's plan is found, e.g. "
                    + "plan=bean:planOf or plan=attribute:plan, set by your authentication)");
        }
        String kind = args.kind;
        if (kind.equals("adaptive")) {
            throw ctx.error("override", override, "override needs an algorithm with a fixed limit; an adaptive"
                    + " limit moves with latency");
        }
        String rest = spec.substring(kind.length()).strip();
        String own = rest.split("[ \t]+")[0];
        // The algorithm's options without its positional limit: what every plan and contract shares.
        String options = own.indexOf('=') >= 0 ? rest : rest.substring(own.length()).strip();
        Function<String, Algorithm<?>> limits = text -> limit(ctx, kind, options, text);
        KeyResolver resolver = plan == null ? null : ctx.call("plan", plan, () -> KeySpecs.parse(plan));
        Plans.Builder p = Plans.builder(resolver).limits(limits);
        if (plans == null) {
            // One limit with per-key overrides: the policy's own limit is its only plan.
            p.plan("default", limit(ctx, kind, options, own), own);
        } else {
            for (String e : entries(ctx, plans)) {
                int colon = e.indexOf(':');
                String name = e.substring(0, colon);
                String l = e.substring(colon + 1);
                if (l.equals("unlimited")) {
                    ctx.call("plans", plans, () -> p.unlimited(name));
                } else if (l.equals("blocked")) {
                    ctx.call("plans", plans, () -> p.blocked(name));
                } else {
                    Algorithm<?> a;
                    try {
                        a = limit(ctx, kind, options, l);
                    } catch (ConfigException ex) {
                        throw ctx.error("plans", plans, "plan '" + name + "' has no valid limit '" + l + "': "
                                + ex.reason());
                    }
                    ctx.call("plans", plans, () -> p.plan(name, a, l));
                }
            }
        }
        if (def != null) {
            p.defaultPlan(def);
        } else if (plans != null && entries(ctx, plans).length > 1) {
            throw ctx.error("default-plan", null, "several plans need default-plan=NAME: the plan of requests whose"
                    + " plan is missing or unknown (never a free pass), one of " + plans);
        }
        if (blocked != null) {
            long s = args.longValue("blocked-status", blocked, 599);
            ctx.call("blocked-status", blocked, () -> p.blockedStatus((int) s));
        }
        if (override != null) {
            ctx.call("override", override, () -> p.override(override));
        }
        if (cache != null) {
            long n = args.longValue("override-cache", cache, 10_000_000);
            ctx.call("override-cache", cache, () -> p.overrideCache((int) n));
        }
        if (ttl != null) {
            Duration d = args.duration("override-ttl", ttl);
            ctx.call("override-ttl", ttl, () -> p.overrideTtl(d));
        }
        if (timeout != null) {
            Duration d = args.duration("override-timeout", timeout);
            ctx.call("override-timeout", timeout, () -> p.overrideTimeout(d));
        }
        Plans built = ctx.call(def != null ? "default-plan" : "plans", def != null ? def : plans, p::build);
        if (blocked != null && built.plans().stream().noneMatch(x -> x.type() == Plans.Type.BLOCKED)) {
            throw ctx.error("blocked-status", blocked, "blocked-status needs a plan whose limit is blocked");
        }
        b.plans(built);
    }

    /**
     * An option's value, marked understood only if given: the known options listed in the message
     * about a misspelt one stay those of the algorithm and every policy.
     */
    private static String given(Args args, String name) {
        return args.peek(name) == null ? null : args.option(name);
    }

    /** The algorithm {@code kind limit rest}: a plan's or a contract's limit with the policy's options. */
    private static Algorithm<?> limit(Line ctx, String kind, String rest, String limit) {
        if (limit.isEmpty() || limit.indexOf(' ') >= 0 || limit.indexOf('=') >= 0) {
            throw ctx.error("limit", limit, "a limit is one word such as 100/1m (or a count for concurrency)");
        }
        Line quiet = new Line(ctx.source, ctx.line, ctx.policy);
        Args a = Args.tokenize(quiet, kind + " " + limit + (rest.isEmpty() ? "" : " " + rest));
        return Algorithms.build(quiet, a);
    }
}
