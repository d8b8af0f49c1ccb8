package io.github.sluice.http;

import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.AllowList;
import io.github.sluice.policy.Charge;
import io.github.sluice.policy.Match;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.KeySpace;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One policy as a {@link PolicyGroup} applies it: the policy, its key space, the permits a request
 * asks for, its place in the group, and the header text that never changes between requests,
 * formatted once.
 *
 * <p>Immutable apart from the cache of its last header strings; thread-safe.
 */
final class Enforcement {

    /** Where the first unmatched release of each policy is logged: the listener's default logger's name. */
    private static final Logger LOG = System.getLogger("io.github.sluice");

    final PolicyGroup group;
    final Policy policy;
    final KeySpace space;
    /** Permits per request: the policy's own cost, or a {@link PolicySet}'s override. */
    final long cost;
    /**
     * The policy's cost when it is read from each request ({@code cost=header:}, {@code body},
     * {@code bean:}), else {@code null}: {@link #cost} is then every request's cost.
     */
    final io.github.sluice.policy.RequestCost requestCost;
    /** Whether {@link #requestCost} is the body size: a cost above the limit is then 413. */
    final boolean bodyCost;
    /** The permits charged for a bad cost read from the request, or 0: such a request is refused. */
    final long fallback;
    /**
     * The largest cost a request can ever be admitted with: the algorithm's limit. A higher cost
     * is refused before the store is asked ({@link CostReader#refusal}).
     */
    final long maxCost;
    /** The index in {@link PolicyGroup#members}; a bit of the group's policy-field cache. */
    final int position;
    /** The policy's match, key and allow-list ({@code null} if empty), read once per request each. */
    final Match match;
    final KeyResolver key;
    /**
     * The key of the {@code global} resolver, which no bound on key length changes, else
     * {@code null}: such a key is neither resolved nor checked per request.
     */
    final String constantKey;
    /**
     * The refusal of the constant {@link #cost} ({@link CostReader#refusal}), when
     * {@link #requestCost} is {@code null}: computed once rather than per request.
     */
    final byte costRefusal;
    final AllowList allow;
    final boolean dryRun;
    final boolean concurrency;
    /**
     * Which admitted requests a rate policy charges; when not every one ({@link #deferred}), an
     * admission is a reservation the request holds until it ends, kept or refunded by its status.
     */
    final Charge charge;
    final boolean deferred;
    /** Whether the algorithm is adaptive: the current limit is each decision's, and drops count. */
    final boolean adaptive;
    /** The adaptive algorithm when it has partitions, else {@code null}. */
    private final AdaptiveLimit<?> partitioned;
    /** How a request's partition name is found when {@link #partitioned} is set. */
    private final KeyResolver partition;
    /** The name as an RFC 9651 sf-string, quotes included: {@code "api.pro"} for a plan's. */
    final String name;
    /** The name the client is told: the policy's, or {@code policy.plan} for a plan's limit. */
    final String label;
    /** The status of a denial: the policy's, or the blocked status for a blocked plan. */
    final int status;
    /**
     * The limit requests of this enforcement are decided by: the policy's algorithm, or the plan's
     * (or contract's) for a plan's enforcement; {@code null} for an unlimited or blocked plan. Compare
     * a request's cost with this, not with the policy's, which is the default plan's.
     */
    final io.github.sluice.core.Algorithm<?> limit;
    /** The limit's index in the store's {@link io.github.sluice.store.PlanAlgorithm}, or -1. */
    final int planIndex;
    /** A plan (or contract) whose clients the policy never refuses: such a request is not an entry. */
    final boolean unlimited;
    /** A plan (or contract) whose clients are always refused, without touching the store. */
    final boolean blocked;
    /** The plan table of a policy with plans or overrides, else {@code null}; never set on a plan's own enforcement. */
    final PlanChoice plans;
    /** This policy's member of {@code RateLimit-Policy}, e.g. {@code "per-ip";q=100;w=60}. */
    final String policyItem;
    /** The start of this policy's member of {@code RateLimit}, e.g. {@code "per-ip";r=}. */
    final String limitPrefix;
    /**
     * The enforcer's metrics, which pass each event on to its listener, or {@code null} when
     * counting is off: then {@link #told} is the listener itself. Both are the enforcer's, fixed
     * before any enforcement is built, and read here so that an event finds them in one step.
     */
    final EnforcerMetrics metrics;
    /** Who is told of this policy's events: {@link Enforcer#told()}. */
    final EnforcementListener told;
    /*
     * This policy's counters in the enforcer's metrics, found by name on the first event and
     * kept: a policy's counters are never replaced (EnforcerMetrics), and an enforcement belongs
     * to one enforcer, whose listener never changes. Written at most once by each racing thread,
     * always with the same object.
     */
    private PolicyMetrics counts;
    /* Set by the first unmatched release of this policy, which alone is logged. */
    private final AtomicBoolean unmatchedLogged = new AtomicBoolean();
    /* The header values this policy formatted last, reused while their numbers repeat. */
    private final Recent recent = new Recent();

