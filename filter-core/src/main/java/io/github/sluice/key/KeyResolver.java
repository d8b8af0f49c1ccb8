package io.github.sluice.key;

import io.github.sluice.request.RequestView;

/**
 * Tells which client a request counts against: the key of a policy's per-client state.
 *
 * <p>Returning {@code null} means the policy does not apply to this request (for example no API
 * key header); to fall back to another identity instead, use {@link KeyResolvers#firstOf}. The
 * enforcer bounds every key's length (over-long keys are hashed, see {@link Keys}), and hashes
 * every key that starts with {@value Keys#HASH_PREFIX} so that none can pose as a digest, so
 * resolvers need not.
 *
 * <p>Implementations must be thread-safe, fast, and must not throw on any request content:
 * requests are hostile input. The built-in resolvers from {@link KeyResolvers} are values: equal
 * configurations are {@link Object#equals equal}, so a policy parsed from text equals the one
 * built in code.
 */
@FunctionalInterface
public interface KeyResolver {

    /**
     * Resolves the key of a request.
     *
     * @param request the request
     * @return the key, or {@code null} if the policy does not apply to this request
     */
    String resolve(RequestView request);
}
