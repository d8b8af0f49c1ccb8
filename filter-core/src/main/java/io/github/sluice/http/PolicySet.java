package io.github.sluice.http;

import java.util.List;

/**
 * Policies chosen by name rather than by path, with an optional cost: what a JAX-RS resource
 * method annotated {@code @RateLimited(value = {"a", "b"}, cost = 2)} asks for. Obtain one from
 * {@link Enforcer#select}, once, at deployment time (an unknown name fails there, not at the first
 * request), and pass it to {@link Enforcer#enforce(RequestView, PolicySet)} on each request.
 *
 * <p>A selection names policies: after {@link Enforcer#reconfigure} it applies the policies of
 * those names in force when each request starts (the enforcer refuses a new set that lacks one).
 *
 * <p>Immutable (apart from the cached policies of the set in force) and thread-safe.
 */
public final class PolicySet {

    final Enforcer enforcer;
    /**
     * The selected policies with the set's cost, and their {@code RateLimit-Policy} values, for the
     * policies in force last seen; replaced after a reconfiguration by the first request that sees
     * the new ones (two racing requests build equal groups, and either may stay).
     */
    private volatile PolicyGroup group;
    private final long cost;
    private final List<String> names;

    PolicySet(Enforcer enforcer, PolicyGroup group, List<String> names, long cost) {
        this.enforcer = enforcer;
        this.group = group;
        this.cost = cost;
        this.names = List.copyOf(names);
    }

    /** The group of this selection in {@code table}, the policies in force that a request read. */
    PolicyGroup group(Enforcer.Table table) {
        PolicyGroup g = group;
        if (g.table != table) {
            g = enforcer.group(table, names, cost, toString());
            group = g;
        }
        return g;
    }

    /** @return the selected policies' names, in selection order */
    public List<String> names() {
        return names;
    }

    /** @return the cost applied to each selected policy, or 0 for each policy's own cost */
    public long cost() {
        return cost;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PolicySet p && p.enforcer == enforcer && p.names.equals(names) && p.cost == cost;
    }

    @Override
    public int hashCode() {
        return names.hashCode() * 31 + Long.hashCode(cost);
    }

    @Override
    public String toString() {
        return "PolicySet" + names + (cost > 0 ? "{cost=" + cost + '}' : "");
    }
}
