package io.github.sluice.policy;

import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.core.Algorithm;
import io.github.sluice.key.KeyResolver;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One rate or concurrency limit of the HTTP layer: which requests it applies to, how it keys them,
 * what algorithm limits each key, and what a denial looks like.
 *
 * <p>Built in code with {@link #builder(String)}, or parsed from the configuration language with
 * {@link #parse(String)}; both produce {@link #equals equal} objects:
 * <pre>{@code
 * Policy a = Policy.parse("per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*");
 * Policy b = Policy.builder("per-ip")
 *         .algorithm(TokenBucket.builder().rate(Rate.perMinute(100)).burst(20).build())
 *         .key(KeyResolvers.ip())
 *         .match(Match.paths("/api/*"))
 *         .build();
 * assert a.equals(b);
 * }</pre>
 *
 * <p>{@link PolicyFormat#format(Policy)} writes a policy back in the language.
 *
 * <p>Immutable and thread-safe.
 */
public final class Policy {

    private static final Pattern NAME = Pattern.compile("[a-z0-9-]{1,64}");

    private final String name;
    private final Algorithm<?> algorithm;
    private final KeyResolver key;
    private final Match match;
    private final RequestCost cost;
    private final int status;
    private final boolean dryRun;
    private final AllowList allow;
    private final Unresolved unresolved;
    private final DropStatuses drop;
    private final KeyResolver partition;
    private final Plans plans;
    private final Charge charge;

    private Policy(Builder b) {
        this.name = b.name;
        this.algorithm = b.algorithm;
        this.key = b.key;
        this.match = b.match;
        this.cost = b.cost;
        this.status = b.status;
        this.dryRun = b.dryRun;
        this.allow = b.allow;
        this.unresolved = b.unresolved;
        this.drop = b.drop;
        this.partition = b.partition;
        this.plans = b.plans;
        this.charge = b.charge;
    }

    /**
     * Starts a policy.
     *
     * @param name {@code [a-z0-9-]}, 1 to 64 characters: it appears in headers and the problem body
     * @return a builder
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if the name is not {@code [a-z0-9-]{1,64}}
     */
    public static Builder builder(String name) {
        return new Builder(checkName(name));
    }

    /**
     * Parses one policy line of the configuration language, e.g.
     * {@code per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*}. The {@code ip} key is
     * {@link io.github.sluice.key.KeyResolvers#ip()}, which the enforcer resolves with its
     * client-address settings (see {@link PolicyParser}).
     *
     * @param line the line
     * @return the policy
     * @throws NullPointerException if {@code line} is null
     * @throws io.github.sluice.policy.ConfigException (an {@link IllegalArgumentException}) naming
     *     the parameter and the value if the line is invalid
     */
    public static Policy parse(String line) {
        return PolicyParser.parseLine(line);
    }

    static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "policy name must match [a-z0-9-]{1,64} but was '" + name + "'");
        }
        return name;
    }

    /** @return the name, {@code [a-z0-9-]+} */
    public String name() {
        return name;
    }

    /** @return the algorithm applied to each key */
    public Algorithm<?> algorithm() {
        return algorithm;
    }

    /** @return how a request's key is found */
    public KeyResolver key() {
        return key;
    }

    /** @return which requests the policy applies to when selected by path */
    public Match match() {
        return match;
    }

    /**
     * @return permits one request takes, {@code >= 1}: the constant cost, or 1 (the least a
     *     request takes) when the cost is read from the request (see {@link #requestCost()})
     */
    public long cost() {
        return cost.permits();
    }

    /** @return how many permits one request takes: a constant, or read from the request */
    public RequestCost requestCost() {
        return cost;
    }

    /** @return the HTTP status of a denial, 400..599 (default 429) */
    public int status() {
        return status;
    }

    /** @return {@code true} if the policy reports but never blocks */
    public boolean dryRun() {
        return dryRun;
    }

    /** @return clients that bypass the policy */
    public AllowList allow() {
        return allow;
    }

    /** @return what happens to a request whose key cannot be resolved; default {@link Unresolved#SKIP} */
    public Unresolved unresolved() {
        return unresolved;
    }

    /**
     * @return the response statuses that count as a drop for an adaptive policy (see
     *     {@link DropStatuses}); {@link DropStatuses#DEFAULT} unless set; ignored by other policies
     */
    public DropStatuses drop() {
        return drop;
    }

    /**
     * @return how a request's partition name is found (an adaptive policy whose algorithm has
     *     partitions), or {@code null} if the policy has no partitions
     */
    public KeyResolver partition() {
        return partition;
    }

    /**
     * @return the client's plans and contract limits ({@code plan=}, {@code plans=},
     *     {@code override=}), or {@code null} if every client has {@link #algorithm()}'s limit. With
     *     plans, {@link #algorithm()} is the default plan's limit (or the first plan's with one)
     */
    public Plans plans() {
        return plans;
    }

    /**
     * @return which admitted requests are charged, by the status of their response (see
     *     {@link Charge}); {@link Charge#ALWAYS} unless set
     */
    public Charge charge() {
        return charge;
    }

    /** @return {@code true} for a concurrency limit, whose permits are held until the request ends */
    public boolean concurrency() {
        return algorithm.concurrency();
    }

    /**
     * Returns a builder holding this policy's settings, to derive a variant.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder(name);
        b.algorithm = algorithm;
        b.key = key;
        b.match = match;
        b.cost = cost;
        b.status = status;
        b.dryRun = dryRun;
        b.allow = allow;
        b.unresolved = unresolved;
        b.drop = drop;
        b.dropSet = drop != DropStatuses.DEFAULT;
        b.partition = partition;
        b.plans = plans;
        b.charge = charge;
        return b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Policy p && p.name.equals(name) && p.algorithm.equals(algorithm)
                && p.key.equals(key) && p.match.equals(match) && p.cost.equals(cost)
                && p.status == status && p.dryRun == dryRun && p.allow.equals(allow)
                && p.unresolved.equals(unresolved)
                && p.drop.equals(drop) && Objects.equals(p.partition, partition)
                && Objects.equals(p.plans, plans) && p.charge.equals(charge);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, algorithm, key, match, cost, status, dryRun, allow, unresolved, drop, partition, plans,
                charge);
    }

    @Override
    public String toString() {
        return "Policy{" + name + ", " + algorithm + ", key=" + key + ", match=" + match
                + ", cost=" + cost + (cost.fallback().isPresent() ? ", cost-default=" + cost.fallback().getAsLong() : "")
                + ", status=" + status + (dryRun ? ", dry-run" : "")
                + (allow.isEmpty() ? "" : ", allow=" + allow)
                + (unresolved.denies() ? ", unresolved=" + unresolved : "")
                + (algorithm instanceof AdaptiveLimit ? ", drop=" + drop : "")
                + (partition == null ? "" : ", partition=" + partition)
                + (plans == null ? "" : ", " + plans) + (charge.always() ? "" : ", " + charge) + '}';
    }

    /** Builds a {@link Policy}. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private Algorithm<?> algorithm;
        private KeyResolver key;
        private Match match = Match.ALL;
        private RequestCost cost = RequestCost.ONE;
        private int status = 429;
        private boolean dryRun;
        private AllowList allow = AllowList.NONE;
        private Unresolved unresolved = Unresolved.SKIP;
        private DropStatuses drop = DropStatuses.DEFAULT;
        private boolean dropSet;
        private KeyResolver partition;
        private Plans plans;
        private Charge charge = Charge.ALWAYS;

        private Builder(String name) {
            this.name = name;
        }

        /**
         * Sets the algorithm (required).
         *
         * @param algorithm e.g. {@code TokenBucket.of(Rate.perMinute(100))}
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder algorithm(Algorithm<?> algorithm) {
            this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
            return this;
        }

        /**
         * Sets how requests are keyed (required).
         *
         * @param key e.g. {@code KeyResolvers.ip()}
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder key(KeyResolver key) {
            this.key = Objects.requireNonNull(key, "key");
            return this;
        }

        /**
         * Sets which requests the policy applies to. Default {@link Match#ALL}.
         *
         * @param match the match
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder match(Match match) {
            this.match = Objects.requireNonNull(match, "match");
            return this;
        }

        /**
         * Sets the match from its text form, e.g. {@code POST:/login}.
         *
         * @param match the text form (see {@link Match})
         * @return this builder
         * @throws IllegalArgumentException if the text is invalid
         */
        public Builder match(String match) {
            return match(Match.parse(match));
        }

        /**
         * Sets the permits one request takes. Default 1.
         *
         * @param cost {@code >= 1}, at most the algorithm's limit
         * @return this builder
         * @throws IllegalArgumentException if {@code cost < 1}
         */
        public Builder cost(long cost) {
            if (cost < 1) {
                throw new IllegalArgumentException("cost must be >= 1 but was " + cost + " (policy '" + name + "')");
            }
            this.cost = RequestCost.of(cost);
            return this;
        }

        /**
         * Sets how many permits one request takes: a constant, or read from the request (a
         * header, the declared body size, a registered function; see {@link RequestCost}).
         * Default {@link RequestCost#ONE}.
         *
         * @param cost e.g. {@code RequestCost.body(1024)}
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder cost(RequestCost cost) {
            this.cost = Objects.requireNonNull(cost, "cost");
            return this;
        }

        /**
         * Sets the HTTP status of a denial. Default 429; 503 suits a global concurrency limit.
         *
         * @param status 400..599
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder status(int status) {
            if (status < 400 || status > 599) {
                throw new IllegalArgumentException(
                        "status must be between 400 and 599 but was " + status + " (policy '" + name + "')");
            }
            this.status = status;
            return this;
        }

        /**
         * Sets dry-run: evaluate and report (headers, events, log) but never block or delay.
         * Default off.
         *
         * @param dryRun {@code true} for dry-run
         * @return this builder
         */
        public Builder dryRun(boolean dryRun) {
            this.dryRun = dryRun;
            return this;
        }

        /**
         * Sets the clients that bypass the policy. Default none.
         *
         * @param allow the allow-list
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder allow(AllowList allow) {
            this.allow = Objects.requireNonNull(allow, "allow");
            return this;
        }

        /**
         * Sets the clients that bypass the policy from networks and keys.
         *
         * @param entries see {@link AllowList#of(String...)}
         * @return this builder
         * @throws IllegalArgumentException if an entry is invalid
         */
        public Builder allow(String... entries) {
            return allow(AllowList.of(entries));
        }

        /**
         * Sets what happens to a request whose key cannot be resolved. Default
         * {@link Unresolved#SKIP}: the policy does not apply to it.
         *
         * @param unresolved e.g. {@code Unresolved.deny(401)}
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder unresolved(Unresolved unresolved) {
            this.unresolved = Objects.requireNonNull(unresolved, "unresolved");
            return this;
        }

        /**
         * Sets the response statuses that an adaptive policy counts as a drop (overload), as a
         * timeout is: see {@link DropStatuses}. Default {@code 503,504}. Only for adaptive
         * policies ({@code io.github.sluice.adaptive}).
         *
         * @param drop the statuses, e.g. {@code DropStatuses.parse("503,504")}, or
         *     {@link DropStatuses#NONE} to learn from latency and timeouts only
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder drop(DropStatuses drop) {
            this.drop = Objects.requireNonNull(drop, "drop");
            this.dropSet = true;
            return this;
        }

        /**
         * Sets how a request's partition is found, for an adaptive policy whose algorithm has
         * partitions ({@code AdaptiveLimit.Builder.partition(name, share)}): the resolver returns
         * the partition's name, e.g. a tier the authentication filter set. A request whose name is not one of the
         * algorithm's partitions (or {@code null}) belongs to none: it only borrows. Required when
         * the algorithm has partitions; refused otherwise.
         *
         * @param partition e.g. {@code KeyResolvers.attribute("tier")}, set by the authentication
         *     filter; a header the client writes ({@code KeyResolvers.header("X-Tier")}) lets any
         *     client claim any partition, and the start-up line says so
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder partition(KeyResolver partition) {
            this.partition = Objects.requireNonNull(partition, "partition");
            return this;
        }

        /**
         * Sets the client's plans and contract limits (see {@link Plans}). The policy's
         * {@link #algorithm} must be of the plans' kind; {@link Plans}' default plan's limit is the
         * usual choice. Default: none, every client has the algorithm's limit.
         *
         * @param plans the plan table, or {@code null} for none
         * @return this builder
         */
        public Builder plans(Plans plans) {
            this.plans = plans;
            return this;
        }

        /** Every plan's limit of the policy's algorithm's class, and at least the cost. */
        private void checkPlans() {
            if (algorithm instanceof AdaptiveLimit) {
                throw new IllegalArgumentException("plans need an algorithm with a fixed limit, not "
                        + algorithm.kind() + " (policy '" + name + "')");
            }
            for (Plans.Plan p : plans.plans()) {
                Algorithm<?> a = p.algorithm();
                if (a == null) {
                    continue;
                }
                if (a.getClass() != algorithm.getClass()) {
                    throw new IllegalArgumentException("plan '" + p.name() + "' must be a " + algorithm.kind()
                            + " limit like the policy's but was " + a.kind() + " (policy '" + name + "')");
                }
                if (cost.permits() > a.limit()) {
                    throw new IllegalArgumentException("cost must be <= the limit " + a.limit() + " of plan '"
                            + p.name() + "' but was " + cost.permits() + " (policy '" + name + "')");
                }
                if (cost.fallback().isPresent() && cost.fallback().getAsLong() > a.limit()) {
                    throw new IllegalArgumentException("cost-default must be <= the limit " + a.limit() + " of plan '"
                            + p.name() + "' but was " + cost.fallback().getAsLong() + " (policy '" + name + "')");
                }
            }
        }

        /**
         * Sets which admitted requests are charged, by the status of their response: all of them
         * (the default), only those with listed statuses ({@code Charge.count(401)}), or all but
         * those ({@code Charge.skip("5xx")}). A request is still refused when the quota is spent;
         * an admitted one holds its permits until it ends, then keeps or gets them back by its
         * status (see {@link Charge}). Only for rate policies, except warm-up and shaping.
         *
         * @param charge e.g. {@code Charge.count("401,403")}
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder charge(Charge charge) {
            this.charge = Objects.requireNonNull(charge, "charge");
            return this;
        }

        /**
         * @return the policy
         * @throws IllegalStateException if the algorithm or the key is missing
         * @throws IllegalArgumentException if the cost, or the default of a cost read from the
         *     request, exceeds the algorithm's limit (no request could ever pass); if {@link #drop}
         *     is set for a policy that is not adaptive; if {@link #partition} is set and the
         *     algorithm has no partitions, or not set and it has; if a {@link #charge} other than
         *     {@link Charge#ALWAYS} is set for a concurrency, adaptive, warm-up or shaping policy
         */
        public Policy build() {
            if (algorithm == null) {
                throw new IllegalStateException("algorithm must be set (policy '" + name + "')");
            }
            if (key == null) {
                throw new IllegalStateException("key must be set (policy '" + name + "')");
            }
            if (cost.permits() > algorithm.limit()) {
                throw new IllegalArgumentException("cost must be <= the limit " + algorithm.limit()
                        + " but was " + cost.permits() + " (policy '" + name + "')");
            }
            if (cost.fallback().isPresent() && cost.fallback().getAsLong() > algorithm.limit()) {
                throw new IllegalArgumentException("cost-default must be <= the limit " + algorithm.limit()
                        + " but was " + cost.fallback().getAsLong() + " (policy '" + name + "')");
            }
            if (plans != null) {
                checkPlans();
            }
            boolean adaptive = algorithm instanceof AdaptiveLimit;
            int partitions = adaptive ? ((AdaptiveLimit<?>) algorithm).partitions() : 0;
            if (dropSet && !adaptive) {
                throw new IllegalArgumentException("drop applies to adaptive policies only but was " + drop
                        + " for " + algorithm.kind() + " (policy '" + name + "')");
            }
            String refused = Charge.refusal(algorithm, charge);
            if (refused != null) {
                throw new IllegalArgumentException(refused + " (policy '" + name + "')");
            }
            if (partition != null && partitions == 0) {
                throw new IllegalArgumentException("partition needs an adaptive algorithm with partitions "
                        + "(partitions=name:share,...) but was " + partition + " for " + algorithm
                        + " (policy '" + name + "')");
            }
            if (partition == null && partitions > 0) {
                throw new IllegalArgumentException("partition must be set (how a request's partition is found, "
                        + "e.g. partition=attribute:tier, set by your authentication) when the algorithm has partitions, but was not set for "
                        + algorithm + " (policy '" + name + "')");
            }
            return new Policy(this);
        }
    }
}
