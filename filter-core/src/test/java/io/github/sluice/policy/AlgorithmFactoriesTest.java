package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Every algorithm's {@code of(...)} is the policy language's shortest form of it, and equals both
 * the parsed policy's algorithm and the builder with the defaults written out.
 */
class AlgorithmFactoriesTest {

    private static Algorithm<?> parsed(String spec) {
        return Policy.parse("p = " + spec + " key=global").algorithm();
    }

    @Test
    void tokenBucket_of_isTheRatesPermitsAtOnce() {
        TokenBucket of = TokenBucket.of(Rate.perMinute(100));

        assertEquals(parsed("token-bucket 100/1m"), of);
        assertEquals(TokenBucket.builder().rate(Rate.perMinute(100)).burst(100).build(), of);
        assertEquals(100, of.burst());
    }

    @Test
    void gcra_of_isRedisCellsBurstOfThePermitsLessOne() {
        Gcra of = Gcra.of(Rate.perSecond(10));

        assertEquals(parsed("gcra 10/1s"), of);
        assertEquals(Gcra.builder().rate(Rate.perSecond(10)).burst(9).build(), of);
        assertEquals(10, of.limit());
    }

    @Test
    void leakyBucket_of_holdsTheRatesPermits() {
        LeakyBucket of = LeakyBucket.of(Rate.perSecond(2));

        assertEquals(parsed("leaky-bucket 2/1s"), of);
        assertEquals(LeakyBucket.builder().rate(Rate.perSecond(2)).capacity(2).build(), of);
    }

    @Test
    void shaping_of_hasTheDefaultSlackAndMaxDelay() {
        ShapingLeakyBucket of = ShapingLeakyBucket.of(Rate.perSecond(50));

        assertEquals(parsed("shaping 50/1s"), of);
        assertEquals(ShapingLeakyBucket.builder().rate(Rate.perSecond(50)).slack(ShapingLeakyBucket.DEFAULT_SLACK)
                .maxDelay(ShapingLeakyBucket.DEFAULT_MAX_DELAY).build(), of);
    }

    @Test
    void warmUp_of_hasTheDefaultColdFactor() {
        assertEquals(parsed("warm-up 10/1s warm-up=30s"), WarmUp.of(Rate.perSecond(10), Duration.ofSeconds(30)));
        assertEquals(parsed("warm-up 10/1s warm-up=30s cold-factor=3"),
                WarmUp.of(Rate.perSecond(10), Duration.ofSeconds(30)));
    }

    @Test
    void smoothBursty_of_storesOneSecondLikeGuavasCreate() {
        assertEquals(parsed("smooth-bursty 5/1s"), SmoothBursty.of(Rate.perSecond(5)));
        assertEquals(parsed("smooth-bursty 5/1s max-burst=1s"), SmoothBursty.of(Rate.perSecond(5)));
    }

    @Test
    void windows_of_takeALimitAndAWindow() {
        assertEquals(parsed("fixed-window 5/1m"), FixedWindow.of(5, Duration.ofMinutes(1)));
        assertEquals(parsed("sliding-window 7/1d"), SlidingWindow.of(7, Duration.ofDays(1)));
        assertEquals(parsed("sliding-log 100/1m"), SlidingLog.of(100, Duration.ofMinutes(1)));
    }

    @Test
    void concurrency_of_refusesAtOnce() {
        assertEquals(parsed("concurrency 50"), Concurrency.of(50));
        assertEquals(Concurrency.builder().maxInFlight(50).maxWait(Duration.ZERO).build(), Concurrency.of(50));
    }

    @Test
    void builderDefaults_areThePolicyLanguagesDefaults() {
        // A setting left out of the text is left unset on the builder, so that both take one default.
        assertEquals(parsed("token-bucket 3/1s"), TokenBucket.builder().rate(Rate.perSecond(3)).build());
        assertEquals(parsed("gcra 3/1s"), Gcra.builder().rate(Rate.perSecond(3)).build());
        assertEquals(parsed("leaky-bucket 3/1s"), LeakyBucket.builder().rate(Rate.perSecond(3)).build());
    }
}
