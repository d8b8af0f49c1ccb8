package io.github.sluice.redis;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Redis scripts decide exactly as the in-memory algorithms: the same random sequences,
 * compared decision by decision (see {@link Differential}).
 */
@ExtendWith(RedisServerExtension.class)
class DifferentialTest {

    private final Differential exact;

    DifferentialTest(RedisServer redis) {
        this.exact = new Differential(redis, 0);
    }

    @AfterEach
    void close() {
        exact.close();
    }

    @Test
    void tokenBucket_matchesMemory() {
        for (long seed = 1; seed <= 3; seed++) {
            exact.run(TokenBucket.of(5, Duration.ofSeconds(2), 4), seed);
        }
        exact.run(TokenBucket.of(1, Duration.ofSeconds(1), 1), 4);
        exact.maxCost(12).run(TokenBucket.of(100, Duration.ofMinutes(1), 10), 5);
    }
}