    /**
     * @param cost a {@link PolicySet}'s cost for every request, or 0 for the policy's own (a
     *     constant, or read from each request)
     */
    Enforcement(PolicyGroup group, Policy policy, KeySpace space, long cost, int position) {
        this.group = group;
        this.policy = policy;
        this.space = space;
        this.told = group == null ? EnforcementListener.NONE : group.enforcer.told(); // null: a bare one, in tests
        this.metrics = told instanceof EnforcerMetrics m ? m : null;
        io.github.sluice.policy.RequestCost own = policy.requestCost();
        this.requestCost = cost > 0 || own.constant() ? null : own;
        this.cost = cost > 0 ? cost : policy.cost();
        this.bodyCost = requestCost != null && own.source() == io.github.sluice.policy.RequestCost.Source.BODY;
        this.fallback = requestCost == null ? 0 : own.fallback().orElse(0);
        this.maxCost = policy.algorithm().limit();
        this.position = position;
        this.match = policy.match();
        this.key = policy.key();
        this.constantKey = key == KeyResolvers.global() ? KeyResolvers.GLOBAL : null; // short, no digest: Keys.bound keeps it
        this.allow = policy.allow().isEmpty() ? null : policy.allow();
        this.dryRun = policy.dryRun();
        this.concurrency = policy.concurrency();
        this.charge = policy.charge();
        this.deferred = !charge.always();
        this.adaptive = policy.algorithm() instanceof AdaptiveLimit;
        this.partitioned = policy.partition() != null && policy.algorithm() instanceof AdaptiveLimit<?> a
                && a.partitions() > 0 ? a : null;
        this.partition = partitioned == null ? null : policy.partition();
        this.name = RateLimitHeaders.sfString(policy.name());
        this.policyItem = RateLimitHeaders.policyItem(policy);
        this.limitPrefix = name + ";r=";
        this.label = policy.name();
        this.limit = policy.algorithm();
        this.status = policy.status();
        this.planIndex = -1;
        this.unlimited = false;
        this.blocked = false;
        this.plans = policy.plans() == null ? null : new PlanChoice(this);
        this.costRefusal = CostReader.refusal(this, this.cost);
    }

