package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.policy.Policy;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Counting by outcome on Redis, two instances sharing it: many threads released together on a
 * frozen client clock, each request ending with 401 or 200. Never more counted outcomes than the
 * limit, and the shared state ends exactly at the limit less what was counted: every refund by
 * receipt landed once, from whichever instance.
 */
@ExtendWith(RedisServerExtension.class)
class OutcomeCountingRedisTest {

    private static final int THREADS = 8;
    private static final int LIMIT = 20;

    private final FakeClock clock = new FakeClock();
    private RedisStore one;
    private RedisStore two;

    @BeforeEach
    void open(RedisServer redis) {
        one = store(redis, 0);
        two = store(redis, 0);
    }

    private RedisStore store(RedisServer redis, int denialCache) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(denialCache)
                .commandTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void close() {
        one.close();
        two.close();
    }

    private static Enforcer enforcer(RedisStore store, String line) {
        return Enforcer.builder().store(store).listener(EnforcementListener.NONE).policy(Policy.parse(line)).build();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "fixed-window 20/1h", "sliding-window 20/1h", "sliding-log 20/1h", "token-bucket 20/1h",
        "gcra 20/1h", "leaky-bucket 20/1h",
    })
    void twoInstances_manyThreads_neverCountMoreThanTheLimit(String algorithm) throws Exception {
        String line = "login = " + algorithm + " key=ip count=401";
        Enforcer[] instances = {enforcer(one, line), enforcer(two, line)};
        AtomicInteger counted = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        run(t -> {
            Enforcer e = instances[t % 2];
            SplittableRandom random = new SplittableRandom(t);
            FakeRequest r = FakeRequest.get("/login").peer("192.0.2.1");
            return () -> {
                ArrayDeque<Verdict> open = new ArrayDeque<>();
                for (int i = 0; i < 60; i++) {
                    Verdict v = e.enforce(r);
                    if (v.admitted()) {
                        admitted.incrementAndGet();
                        open.add(v);
                    }
                    while (open.size() > random.nextInt(3)) {
                        end(open.poll(), random, counted);
                    }
                }
                while (!open.isEmpty()) {
                    end(open.poll(), random, counted);
                }
            };
        });
        assertTrue(counted.get() <= LIMIT, algorithm + ": counted " + counted.get());
        assertTrue(admitted.get() > LIMIT, algorithm + ": right passwords were refunded, so more passed: "
                + admitted.get());
        // The refunds are sent without waiting: each instance's arrive in order before its next call.
        long expected = LIMIT - counted.get();
        Load.await("the refunds", 5_000, () -> instances[0].inspect("192.0.2.1", "login").remaining() == expected
                && instances[1].inspect("192.0.2.1", "login").remaining() == expected);
    }

    @Test
    void refund_forgetsThisInstancesCachedDenial(RedisServer redis) {
        // Given an instance with a denial cache and a quota of one, held by a request in flight
        try (RedisStore cached = store(redis, 64)) {
            Enforcer e = enforcer(cached, "login = fixed-window 1/1h key=ip count=401");
            FakeRequest r = FakeRequest.get("/login").peer("192.0.2.7");
            Verdict running = e.enforce(r);
            assertTrue(running.admitted());
            assertTrue(e.enforce(r).denied(), "refused, and cached, while the reservation runs");

            // When it ends with a right password
            running.release(200);

            // Then the next request is not answered from the cached denial: the quota is whole
            Load.await("the refund", 5_000, () -> e.inspect("192.0.2.7", "login").remaining() == 1);
            Verdict next = e.enforce(r);
            assertTrue(next.admitted(), next.toString());
            next.release(401);
            assertTrue(e.enforce(r).denied());
        }
    }

    private static void end(Verdict v, SplittableRandom random, AtomicInteger counted) {
        if (random.nextInt(3) == 0) {
            counted.incrementAndGet();
            v.release(401);
        } else {
            v.release(200);
        }
    }

    interface Body {
        Runnable forThread(int t);
    }

    private static void run(Body body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch ready = new CountDownLatch(THREADS);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Runnable r = body.forThread(t);
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    r.run();
                    return null;
                }));
            }
            assertTrue(ready.await(10, TimeUnit.SECONDS));
            go.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
