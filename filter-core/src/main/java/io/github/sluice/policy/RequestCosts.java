package io.github.sluice.policy;

/**
 * The policy language's {@code cost=} forms that read the request ({@code header:}, {@code body},
 * {@code bean:}) and their {@code cost-default=}: see {@link RequestCost}. Stateless.
 */
final class RequestCosts {

    private RequestCosts() {
    }

    /** Parses a cost that starts with a letter, with its {@code cost-default}, into {@code b}. */
    static void parse(Line ctx, Args args, String cost, long limit, Policy.Builder b) {
        RequestCost c = ctx.call("cost", cost, () -> RequestCost.parse(cost));
        String fallback = args.option("cost-default");
        if (fallback == null) {
            b.cost(c);
            return;
        }
        long d = args.longValue("cost-default", fallback, limit, "at most the limit, " + limit);
        b.cost(ctx.call("cost-default", fallback, () -> c.orElse(d)));
    }

    /** Refuses a {@code cost-default} without a cost read from the request: it would never apply. */
    static void requireDefaultUsed(Line ctx, Args args, String cost) {
        String fallback = args.peek("cost-default");
        if (fallback != null && (cost == null || cost.isEmpty() || !Character.isLetter(cost.charAt(0)))) {
            throw ctx.error("cost-default", fallback, "cost-default applies to a cost read from the request"
                    + " (cost=header:<name>, cost=body, cost=bean:<name>), but the cost is "
                    + (cost == null ? "the default 1" : "the constant " + cost) + ", which is never bad");
        }
    }
}
