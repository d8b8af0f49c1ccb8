package io.github.sluice.policy;

import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.core.Algorithm;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.key.KeyResolvers;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Parses the policy language: one policy per line,
 * <pre>
 * name = algorithm arguments [option=value ...]
 * </pre>
 * for example
 * <pre>
 * per-ip   = token-bucket 100/1m burst=20 key=ip match=/api/*
 * login    = fixed-window 5/1m key=ip match=POST:/login
 * inflight = concurrency 50 key=global status=503
 * </pre>
 * Blank lines and lines starting with {@code #} are ignored. The full grammar, with every
 * algorithm, key and option, is in {@code docs/configuration.md}.
 *
 * <p>The {@code ip} key is {@link KeyResolvers#ip()}: the client's address under the default
 * client-address settings. The enforcer ({@code io.github.sluice.http.Enforcer}) applies its own
 * settings (trusted proxies, forwarding header, IPv6 prefix) to every such key and to allow-lists,
 * so they are given once, to the enforcer's builder, whatever the order of the calls.
 *
 * <p>Every error is a {@link ConfigException} naming the source, the line, the policy, the
 * parameter and the value. Stateless and thread-safe.
 */
public final class PolicyParser {

    private PolicyParser() {
    }

    /** @return the algorithm names the parser knows, e.g. {@code token-bucket} */
    public static Set<String> algorithms() {
        return Algorithms.kinds();
    }

    /**
     * Parses a single line {@code name = spec}.
     *
     * @param line the line
     * @return the policy
     * @throws NullPointerException if {@code line} is null
     * @throws ConfigException if the line is invalid
     */
    public static Policy parseLine(String line) {
        Objects.requireNonNull(line, "line");
        Policy p = parseLine(line.strip(), "policy", 1);
        if (p == null) {
            throw new ConfigException("policy", 1, null, "policy", line, "a policy line must not be empty", null);
        }
        return p;
    }

