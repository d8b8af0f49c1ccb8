package io.github.sluice.http;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.policy.Plans;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.PlanAlgorithm;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How one policy with plans is applied to a request: which plan's (or contract's) enforcement
 * decides it. Each plan has an {@link Enforcement} of its own, made once, with the plan's limit
 * and name ({@code "api.pro"}) in the headers and the plan's partition of the store's
 * {@link PlanAlgorithm}; contracts found by the override lookup get one per distinct limit
 * ({@code "api.override"}), made when first seen.
 *
 * <p>The request path resolves the plan name (a resolver call), compares it with the plans' names,
 * and, with overrides, reads the lookup cache: no lock, no allocation once the key's override is
 * cached. A name that is not one of the plans, or none, is the default plan.
 *
 * <p>Thread-safe.
 */
final class PlanChoice {

    private final Enforcement parent;
    private final KeyResolver resolver;
    private final String[] names;
    private final Enforcement[] byPlan;
    private final Enforcement fallback;
    private final PlanAlgorithm algorithm;
    private final Plans plans;
    /** Contracts' enforcements by the limit as written; bounded by {@link PlanAlgorithm#MAX_LIMITS}. */
    private final ConcurrentHashMap<String, Enforcement> contracts = new ConcurrentHashMap<>();
    /** The lookup cache, or {@code null} without {@code override=}. */
    final Overrides overrides;

    PlanChoice(Enforcement parent) {
        this.parent = parent;
        this.plans = parent.policy.plans();
        this.resolver = plans.resolver();
        if (parent.space == null) {
            this.algorithm = null; // a check of the policies before they are bound: never decides
        } else if (parent.space.algorithm() instanceof PlanAlgorithm a) {
            this.algorithm = a;
        } else {
            throw new IllegalArgumentException("policy '" + parent.policy.name() + "' has plans, but its store keeps"
                    + " " + parent.space.algorithm() + " for it; this store does not support plans");
        }
        List<Plans.Plan> list = plans.plans();
        this.names = new String[list.size()];
        this.byPlan = new Enforcement[list.size()];
        int limited = 0;
        boolean single = resolver == null;
        for (int i = 0; i < list.size(); i++) {
            Plans.Plan p = list.get(i);
            names[i] = p.name().intern();
            String label = single ? parent.policy.name() : parent.policy.name() + "." + p.name();
            int index = p.type() == Plans.Type.LIMITED ? limited++ : -1;
            byPlan[i] = child(label, p, index);
        }
        this.fallback = byPlan[plans.defaultIndex()];
        this.overrides = plans.override() == null || algorithm == null ? null
                : new Overrides(this, parent.group.enforcer, parent.policy);
    }

    private Enforcement child(String label, Plans.Plan p, int index) {
        return child(label, p, index, parent.group.claimSlot());
    }

    private Enforcement child(String label, Plans.Plan p, int index, int position) {
        return switch (p.type()) {
            case LIMITED -> new Enforcement(parent, label, p.algorithm(), index, parent.space, false, false,
                    parent.policy.status(), position);
            case UNLIMITED -> new Enforcement(parent, label, null, -1, parent.space, true, false,
                    parent.policy.status(), position);
            case BLOCKED -> new Enforcement(parent, label, null, -1, new Blocked(parent.space), false, true,
                    plans.blockedStatus(), position);
        };
    }

    /**
     * The plan's enforcement of a request that has no contract (the enforcer asks
     * {@link #overrides} first, if any).
     *
     * @param request the request
     * @return the enforcement of its plan, or of the default plan
     */
    Enforcement plan(RequestView request) {
        if (resolver == null) {
            return fallback;
        }
        String name = resolver.resolve(request);
        if (name != null) {
            // The names are interned: a resolver that returns a constant (a literal, an enum's
            // name) matches by identity, without comparing characters.
            for (int i = 0; i < names.length; i++) {
                if (names[i] == name) {
                    return byPlan[i];
                }
            }
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(name)) {
                    return byPlan[i];
                }
            }
        }
        return fallback;
    }

    /**
     * The enforcement of a contract limit as written, made the first time it is seen.
     *
     * @param limit the limit, e.g. {@code 50/1m}
     * @return its enforcement
     * @throws IllegalArgumentException if the text is not a limit of the policy's algorithm, or the
     *     policy holds {@link PlanAlgorithm#MAX_LIMITS} distinct limits already
     */
    Enforcement contract(String limit) {
        Enforcement e = contracts.get(limit);
        if (e != null) {
            return e;
        }
        Plans.Plan p = plans.limit(limit);
        if (p.type() == Plans.Type.LIMITED && p.algorithm().limit() < parent.cost) {
            throw new IllegalArgumentException("limit " + limit + " is below the policy's cost " + parent.cost);
        }
        int index = p.type() == Plans.Type.LIMITED ? algorithm.add(p.algorithm()) : -1;
        if (p.type() == Plans.Type.LIMITED && index < 0) {
            throw new IllegalArgumentException("policy '" + parent.policy.name() + "' holds "
                    + PlanAlgorithm.MAX_LIMITS + " distinct limits already");
        }
        Enforcement made = child(parent.policy.name() + ".override", p, index, -1); // made at run time: no bit
        Enforcement raced = contracts.putIfAbsent(limit, made);
        return raced != null ? raced : made;
    }

    /** The key space of a blocked plan: refuses every request, holds nothing, never touches the store. */
    private static final class Blocked implements KeySpace {
        private final KeySpace of;

        Blocked(KeySpace of) {
            this.of = of;
        }

        @Override
        public String name() {
            return of.name();
        }

        @Override
        public Algorithm<?> algorithm() {
            return of.algorithm();
        }

        @Override
        public boolean acquire(String key, long cost, MutableDecision out) {
            out.deny(0, 0, 0, Decision.NEVER);
            return false;
        }

        @Override
        public void release(String key, long cost) {
            // nothing was taken
        }

        @Override
        public void refund(String key, long cost, MutableDecision admission) {
            // nothing was taken
        }

        @Override
        public void inspect(String key, MutableDecision out) {
            out.deny(0, 0, 0, Decision.NEVER);
        }

        @Override
        public long size() {
            return 0;
        }
    }
}
