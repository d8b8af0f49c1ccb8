package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two independent stores (as two application instances would have) share one limit: under
 * concurrent load from both, with the clock frozen, exactly the limit is admitted.
 */
@ExtendWith(RedisServerExtension.class)
class TwoStoresTest {

    private static final int THREADS_PER_STORE = 4;
    private static final int ATTEMPTS = 60;

    static Stream<Algorithm<?>> algorithms() {
        return Stream.of(
                TokenBucket.builder().rate(Rate.perSecond(1)).burst(150).build(),
                Gcra.builder().rate(Rate.perSecond(1)).burst(149).build(),
                FixedWindow.of(150, Duration.ofMinutes(1)),
                FixedWindow.of(150, CalendarPeriod.of(CalendarPeriod.Unit.MONTH, ZoneId.of("Europe/Paris"))),
                FixedWindow.builder().limit(150).window(Duration.ofMinutes(1))
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                SlidingWindow.builder().limit(150).window(Duration.ofMinutes(1)).slots(6).build(),
                LeakyBucket.builder().capacity(150).rate(Rate.perSecond(1)).build(),
                SlidingLog.builder().limit(150).window(Duration.ofMinutes(1)).build(),
                ShapingLeakyBucket.builder().rate(Rate.perSecond(1)).slack(100).start(ShapingLeakyBucket.Start.EARNED)
                        .maxDelay(Duration.ofSeconds(49)).build(),
                Concurrency.of(150));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void concurrentLoadFromTwoStores_frozenClock_admitsExactlyTheLimit(Algorithm<?> algorithm,
            RedisServer redis) throws Exception {
        FakeClock frozen = new FakeClock();
        try (RedisStore a = build(redis, frozen); RedisStore b = build(redis, frozen)) {
            long admitted = hammer(a.keySpace("shared", algorithm), b.keySpace("shared", algorithm));
            assertEquals(algorithm.limit(), admitted, algorithm.toString());
        }
    }

    @Test
    void concurrentLoadFromTwoStores_redisTime_neverOverAdmits(RedisServer redis) throws Exception {
        // Redis TIME moves, so a token refills every hour: none during the test.
        Algorithm<?> algorithm = TokenBucket.builder().rate(Rate.perHour(1)).burst(150).build();
        try (RedisStore a = RedisStore.builder().uri(redis.uri()).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).build();
                RedisStore b = RedisStore.builder().uri(redis.uri())
                        .commandTimeout(Duration.ofSeconds(5)).build()) {
            long admitted = hammer(a.keySpace("shared", algorithm), b.keySpace("shared", algorithm));
            assertEquals(150, admitted);
        }
    }

    private static RedisStore build(RedisServer redis, FakeClock clock) {
        // A generous timeout: this test is about atomicity, not about failures.
        return RedisStore.builder().uri(redis.uri()).clientClock(clock)
                .commandTimeout(Duration.ofSeconds(5)).build();
    }

    /** Releases all threads of both stores together; returns the number of admissions. */
    private static long hammer(KeySpace a, KeySpace b) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        AtomicLong admitted = new AtomicLong();
        AtomicLong degraded = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2 * THREADS_PER_STORE; i++) {
            KeySpace space = i % 2 == 0 ? a : b;
            Thread t = new Thread(() -> {
                MutableDecision out = new MutableDecision();
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int n = 0; n < ATTEMPTS; n++) {
                    if (space.acquire("203.0.113.7", 1, out)) {
                        admitted.incrementAndGet();
                    }
                    if (out.degraded()) {
                        degraded.incrementAndGet();
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(0, degraded.get(), "every decision must come from Redis");
        assertTrue(2L * THREADS_PER_STORE * ATTEMPTS > 150, "the load exceeds the limit");
        return admitted.get();
    }
}