    /**
     * Parses several lines.
     *
     * @param text the lines
     * @param source where the text came from, for messages (e.g. {@code init-param policies})
     * @return the policies in order
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if a line is invalid or two policies share a name
     */
    public static List<Policy> parse(String text, String source) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(source, "source");
        List<Policy> out = new ArrayList<>();
        String[] lines = text.split("\r\n|\r|\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Policy p = parseLine(lines[i].strip(), source, i + 1);
            if (p != null) {
                for (Policy q : out) {
                    if (q.name().equals(p.name())) {
                        throw new ConfigException(source, i + 1, p.name(), "name", p.name(),
                                "policy names must be unique but '" + p.name() + "' is defined twice", null);
                    }
                }
                out.add(p);
            }
        }
        return out;
    }

    /**
     * Parses the right-hand side of a policy whose name is given separately, as in a properties
     * file ({@code policy.per-ip = token-bucket 100/1m}).
     *
     * @param name the policy's name
     * @param spec the algorithm, arguments and options
     * @param source where the text came from
     * @param line the 1-based line, or 0
     * @return the policy
     * @throws ConfigException if invalid
     */
    public static Policy parse(String name, String spec, String source, int line) {
        Line ctx = new Line(source, line, null);
        String n = name.strip();
        ctx.call("name", n, () -> Policy.checkName(n));
        ctx.policy = n;
        return parseSpec(ctx, spec.strip());
    }

    private static Policy parseLine(String line, String source, int lineNo) {
        if (line.isEmpty() || line.startsWith("#")) {
            return null;
        }
        Line ctx = new Line(source, lineNo, null);
        int eq = line.indexOf('=');
        if (eq < 0 || line.substring(0, eq).strip().indexOf(' ') >= 0 || line.substring(0, eq).strip().indexOf('\t') >= 0) {
            throw ctx.error("policy", line, "a policy line must have the form 'name = algorithm ...'");
        }
        String name = line.substring(0, eq).strip();
        ctx.call("name", name, () -> Policy.checkName(name));
        ctx.policy = name;
        return parseSpec(ctx, line.substring(eq + 1).strip());
    }

    private static Policy parseSpec(Line ctx, String spec) {
        if (spec.isEmpty()) {
            throw ctx.error("algorithm", null, "an algorithm must follow '=' (one of " + Algorithms.kinds() + ")");
        }
        Args args = Args.tokenize(ctx, spec);
        String shaped = PlanOptions.shapeSpec(ctx, args, spec);
        if (!shaped.equals(spec)) {
            args = Args.tokenize(ctx, shaped); // each plan's limit takes the place of the algorithm's
        }
        Algorithm<?> algorithm = Algorithms.build(ctx, args);
        Policy.Builder b = Policy.builder(ctx.policy).algorithm(algorithm);
        String key = args.option("key");
        if (key == null) {
            throw ctx.error("key", null, "every policy needs key=... (ip, header:<name>, principal, "
                    + "attribute:<name>, global, constant:<value>, or a chain like principal|ip)" + args.misspelt("key"));
        }
        KeyResolver resolver = ctx.call("key", key, () -> KeySpecs.parse(key));
        b.key(resolver);
        String match = args.option("match");
        if (match != null) {
            Match m = ctx.call("match", match, () -> Match.parse(match));
            b.match(m);
        }
        String cost = args.option("cost");
        if (cost != null) {
            long limit = algorithm.limit();
            if (!cost.isEmpty() && Character.isLetter(cost.charAt(0))) {
                RequestCosts.parse(ctx, args, cost, limit, b);
            } else {
                long c = args.longValue("cost", cost, limit, "at most the limit, " + limit);
                ctx.call("cost", cost, () -> b.cost(c));
            }
        }
        RequestCosts.requireDefaultUsed(ctx, args, cost);
        String status = args.option("status");
        if (status != null) {
            long s = args.longValue("status", status, 599, "it must be between 400 and 599");
            ctx.call("status", status, () -> b.status((int) Math.max(Integer.MIN_VALUE, s)));
        }
        String dry = args.option("dry-run");
        if (dry != null) {
            b.dryRun(args.booleanValue("dry-run", dry));
        }
        String allow = args.option("allow");
        if (allow != null) {
            AllowList a = ctx.call("allow", allow, () -> AllowList.of(List.of(allow.split(",", -1))));
            b.allow(a);
        }
        String unresolved = args.option("unresolved");
        if (unresolved != null) {
            Unresolved u = ctx.call("unresolved", unresolved, () -> Unresolved.parse(unresolved));
            b.unresolved(u);
        }
        adaptiveOptions(ctx, args, algorithm, b);
        PlanOptions.read(ctx, args, shaped, b);
        chargeOption(ctx, args, algorithm, b);
        args.requireAllUsed();
        // The only combination build() checks is the cost against the algorithm's limit.
        return ctx.call("cost", cost == null ? "1" : cost, b::build);
    }

    /**
     * Counting by outcome: {@code count=} (charge only these statuses) or {@code skip=} (charge all
     * but these), never both, rate policies only (not warm-up or shaping). See {@link Charge}.
     */
    private static void chargeOption(Line ctx, Args args, Algorithm<?> algorithm, Policy.Builder b) {
        // Read without marking them known first: an algorithm that refuses them does not list them
        // among its options in the message of a misspelt one.
        String count = args.peek("count");
        String skip = args.peek("skip");
        if (count == null && skip == null) {
            if (Charge.refusal(algorithm, Charge.count(401)) == null) {
                args.option("count");
                args.option("skip");
            }
            return;
        }
        if (count != null && skip != null) {
            throw ctx.error("skip", skip, "count and skip cannot be combined (count=" + count + " already names the "
                    + "only statuses that are charged): keep one of them");
        }
        String name = count != null ? "count" : "skip";
        String value = count != null ? count : skip;
        args.option(name);
        Charge c = ctx.call(name, value, () -> count != null ? Charge.count(count) : Charge.skip(skip));
        String refused = Charge.refusal(algorithm, c);
        if (refused != null) {
            throw ctx.error(name, value, refused);
        }
        b.charge(c);
    }

    /** The request-level options of adaptive policies: {@code drop=} and {@code partition=}. */
    private static void adaptiveOptions(Line ctx, Args args, Algorithm<?> algorithm, Policy.Builder b) {
        if (!(algorithm instanceof AdaptiveLimit<?> adaptive)) {
            String drop = args.peek("drop");
            String partition = args.peek("partition");
            if (drop != null || partition != null) {
                String name = drop != null ? "drop" : "partition";
                throw ctx.error(name, drop != null ? drop : partition, name + " applies to adaptive policies only, not to "
                        + algorithm.kind());
            }
            return;
        }
        int partitions = adaptive.partitions();
        String drop = args.option("drop");
        String partition = args.option("partition");
        if (partition == null && partitions > 0) {
            throw ctx.error("partition", null, "partitions=... needs partition=... (how a request's partition "
                    + "is found, e.g. partition=attribute:tier, set by your authentication)");
        }
        if (partition != null && partitions == 0) {
            throw ctx.error("partition", partition, "partition=... needs partitions=name:percent,... "
                    + "(e.g. partitions=paid:70,free:30)");
        }
        if (drop != null) {
            DropStatuses d = ctx.call("drop", drop, () -> DropStatuses.parse(drop));
            ctx.call("drop", drop, () -> b.drop(d));
        }
        if (partition != null) {
            KeyResolver resolver = ctx.call("partition", partition, () -> KeySpecs.parse(partition));
            b.partition(resolver);
        }
    }
}