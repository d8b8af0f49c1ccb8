package io.github.sluice.http;

import java.util.Arrays;
import java.util.List;

/**
 * Policies chosen by name rather than by path, with an optional cost: what a JAX-RS resource
 * method annotated {@code @RateLimited(value = {"a", "b"}, cost = 2)} asks for. Obtain one from
 * {@link Enforcer#select}, once, at deployment time (an unknown name fails there, not at the first
 * request), and pass it to {@link Enforcer#enforce(RequestView, PolicySet)} on each request.
 *
 * <p>Immutable and thread-safe.
 */
public final class PolicySet {

    /** The selected policies with the set's cost, and their {@code RateLimit-Policy} values. */
    final PolicyGroup group;
    private final int[] indices;
    private final long cost;
    private final List<String> names;

    PolicySet(PolicyGroup group, int[] indices, long cost, List<String> names) {
        this.group = group;
        this.indices = indices;
        this.cost = cost;
        this.names = List.copyOf(names);
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
        return o instanceof PolicySet p && Arrays.equals(p.indices, indices) && p.cost == cost;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(indices) * 31 + Long.hashCode(cost);
    }

    @Override
    public String toString() {
        return "PolicySet" + names + (cost > 0 ? "{cost=" + cost + '}' : "");
    }
}