    /**
     * A plan's (or a contract's) enforcement of {@code parent}'s policy: the same policy, key and
     * counters, with the plan's limit, name and status in the headers and the problem body.
     *
     * @param label the name the client is told, e.g. {@code api.pro}
     * @param limit the plan's algorithm, or {@code null} for an unlimited or blocked plan
     * @param planIndex the limit's index in the store's plan algorithm, or -1
     * @param space where the plan's requests are decided
     */
    Enforcement(Enforcement parent, String label, io.github.sluice.core.Algorithm<?> limit, int planIndex,
            KeySpace space, boolean unlimited, boolean blocked, int status, int position) {
        this.group = parent.group;
        this.policy = parent.policy;
        this.space = space;
        this.told = parent.told;
        this.metrics = parent.metrics;
        this.cost = parent.cost;
        this.requestCost = parent.requestCost;
        this.bodyCost = parent.bodyCost;
        this.fallback = parent.fallback;
        // A cost above the plan's (or contract's) own limit can never pass for this client.
        this.maxCost = limit != null ? limit.limit() : parent.maxCost;
        this.position = position; // a bit of the group's cache of RateLimit-Policy values, or -1
        this.match = parent.match;
        this.key = parent.key;
        this.constantKey = parent.constantKey;
        this.allow = parent.allow;
        this.dryRun = parent.dryRun;
        this.concurrency = parent.concurrency;
        this.charge = parent.charge;
        this.deferred = parent.deferred;
        this.adaptive = false;
        this.partitioned = null;
        this.partition = null;
        this.label = label;
        this.limit = limit;
        this.name = RateLimitHeaders.sfString(label);
        this.policyItem = RateLimitHeaders.policyItem(label, limit, concurrency);
        this.limitPrefix = name + ";r=";
        this.status = status;
        this.planIndex = planIndex;
        this.unlimited = unlimited;
        this.blocked = blocked;
        this.plans = null;
        this.costRefusal = CostReader.refusal(this, this.cost); // against the plan's own limit
    }

    /**
     * @param request the request
     * @return the request's partition of the policy's adaptive algorithm, or
     *     {@link Algorithm#NO_PARTITION} if the policy has none or the request's name is not one
     *     of them (it then only borrows)
     */
    int partitionOf(RequestView request) {
        if (planIndex >= 0) {
            return planIndex; // the plan's limit in the store's plan algorithm
        }
        if (partitioned == null) {
            return Algorithm.NO_PARTITION;
        }
        String name = partition.resolve(request);
        return name == null ? Algorithm.NO_PARTITION : partitioned.partition(name);
    }

    /**
     * @param metrics the enforcer's metrics, which its events go to
     * @return this policy's counters there
     */
    PolicyMetrics counts(EnforcerMetrics metrics) {
        PolicyMetrics c = counts;
        if (c == null) {
            c = metrics.counters(policy);
            counts = c;
        }
        return c;
    }

