package io.github.sluice.http;

import io.github.sluice.core.MutableDecision;

/**
 * The state of one client key under one policy, read without consuming anything
 * ({@link Enforcer#inspect(String)}): what the next request of that key would be told, as the
 * {@code RateLimit} header tells it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param policy the policy's name
 * @param algorithm the algorithm's name in the policy language, e.g. {@code token-bucket}
 * @param concurrency {@code true} for a concurrency limit: {@link #remaining} is then the permits
 *     not in flight, and {@link #inFlight()} the permits held by running requests
 * @param limit the policy's limit (permits per window, burst, or maximum in flight)
 * @param remaining the permits a request could take now, {@code 0..limit}
 * @param resetSeconds seconds, rounded up, until the quota is fully restored; {@code 0} for a
 *     fresh key and for a concurrency limit (it is restored when requests end, not with time)
 */
public record KeyState(String policy, String algorithm, boolean concurrency, long limit, long remaining,
        long resetSeconds) {

    static KeyState of(String policy, String algorithm, boolean concurrency, MutableDecision d) {
        long remaining = Math.max(0, Math.min(d.limit(), d.remaining()));
        return new KeyState(policy, algorithm, concurrency, d.limit(), remaining,
                concurrency ? 0 : RateLimitHeaders.ceilSeconds(d.resetNanos()));
    }

    /** @return for a concurrency limit, the permits held by running requests; else 0 */
    public long inFlight() {
        return concurrency ? limit - remaining : 0;
    }
}
