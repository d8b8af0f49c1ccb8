package io.github.sluice.redis;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
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
            exact.run(TokenBucket.builder().rate(Rate.of(5, Duration.ofSeconds(2))).burst(4).build(), seed);
        }
        exact.run(TokenBucket.of(Rate.perSecond(1)), 4);
        exact.maxCost(12).run(TokenBucket.builder().rate(Rate.perMinute(100)).burst(10).build(), 5);
    }

    @Test
    void gcra_matchesMemory() {
        for (long seed = 1; seed <= 3; seed++) {
            exact.run(Gcra.builder().rate(Rate.of(5, Duration.ofSeconds(2))).burst(3).build(), seed);
        }
        exact.run(Gcra.of(Rate.perSecond(1)), 4);
        exact.maxCost(12).run(Gcra.builder().rate(Rate.perMinute(60)).burst(9).build(), 5);
    }

    @Test
    void fixedWindow_epochAligned_matchesMemory() {
        for (long seed = 1; seed <= 3; seed++) {
            exact.run(FixedWindow.of(5, Duration.ofSeconds(10)), seed);
        }
        exact.maxCost(8).run(FixedWindow.of(7, Duration.ofMillis(1500)), 4);
    }

    @Test
    void fixedWindow_firstRequestAligned_matchesMemory(RedisServer redis) {
        // Limits below 16 make the in-memory cell (a power of two of nanoseconds below the limit)
        // divide a microsecond, so both sides open windows at the same instant. Each side's window
        // covers the whole cells (nanosecond cells in memory, microseconds in Redis) that reach a
        // window past any reading of its first cell, so the ends differ by less than a
        // microsecond: decisions are identical on microsecond readings, and resets agree within
        // that.
        FixedWindow.Builder b = FixedWindow.builder().alignment(FixedWindow.Alignment.FIRST_REQUEST);
        try (Differential cells = new Differential(redis, 1000)) {
            for (long seed = 1; seed <= 3; seed++) {
                cells.run(b.limit(5).window(Duration.ofSeconds(10)).build(), seed);
            }
            cells.maxCost(8).run(b.limit(15).window(Duration.ofMillis(2500)).build(), 4);
        }
    }

    @Test
    void slidingWindow_matchesMemory() {
        for (long seed = 1; seed <= 3; seed++) {
            exact.run(SlidingWindow.builder().limit(6).window(Duration.ofSeconds(10)).slots(5).build(), seed);
        }
        exact.maxCost(5).run(SlidingWindow.of(20, Duration.ofMinutes(1)), 4);
        exact.run(SlidingWindow.builder().limit(3).window(Duration.ofSeconds(4)).slots(1).build(), 5);
    }

    @Test
    void leakyBucket_matchesMemory() {
        for (long seed = 1; seed <= 3; seed++) {
            exact.run(LeakyBucket.builder().capacity(4).rate(Rate.of(5, Duration.ofSeconds(2))).build(), seed);
        }
        exact.maxCost(12).run(LeakyBucket.builder().capacity(10).rate(Rate.perMinute(100))
                .build(), 4);
    }

    @Test
    void slidingLog_matchesMemory() {
        for (long seed = 1; seed <= 3; seed++) {
            exact.run(SlidingLog.builder().limit(5).window(Duration.ofSeconds(10)).build(), seed);
        }
        exact.maxCost(9).run(SlidingLog.builder().limit(30).window(Duration.ofMillis(2500)).build(), 4);
        exact.run(SlidingLog.builder().limit(1).window(Duration.ofSeconds(1)).build(), 5);
    }

    @Test
    void shaping_matchesMemory() {
        for (long seed = 1; seed <= 3; seed++) {
            exact.run(ShapingLeakyBucket.builder().rate(Rate.of(5, Duration.ofSeconds(2))).slack(3)
                    .maxDelay(Duration.ofSeconds(1)).build(), seed);
        }
        exact.run(ShapingLeakyBucket.builder().rate(Rate.perSecond(1)).slack(0)
                .maxDelay(Duration.ZERO).build(), 4);
        exact.maxCost(6).run(ShapingLeakyBucket.builder().rate(Rate.perMinute(100)).build(), 5);
    }

    @Test
    void concurrency_matchesMemory() {
        for (long seed = 1; seed <= 3; seed++) {
            exact.run(Concurrency.of(4), seed);
        }
        exact.maxCost(6).run(Concurrency.of(10), 4);
        exact.run(Concurrency.of(1), 5);
    }
}