    /**
     * Reports a release that gave back permits the key did not hold (see
     * {@link EnforcementListener#unmatchedRelease}): to the enforcer's listener, every time (the
     * metrics count it), and to the log, the first time for this policy, at WARNING. Never throws.
     *
     * @param key the request's key (not logged: keys are personal)
     * @param permits the permits that matched nothing, {@code >= 1}
     */
    void unmatchedRelease(String key, long permits) {
        try {
            if (metrics != null) {
                metrics.unmatchedRelease(counts(metrics), policy, key, permits);
            } else {
                told.unmatchedRelease(policy, key, permits);
            }
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
        if (!unmatchedLogged.get() && unmatchedLogged.compareAndSet(false, true)) {
            try {
                LOG.log(Level.WARNING, "policy ''{0}'': a release gave back {1} permit(s) its key did not hold"
                        + " (a request released twice, or without an admission): the policy may have admitted"
                        + " more than its limit. This is a bug in the adapter or the store; please report it."
                        + " Logged once per policy; every one is counted (unmatchedReleases,"
                        + " sluice.releases.unmatched).", policy.name(), permits);
            } catch (RuntimeException ignored) {
                // A logger must not break a release.
            }
        }
    }

    /**
     * Returns this policy's member of {@code RateLimit-Policy} for a decision: the one formatted
     * once for a fixed policy; for an adaptive one, with the decision's (current) limit as
     * {@code q}, reused while it repeats.
     *
     * @param d the entry's decision
     * @return the member, e.g. {@code "api";q=42;qu="concurrent-requests"}
     */
    String policyItem(MutableDecision d) {
        if (!adaptive) {
            return policyItem;
        }
        long q = RateLimitHeaders.clamp(d.limit());
        Formatted last = recent.policy;
        if (last != null && last.a == q) {
            return last.text;
        }
        String item = name + ";q=" + q + ";qu=\"concurrent-requests\"";
        recent.policy = new Formatted(q, 0, item);
        return item;
    }

    /**
     * Returns this policy's member of {@code RateLimit} for these numbers, e.g.
     * {@code "per-ip";r=42;t=17}: the string formatted last for this policy if it carries the same
     * numbers, else a new one, which is kept for the next request.
     *
     * <p>The numbers repeat from one request to the next, whatever the key, wherever a policy is
     * not the one running out: a token bucket or GCRA key that refills faster than its client asks
     * is full at every request ({@code r = limit - cost}, the same {@code t}), and a flood on one
     * key is denied with {@code r=0} and the same {@code t} for a second at a time. Admissions and
     * denials are kept apart so that neither evicts the other. Checking costs a comparison of two
     * numbers kept beside the string; a miss that is kept allocates their holder (24 bytes) besides
     * the string, and a miss that is not kept allocates the string only.
     *
     * @param remaining the clamped {@code r}, {@code >= 0}
     * @param seconds the clamped {@code t}, {@code >= 0}; ignored for a concurrency policy
     * @param denied whether the entry denied the request
     * @param full whether an admitted entry left its key with all of its quota but this
     *     request's cost: the state that repeats. Other admissions are formatted but not kept, so
     *     that keys draining their quota, whose numbers change at every request, do not write the
     *     shared cache at every request.
     * @return the member
     */
    String limitItem(long remaining, long seconds, boolean denied, boolean full) {
        Formatted last = denied ? recent.denied : recent.admitted;
        if (last != null && last.a == remaining && (concurrency || last.b == seconds)) {
            return last.text;
        }
        String item = RateLimitHeaders.limitItem(this, remaining, seconds);
        if (denied) {
            recent.denied = new Formatted(remaining, seconds, item);
        } else if (full) {
            recent.admitted = new Formatted(remaining, seconds, item);
        }
        return item;
    }

    /**
     * @param seconds a {@code Retry-After} value, {@code >= 1}
     * @return its decimal string: the one formatted last for this policy if equal, else a new one
     */
    String retryAfter(long seconds) {
        Formatted last = recent.retryAfter;
        if (last != null && last.a == seconds) {
            return last.text;
        }
        String text = Long.toString(seconds);
        recent.retryAfter = new Formatted(seconds, 0, text);
        return text;
    }

    /**
     * A header value and the numbers it was formatted from: a reuse compares two numbers, not the
     * value's digits. Immutable: its fields are final, so a request that reads one written by
     * another thread without synchronisation sees the numbers and the text that belong together.
     */
    static final class Formatted {
        /** {@code r}, {@code Retry-After}'s seconds, or an adaptive policy's {@code q}. */
        final long a;
        /** {@code t}, or 0 where a value carries one number only. */
        final long b;
        final String text;

        Formatted(long a, long b, String text) {
            this.a = a;
            this.b = b;
            this.text = text;
        }
    }

    /*
     * The last values, written by whichever request formatted them, without synchronisation: a
     * Formatted is immutable (final fields), so a reader sees null, an older value or a newer one,
     * and checks its numbers before using its text. The strings sit in an object of their own, padded by
     * its superclasses so that no other field shares their cache line: requests on other cores
     * that only read the policy's fields are not slowed by these writes.
     */
    abstract static class PadBefore {
        long p01, p02, p03, p04, p05, p06, p07, p08;
    }

    abstract static class RecentFields extends PadBefore {
        Formatted admitted;
        Formatted denied;
        Formatted retryAfter;
        Formatted policy;
    }

    static final class Recent extends RecentFields {
        long p11, p12, p13, p14, p15, p16, p17, p18;
    }

    @Override
    public String toString() {
        return label + (requestCost != null || cost == policy.cost() ? "" : "{cost=" + cost + '}');
    }
}
