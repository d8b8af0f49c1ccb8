package io.github.sluice.policy;

import io.github.sluice.request.RequestView;

/**
 * Computes how many permits a request takes, for policies written {@code cost=bean:<name>}:
 * registered under that name with {@code Enforcer.Builder.costFunction(name, function)} (in
 * Spring Boot, a bean of this type with that name).
 *
 * <p>The enforcer checks what it returns as it checks a cost read from a header: a value below 1
 * (zero included) is a bad cost, answered as the policy's {@code cost-default} says (a 400
 * refusal unless one is set); a value above the policy's limit refuses the request as one that
 * can never succeed; an exception it throws is a bad cost too, and never reaches the adapter.
 * See {@link RequestCost}.
 *
 * <p>Implementations must be thread-safe and fast (they run on every request the policy applies
 * to, before it is decided), and must not trust the request: it is hostile input.
 */
@FunctionalInterface
public interface CostFunction {

    /**
     * Computes the request's cost.
     *
     * @param request the request
     * @return permits, {@code >= 1} for a valid cost
     */
    long cost(RequestView request);
}
