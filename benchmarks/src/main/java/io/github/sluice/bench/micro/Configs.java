package io.github.sluice.bench.micro;

import com.google.common.util.concurrent.RateLimiter;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import java.time.Duration;

/**
 * The configurations the benchmarks use, applied identically to Sluice and to each peer:
 * {@link #OPEN} admits far more than any thread can ask for (so the allowed path stays allowed),
 * {@link #SHUT} admits one request a year (so, once drained, the denied path stays denied),
 * {@link #KEYED} keeps a key's state alive for ten seconds after each request.
 *
 * @param permits permits per {@code period}
 * @param period the refill period
 * @param burst the capacity (token and leaky buckets) or the limit per window (windows)
 */
public record Configs(long permits, Duration period, long burst) {

    /** One billion permits a second, with a burst of a billion: never exhausted by a benchmark. */
    public static final Configs OPEN = new Configs(1_000_000_000L, Duration.ofSeconds(1), 1_000_000_000L);

    /** One permit a year, burst one: denied after the first request. */
    public static final Configs SHUT = new Configs(1, Duration.ofDays(365), 1);

    /**
     * For the many-key benchmarks: a burst of a hundred million (never exhausted) refilled at one
     * permit every ten seconds, so a key that took a permit is not back to its fresh state for ten
     * seconds; the registry drops only fresh keys (losslessly, and only when it sweeps on a miss),
     * so the million keys stay put for the whole run.
     */
    public static final Configs KEYED = new Configs(1, Duration.ofSeconds(10), 100_000_000L);

    /** Sluice token bucket: rate {@code permits/period}, capacity {@code burst}. */
    public TokenBucket tokenBucket() {
        return TokenBucket.builder().rate(Rate.of(permits, period)).burst(burst).build();
    }

    /** Sluice GCRA with the same rate; redis-cell's burst is one less than the limit. */
    public Gcra gcra() {
        return Gcra.builder().rate(Rate.of(permits, period)).burst(burst - 1).build();
    }

    /** Sluice fixed window: {@code burst} per {@code period}, epoch-aligned. */
    public FixedWindow fixedWindow() {
        return FixedWindow.builder().limit(burst).window(period).build();
    }

    /**
     * Sluice sliding window with its default 10 slots. The open configuration keeps a tenth of the
     * limit, since a slot must be at least half a count unit long (see WindowWord): 100 million a
     * second is still several times what one core can ask for.
     */
    public SlidingWindow slidingWindow() {
        long limit = this == OPEN ? burst / 10 : burst;
        return SlidingWindow.builder().limit(limit).window(period).build();
    }

    /** Bucket4j with the same capacity and greedy refill. */
    public Bucket bucket4j(SynchronizationStrategy strategy) {
        return Bucket.builder().addLimit(bandwidth()).withSynchronizationStrategy(strategy).build();
    }

    /** The Bucket4j configuration, for proxy managers. */
    public BucketConfiguration bucket4jConfiguration() {
        return BucketConfiguration.builder().addLimit(bandwidth()).build();
    }

    private Bandwidth bandwidth() {
        return Bandwidth.builder().capacity(burst).refillGreedy(permits, period).build();
    }

    /** Guava's smooth bursty limiter at the same rate (it stores one second of permits). */
    public RateLimiter guava() {
        return RateLimiter.create(permits / (period.toNanos() / 1e9));
    }

    /** Resilience4j's lock-free limiter: {@code permits} per refresh period, no waiting. */
    public AtomicRateLimiter resilience4j() {
        RateLimiterConfig config = RateLimiterConfig.custom()
                .limitForPeriod((int) Math.min(Integer.MAX_VALUE, permits))
                .limitRefreshPeriod(period)
                .timeoutDuration(Duration.ZERO)
                .build();
        return new AtomicRateLimiter("bench", config);
    }
}
