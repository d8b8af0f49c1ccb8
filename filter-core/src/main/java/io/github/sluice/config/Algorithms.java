package io.github.sluice.config;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The table from an algorithm's name in the policy language to its builder. Each entry reads its
 * positional arguments and options from {@link Args} and calls the algorithm's builder one
 * setter at a time, so that a builder's refusal names the parameter it concerns.
 */
final class Algorithms {

    private static final Map<String, Function<Args, Algorithm<?>>> TABLE = new LinkedHashMap<>();

    static {
        TABLE.put("token-bucket", Algorithms::tokenBucket);
    }

    private Algorithms() {
    }

    static Set<String> kinds() {
        return Collections.unmodifiableSet(TABLE.keySet());
    }

    static Algorithm<?> build(Line ctx, Args args) {
        Function<Args, Algorithm<?>> f = TABLE.get(args.kind);
        if (f == null) {
            throw ctx.error("algorithm", args.kind, "unknown algorithm; known algorithms: " + TABLE.keySet());
        }
        return f.apply(args);
    }

    /** {@code token-bucket 100/1m [burst=20]}: burst defaults to the rate's permits. */
    private static Algorithm<?> tokenBucket(Args a) {
        Line ctx = a.ctx;
        TokenBucket.Builder b = TokenBucket.builder();
        Args.Rate rate = a.rate("rate");
        ctx.call("rate", rate.text(), () -> b.rate(rate.permits(), rate.period()));
        String burst = a.option("burst");
        long n = burst == null ? rate.permits() : a.longValue("burst", burst);
        ctx.call("burst", burst == null ? rate.text() : burst, () -> b.burst(n));
        return ctx.call("rate", rate.text(), b::build);
    }
}
