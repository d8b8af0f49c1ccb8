package io.github.sluice.policy;

import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.core.Algorithm;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.store.PlanAlgorithm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The limits of a policy whose limit depends on the client: a plan per client, found by a key
 * resolver, each with its own limit, and optionally a contract limit per key from a lookup the
 * application provides (an <em>override</em>). In the policy language:
 * <pre>{@code
 * api = token-bucket key=header:X-Api-Key plan=bean:planOf
 *       plans=free:100/1m,pro:1000/1m,internal:unlimited,banned:blocked default-plan=free
 *       override=bean:contractOf
 * }</pre>
 *
 * <ul>
 *   <li>A plan's limit has the shape of the policy's algorithm ({@code 100/1m} for a rate or a
 *       window, {@code 20} for a concurrency limit); the algorithm's other options apply to every
 *       plan. {@code unlimited} is never refused (the policy does not apply to such a client),
 *       {@code blocked} always is, with {@link #blockedStatus()} (default 403).
 *   <li>A request whose plan is missing or is not one of the plans is decided by the default plan:
 *       a plan a client did not write is never a free pass, and never an error.
 *   <li>A client keeps one state per policy, whatever its plan: when its plan or contract changes
 *       it keeps what it has used ({@code KEEP_CONSUMED}; see {@link PlanAlgorithm}).
 *   <li>A plan found from something the client writes (a header) is the client's choice: use a
 *       {@code bean:} resolver that looks the key up, or an {@code attribute:} your
 *       authentication sets.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class Plans {

    /** The default status of a {@code blocked} plan: the client is known and refused. */
    public static final int DEFAULT_BLOCKED_STATUS = 403;
    /** Default bound on the override lookups' cache, in keys. */
    public static final int DEFAULT_OVERRIDE_CACHE = 10_000;
    /** Default time an override looked up is used before it is looked up again. */
    public static final Duration DEFAULT_OVERRIDE_TTL = Duration.ofMinutes(1);
    /** Default longest time a request waits for an override lookup before its plan decides it. */
    public static final Duration DEFAULT_OVERRIDE_TIMEOUT = Duration.ofMillis(50);

    private static final Pattern PLAN_NAME = Pattern.compile("[a-z0-9-]{1,32}");
    private static final Pattern LOOKUP_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    /** What a plan does with its clients' requests. */
    public enum Type {
        /** Decided by the plan's algorithm. */
        LIMITED,
        /** Never refused: the policy does not apply. */
        UNLIMITED,
        /** Always refused, with the blocked status. */
        BLOCKED
    }

    /**
     * One plan.
     *
     * @param name {@code [a-z0-9-]{1,32}}
     * @param type what the plan does
     * @param algorithm the plan's limit when {@link Type#LIMITED}, else {@code null}
     * @param limit the limit as written ({@code 100/1m}, {@code unlimited}, {@code blocked})
     */
    public record Plan(String name, Type type, Algorithm<?> algorithm, String limit) {
    }

    private final KeyResolver resolver;
    private final List<Plan> plans;
    private final int defaultPlan;
    private final int blockedStatus;
    private final String override;
    private final int overrideCache;
    private final Duration overrideTtl;
    private final Duration overrideTimeout;
    private final Function<String, Algorithm<?>> limits;

    private Plans(Builder b) {
        this.resolver = b.resolver;
        this.plans = List.copyOf(b.plans.values());
        this.defaultPlan = new ArrayList<>(b.plans.keySet()).indexOf(b.defaultPlan);
        this.blockedStatus = b.blockedStatus;
        this.override = b.override;
        this.overrideCache = b.overrideCache;
        this.overrideTtl = b.overrideTtl;
        this.overrideTimeout = b.overrideTimeout;
        this.limits = b.limits;
    }

    /**
     * Starts a plan table.
     *
     * @param resolver how a request's plan name is found, or {@code null} for a policy with one
     *     limit and per-key overrides only
     * @return a builder
     */
    public static Builder builder(KeyResolver resolver) {
        return new Builder(resolver);
    }

    /**
     * Returns this plan table with another plan resolver, e.g. the enforcer's binding of a
     * {@code bean:} resolver.
     *
     * @param resolver the resolver
     * @return the plan table
     */
    public Plans withResolver(KeyResolver resolver) {
        if (Objects.equals(resolver, this.resolver)) {
            return this;
        }
        Builder b = new Builder(resolver);
        for (Plan p : plans) {
            b.plans.put(p.name(), p);
        }
        b.defaultPlan = defaultPlan().name();
        b.blockedStatus = blockedStatus;
        b.override = override;
        b.overrideCache = overrideCache;
        b.overrideTtl = overrideTtl;
        b.overrideTimeout = overrideTimeout;
        b.limits = limits;
        return b.build();
    }

    /** @return how a request's plan name is found, or {@code null} if the policy has one plan */
    public KeyResolver resolver() {
        return resolver;
    }

    /** @return the plans, in the order written */
    public List<Plan> plans() {
        return plans;
    }

    /** @return the index of the default plan in {@link #plans()} */
    public int defaultIndex() {
        return defaultPlan;
    }

    /** @return the plan of requests whose plan is missing or unknown */
    public Plan defaultPlan() {
        return plans.get(defaultPlan);
    }

    /** @return the status of a refusal by a {@code blocked} plan, 400..599 */
    public int blockedStatus() {
        return blockedStatus;
    }

    /** @return the override source as written ({@code bean:NAME} or {@code file:PATH}), or {@code null} */
    public String override() {
        return override;
    }

    /** @return the most keys whose override is cached */
    public int overrideCache() {
        return overrideCache;
    }

    /** @return how long an override looked up is used */
    public Duration overrideTtl() {
        return overrideTtl;
    }

    /** @return the longest a request waits for an override lookup before its plan decides it */
    public Duration overrideTimeout() {
        return overrideTimeout;
    }

    /**
     * Reads a contract limit, as a plan's is written ({@code 50/1m}, {@code 20},
     * {@code unlimited}, {@code blocked}).
     *
     * @param text the limit
     * @return the plan it makes, named {@code override}
     * @throws IllegalArgumentException if the text is not a limit of the policy's algorithm
     */
    public Plan limit(String text) {
        Objects.requireNonNull(text, "text");
        String t = text.strip();
        return switch (t) {
            case "unlimited" -> new Plan("override", Type.UNLIMITED, null, t);
            case "blocked" -> new Plan("override", Type.BLOCKED, null, t);
            default -> {
                if (limits == null) {
                    throw new IllegalArgumentException("this plan table reads no limits (set Builder.limits)");
                }
                yield new Plan("override", Type.LIMITED, Objects.requireNonNull(limits.apply(t), "limit"), t);
            }
        };
    }

    /**
     * @return the algorithms of the limited plans in order, and the default's index among them (the
     *     first limited plan if the default is not limited): what the store holds
     */
    public PlanAlgorithm newAlgorithm() {
        List<Algorithm<?>> limited = new ArrayList<>();
        int def = 0;
        for (int i = 0; i < plans.size(); i++) {
            if (plans.get(i).type() == Type.LIMITED) {
                if (i == defaultPlan) {
                    def = limited.size();
                }
                limited.add(plans.get(i).algorithm());
            }
        }
        return new PlanAlgorithm(limited, def);
    }

    /** @return the algorithm the policy is described by: the default plan's, or the first limited plan's */
    Algorithm<?> shape() {
        Plan d = defaultPlan();
        if (d.type() == Type.LIMITED) {
            return d.algorithm();
        }
        for (Plan p : plans) {
            if (p.type() == Type.LIMITED) {
                return p.algorithm();
            }
        }
        return null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Plans p && Objects.equals(p.resolver, resolver) && p.plans.equals(plans)
                && p.defaultPlan == defaultPlan && p.blockedStatus == blockedStatus
                && Objects.equals(p.override, override) && p.overrideCache == overrideCache
                && p.overrideTtl.equals(overrideTtl) && p.overrideTimeout.equals(overrideTimeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(resolver, plans, defaultPlan, blockedStatus, override, overrideCache, overrideTtl,
                overrideTimeout);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Plans{");
        if (resolver != null) {
            b.append("plan=").append(resolver).append(", ");
        }
        for (Plan p : plans) {
            b.append(p.name()).append(':').append(p.limit()).append(' ');
        }
        b.append("default=").append(defaultPlan().name());
        if (override != null) {
            b.append(", override=").append(override);
        }
        return b.append('}').toString();
    }

    /** Builds {@link Plans}. Not thread-safe. */
    public static final class Builder {
        private final KeyResolver resolver;
        private final Map<String, Plan> plans = new LinkedHashMap<>();
        private String defaultPlan;
        private int blockedStatus = DEFAULT_BLOCKED_STATUS;
        private String override;
        private int overrideCache = DEFAULT_OVERRIDE_CACHE;
        private Duration overrideTtl = DEFAULT_OVERRIDE_TTL;
        private Duration overrideTimeout = DEFAULT_OVERRIDE_TIMEOUT;
        private Function<String, Algorithm<?>> limits;

        private Builder(KeyResolver resolver) {
            this.resolver = resolver;
        }

        private Builder add(String name, Type type, Algorithm<?> algorithm, String limit) {
            Objects.requireNonNull(name, "name");
            if (!PLAN_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("a plan name must match [a-z0-9-]{1,32} but was '" + name + "'");
            }
            if (plans.containsKey(name)) {
                throw new IllegalArgumentException("plan '" + name + "' is given twice");
            }
            if (algorithm instanceof AdaptiveLimit) {
                throw new IllegalArgumentException("plans need an algorithm with a fixed limit, but adaptive limits"
                        + " move with latency (plan '" + name + "')");
            }
            plans.put(name, new Plan(name, type, algorithm, limit));
            return this;
        }

        /**
         * Adds a plan with a limit.
         *
         * @param name {@code [a-z0-9-]{1,32}}
         * @param algorithm the plan's limit; every plan's algorithm is of the same class
         * @return this builder
         * @throws IllegalArgumentException if the name is invalid or taken, or the algorithm adaptive
         */
        public Builder plan(String name, Algorithm<?> algorithm) {
            return add(name, Type.LIMITED, Objects.requireNonNull(algorithm, "algorithm"), algorithm.toString());
        }

        /** Same as {@link #plan(String, Algorithm)}, keeping the limit as written for messages. */
        Builder plan(String name, Algorithm<?> algorithm, String written) {
            return add(name, Type.LIMITED, Objects.requireNonNull(algorithm, "algorithm"), written);
        }

        /**
         * Adds a plan whose clients are never refused by this policy.
         *
         * @param name {@code [a-z0-9-]{1,32}}
         * @return this builder
         */
        public Builder unlimited(String name) {
            return add(name, Type.UNLIMITED, null, "unlimited");
        }

        /**
         * Adds a plan whose clients are always refused, with {@link #blockedStatus(int)}.
         *
         * @param name {@code [a-z0-9-]{1,32}}
         * @return this builder
         */
        public Builder blocked(String name) {
            return add(name, Type.BLOCKED, null, "blocked");
        }

        /**
         * Sets the plan of requests whose plan is missing or unknown (required when there are
         * several plans; with one, it is the default).
         *
         * @param name one of the plans
         * @return this builder
         */
        public Builder defaultPlan(String name) {
            this.defaultPlan = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Sets the status of a {@code blocked} plan's refusals. Default 403.
         *
         * @param status 400..599
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder blockedStatus(int status) {
            if (status < 400 || status > 599) {
                throw new IllegalArgumentException("blocked-status must be between 400 and 599 but was " + status);
            }
            this.blockedStatus = status;
            return this;
        }

        /**
         * Sets where contract limits per key come from: {@code bean:NAME}, a lookup registered on
         * the enforcer's builder, or {@code file:PATH}, lines {@code key = limit}.
         *
         * @param source the source
         * @return this builder
         * @throws IllegalArgumentException if it is neither form
         */
        public Builder override(String source) {
            Objects.requireNonNull(source, "source");
            if (source.startsWith("bean:")) {
                String name = source.substring(5);
                if (!LOOKUP_NAME.matcher(name).matches()) {
                    throw new IllegalArgumentException("override=bean:NAME needs a name of [A-Za-z0-9_.-]{1,64} but was '"
                            + name + "'");
                }
            } else if (!source.startsWith("file:") || source.length() == 5) {
                throw new IllegalArgumentException("override must be bean:NAME (a lookup registered on the enforcer)"
                        + " or file:PATH (lines key = limit) but was '" + source + "'");
            }
            this.override = source;
            return this;
        }

        /**
         * Sets the most keys whose override is cached. Default {@value #DEFAULT_OVERRIDE_CACHE}.
         *
         * @param keys 1 to 10,000,000
         * @return this builder
         */
        public Builder overrideCache(int keys) {
            if (keys < 1 || keys > 10_000_000) {
                throw new IllegalArgumentException("override-cache must be between 1 and 10000000 but was " + keys);
            }
            this.overrideCache = keys;
            return this;
        }

        /**
         * Sets how long an override looked up is used before it is looked up again. Default 1 minute.
         *
         * @param ttl at least 1 ms
         * @return this builder
         */
        public Builder overrideTtl(Duration ttl) {
            if (Objects.requireNonNull(ttl, "ttl").compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("override-ttl must be at least 1ms but was " + ttl);
            }
            this.overrideTtl = ttl;
            return this;
        }

        /**
         * Sets the longest a request waits for an override lookup; after it the plan decides the
         * request (counted and logged), and the lookup's answer serves the next ones. Default 50 ms.
         *
         * @param timeout 0 (never wait: a key's first request is decided by its plan) to 10 s
         * @return this builder
         */
        public Builder overrideTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.compareTo(Duration.ofSeconds(10)) > 0) {
                throw new IllegalArgumentException("override-timeout must be between 0 and 10s but was " + timeout);
            }
            this.overrideTimeout = timeout;
            return this;
        }

        /**
         * Sets how a contract limit's text ({@code 50/1m}) becomes an algorithm of the plans' kind.
         * The policy language sets it; in code, give e.g. {@code t -> TokenBucket.of(Rate.parse(t))}.
         *
         * @param limits the reader, which throws {@link IllegalArgumentException} for a bad text
         * @return this builder
         */
        public Builder limits(Function<String, Algorithm<?>> limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * @return the plan table
         * @throws IllegalStateException if there is no plan, or several without a default
         * @throws IllegalArgumentException if the default is not a plan, the limited plans use
         *     algorithms of different classes, or no plan has a limit
         */
        public Plans build() {
            if (plans.isEmpty()) {
                throw new IllegalStateException("plans must name at least one plan");
            }
            if (defaultPlan == null) {
                if (plans.size() > 1) {
                    throw new IllegalStateException("default-plan must be set: the plan of requests whose plan is"
                            + " missing or unknown, one of " + plans.keySet());
                }
                defaultPlan = plans.keySet().iterator().next();
            }
            if (!plans.containsKey(defaultPlan)) {
                throw new IllegalArgumentException("default-plan must be one of the plans " + plans.keySet()
                        + " but was '" + defaultPlan + "'");
            }
            Algorithm<?> first = null;
            for (Plan p : plans.values()) {
                if (p.algorithm() == null) {
                    continue;
                }
                if (first == null) {
                    first = p.algorithm();
                } else if (first.getClass() != p.algorithm().getClass()) {
                    throw new IllegalArgumentException("every plan's limit must be of the same algorithm, but plan '"
                            + p.name() + "' is " + p.algorithm().kind() + " and another " + first.kind());
                }
            }
            if (first == null) {
                throw new IllegalArgumentException("at least one plan must have a limit, not only unlimited or blocked");
            }
            return new Plans(this);
        }
    }

    /** @return the plan names in order (for messages) */
    List<String> names() {
        List<String> out = new ArrayList<>();
        for (Plan p : plans) {
            out.add(p.name());
        }
        return Collections.unmodifiableList(out);
    }
}
