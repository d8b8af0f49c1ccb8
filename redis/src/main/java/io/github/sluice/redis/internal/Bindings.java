package io.github.sluice.redis.internal;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import java.time.Duration;

/**
 * Picks the script binding for an algorithm's class. Algorithms the Redis store cannot run are
 * refused with an {@link IllegalArgumentException} that says why.
 */
public final class Bindings {

    private Bindings() {
    }

    /**
     * @param algorithm the policy's algorithm
     * @return its binding
     * @throws IllegalArgumentException if the Redis store does not support the algorithm
     */
    public static Binding of(Algorithm<?> algorithm) {
        if (algorithm instanceof TokenBucket tb) {
            return tokenBucket(tb);
        }
        throw new IllegalArgumentException("algorithm " + algorithm.kind() + " (" + algorithm
                + ") is not supported by the Redis store");
    }

    private static Binding tokenBucket(TokenBucket tb) {
        long interval = Micros.ceil("token-bucket interval", tb.intervalNanos());
        Micros.product("token-bucket burst * interval", tb.burst(), interval);
        return new Binding(tb, interval, tb.burst()) {
            @Override
            public Algorithm<?> scaled(int instances) {
                return TokenBucket.builder()
                        .rate(1, Duration.ofNanos(stretch(tb.intervalNanos(), instances)))
                        .burst(share(tb.burst(), instances)).build();
            }
        };
    }
}
