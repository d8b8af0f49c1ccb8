package io.github.sluice.redis;

import io.github.sluice.redis.testing.RedisServer;

/**
 * {@link DifferentialTest} with Functions off: the script called by its digest ({@code EVALSHA}),
 * as on Redis 6, on a managed Redis that refuses {@code FUNCTION LOAD}, or with {@code
 * functions(false)}, decides exactly as the in-memory algorithms too.
 */
class DifferentialEvalshaTest extends DifferentialTest {

    DifferentialEvalshaTest(RedisServer redis) {
        super(redis);
    }

    @Override
    boolean functions() {
        return false;
    }
}
