package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.core.Algorithm;
import java.time.Duration;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Redis scripts decide exactly as the in-memory algorithms: the same random sequences,
 * compared decision by decision (see {@link Differential}). Here through the function library
 * ({@code FCALL}, the default on Redis 7); {@link DifferentialEvalshaTest} runs the same through
 * {@code EVALSHA}.
 */
@ExtendWith(RedisServerExtension.class)
class DifferentialTest {

    private final RedisServer redis;
    private boolean functions;
    private Differential exact;

    DifferentialTest(RedisServer redis) {
        this.redis = redis;
    }

    /** @return whether the store may call the function library (else by {@code EVALSHA} only) */
    boolean functions() {
        return true;
    }

    /** After the extension has emptied the server (its functions included). */
    @BeforeEach
    void open() {
        functions = functions();
        exact = new Differential(redis, 0, functions);
    }

    @AfterEach
    void close() {
        exact.close();
        // Every decision went the way this class compares: by function, or by digest only
        if (functions) {
            assertTrue(redis.calls("fcall") > 0, "no FCALL");
            assertEquals(0, redis.calls("evalsha"), "EVALSHA calls");
        } else {
            assertTrue(redis.calls("evalsha") > 0, "no EVALSHA");
            assertEquals(0, redis.calls("fcall"), "FCALL calls");
        }
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

    /**
     * Rates the in-memory algorithms schedule exactly whose interval is not a whole number of
     * microseconds: reduced denominators N = 7, 3 and 13 ({@code 7/1m}, {@code 3/10s},
     * {@code 13/1h}), a whole-nanosecond interval that is not whole microseconds (1.5000005 s),
     * and a denominator above 1024 ({@code 1031/1h}), which memory rounds up to the nanosecond.
     * Intervals are seconds long: Redis expires keys on its own clock, and a window must outlast
     * the run's wall-clock time, or a key would expire under the fake clock's feet.
     */
    private static final Rate[] FRACTIONAL = {Rate.of(7, Duration.ofMinutes(1)), Rate.of(3, Duration.ofSeconds(10)),
        Rate.of(13, Duration.ofHours(1)), Rate.every(Duration.ofNanos(1_500_000_500L)), Rate.of(1031, Duration.ofHours(1))};

    /**
     * Runs every fractional rate at several sizes (1, 2 and 5 permits in the window, or the
     * window plus one for GCRA) on three keys with refunds, the clock stepping up to two windows,
     * keys kept past their TTL (see {@link Differential#persistKeys}).
     */
    private void fractional(BiFunction<Rate, Long, Algorithm<?>> build, long seed) {
        for (Rate rate : FRACTIONAL) {
            for (long size : new long[] {1, 2, 5}) {
                Algorithm<?> algorithm = build.apply(rate, size);
                exact.persistKeys(true).keys(3).maxCost(3).maxStep(Math.max(2, algorithm.windowNanos() / 1000 * 2))
                        .run(algorithm, seed++);
            }
        }
    }

    @Test
    void tokenBucket_fractionalRates_decideAsMemoryOnItsExactSchedule() {
        fractional((rate, burst) -> TokenBucket.builder().rate(rate).burst(burst).build(), 100);
    }

    @Test
    void gcra_fractionalRates_decideAsMemoryOnItsExactSchedule() {
        fractional((rate, burst) -> Gcra.builder().rate(rate).burst(burst - 1).build(), 200);
    }

    @Test
    void leakyBucket_fractionalRates_decideAsMemoryOnItsExactSchedule() {
        fractional((rate, capacity) -> LeakyBucket.builder().rate(rate).capacity(capacity).build(), 300);
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
        try (Differential cells = new Differential(redis, 1000, functions)) {
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
    void shaping_bothStartsAndSlacks_matchMemory() {
        // uber-go's start (a new key has no slack) and the earned one, each with and without slack
        long seed = 10;
        for (ShapingLeakyBucket.Start start : ShapingLeakyBucket.Start.values()) {
            for (long slack : new long[] {0, 1, 4}) {
                for (int keys : new int[] {1, 3}) {
                    exact.keys(keys).maxCost(3).run(ShapingLeakyBucket.builder().rate(Rate.of(5, Duration.ofSeconds(2)))
                            .slack(slack).start(start).maxDelay(Duration.ofMillis(1500)).build(), seed++);
                }
            }
        }
    }

    @Test
    void smoothBursty_matchesMemory() {
        // One key and long steps: stored permits fill up to the max burst and are spent
        for (long seed = 1; seed <= 3; seed++) {
            exact.keys(1).run(SmoothBursty.builder().rate(Rate.of(5, Duration.ofSeconds(2)))
                    .maxBurst(Duration.ofSeconds(3)).build(), seed);
        }
        exact.keys(1).maxCost(7).run(SmoothBursty.of(Rate.perSecond(4)), 4);
        exact.keys(1).run(SmoothBursty.builder().rate(Rate.perSecond(2)).maxBurst(Duration.ZERO).build(), 5);
        // Three keys and short steps: no key idles into a full burst, which the in-memory
        // registry may then drop (it comes back new, as an expired Redis key does, at another time)
        for (long seed = 6; seed <= 8; seed++) {
            exact.keys(3).maxStep(200_000).run(SmoothBursty.builder().rate(Rate.of(5, Duration.ofSeconds(2)))
                    .maxBurst(Duration.ofSeconds(60)).build(), seed);
        }
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
