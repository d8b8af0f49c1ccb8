package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.limiter.ConcurrencyLimiter;
import io.github.sluice.limiter.Limiter;
import io.github.sluice.limiter.TokenBucketLimiter;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many threads released together on one key under a frozen clock: exactly the limit is admitted,
 * never more, for every algorithm, directly and through the registry.
 */
class ConcurrentAdmissionTest {

    private static final int THREADS = 8;
    private static final int ATTEMPTS = 600;
    private static final int LIMIT = 1000;

    private final FakeClock clock = new FakeClock();

    static Stream<Arguments> algorithms() {
        return Stream.of(
                Arguments.of(TokenBucket.builder().rate(Rate.perHour(1)).burst(LIMIT).build()),
                Arguments.of(Gcra.builder().rate(Rate.perHour(1)).burst(LIMIT - 1).build()),
                Arguments.of(FixedWindow.of(LIMIT, Duration.ofHours(1))),
                Arguments.of(FixedWindow.builder().limit(LIMIT).window(Duration.ofHours(1))
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build()),
                Arguments.of(SlidingWindow.of(LIMIT, Duration.ofHours(1))),
                Arguments.of(Concurrency.of(LIMIT)));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void manyThreads_oneKeyDirectly_admitExactlyTheLimit(Algorithm<?> algorithm) throws Exception {
        // Given a standalone limiter of 1000 and 8 threads released together, 4800 attempts
        Limiter<?> limiter = Limiter.of(algorithm, clock);

        // When they all try at the same frozen instant
        int admitted = race(() -> limiter.tryAcquire(1));

        // Then exactly the limit is admitted
        assertEquals(LIMIT, admitted);
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void manyThreads_oneKeyThroughTheRegistry_admitExactlyTheLimit(Algorithm<?> algorithm)
            throws Exception {
        KeySpace space = ShardedRegistry.builder().clock(clock).build().keySpace("p", algorithm);
        ThreadLocal<MutableDecision> out = ThreadLocal.withInitial(MutableDecision::new);

        int admitted = race(() -> space.acquire("key", 1, out.get()));

        assertEquals(LIMIT, admitted);
    }

    @Test
    void manyThreads_tokenBucketLimiter_admitExactlyTheBurst() throws Exception {
        TokenBucketLimiter limiter = TokenBucketLimiter.of(
                TokenBucket.builder().rate(Rate.perHour(1)).burst(LIMIT).build(), clock);

        assertEquals(LIMIT, race(limiter::allow));
    }

    @Test
    void manyThreads_tokenBucketLimiter_runtimeChangesNeitherCreateNorLoseTokens() throws Exception {
        // Given a full bucket of 1000 and a thread that keeps changing the rate and raising the
        // burst while the others take tokens, at a frozen instant (so no token is earned)
        TokenBucketLimiter limiter = TokenBucketLimiter.of(
                TokenBucket.builder().rate(Rate.perHour(1)).burst(LIMIT).build(), clock);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService changer = Executors.newSingleThreadExecutor();
        Future<?> changes = changer.submit(() -> {
            long burst = LIMIT;
            for (int i = 0; !done.get(); i++) {
                limiter.setRate(Rate.perHour(i % 2 == 0 ? 7 : 1));
                limiter.setBurst(++burst);
            }
        });

        int admitted = race(limiter::allow);
        done.set(true);
        changes.get(30, TimeUnit.SECONDS);
        changer.shutdown();

        // Then exactly the tokens that were there are taken: a change is atomic with acquisitions
        assertEquals(LIMIT, admitted);
    }

    @Test
    void manyThreads_concurrencyLimiter_grantExactlyTheMax() throws Exception {
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(LIMIT);

        assertEquals(LIMIT, race(() -> limiter.tryAcquire().granted()));
        assertEquals(LIMIT, limiter.inFlight());
    }

    /** Runs {@value #ATTEMPTS} attempts on each of {@value #THREADS} threads started together. */
    private static int race(BooleanSupplier attempt) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    int admitted = 0;
                    for (int i = 0; i < ATTEMPTS; i++) {
                        if (attempt.getAsBoolean()) {
                            admitted++;
                        }
                    }
                    return admitted;
                }));
            }
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(60, TimeUnit.SECONDS);
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The end of a concurrent request, or the refund of a rate limit's admission. */
    private static void giveBack(KeySpace space, String key, MutableDecision admission) {
        if (space.algorithm().concurrency()) {
            space.release(key, 1);
        } else {
            space.refund(key, 1, admission);
        }
    }

    static Stream<Arguments> refundable() {
        return Stream.of(
                Arguments.of(TokenBucket.builder().rate(Rate.perHour(1)).burst(3).build()),
                Arguments.of(Gcra.builder().rate(Rate.perHour(1)).burst(2).build()),
                Arguments.of(FixedWindow.of(3, Duration.ofHours(1))),
                Arguments.of(FixedWindow.builder().limit(3).window(Duration.ofHours(1))
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build()),
                Arguments.of(SlidingWindow.of(3, Duration.ofHours(1))),
                Arguments.of(Concurrency.of(3)));
    }

    @ParameterizedTest
    @MethodSource("refundable")
    void retireRace_acquiringWhileAnotherThreadSweeps_neverLosesAnAdmission(Algorithm<?> algorithm)
            throws Exception {
        // Given 64 keys of limit 3, threads that take permits and give them back later (so that
        // keys keep turning fresh), and a thread that drops fresh keys all the time
        int keys = 64;
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).shards(4).build();
        KeySpace space = registry.keySpace("p", algorithm);
        AtomicIntegerArray held = new AtomicIntegerArray(keys);
        AtomicBoolean overAdmitted = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService sweeper = Executors.newSingleThreadExecutor();
        AtomicInteger swept = new AtomicInteger();
        Future<?> sweeping = sweeper.submit(() -> {
            while (!done.get()) {
                swept.addAndGet(registry.sweep(8));
            }
        });

        // When they race for 20,000 operations each, and on until 500 keys were dropped
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = t;
            workers.add(pool.submit((Callable<Void>) () -> {
                Random random = new Random(seed);
                List<Integer> mine = new ArrayList<>();
                List<MutableDecision> admissions = new ArrayList<>();
                start.await();
                for (int i = 0; i < 20_000 || swept.get() < 500 && i < 5_000_000; i++) {
                    if (mine.isEmpty() || random.nextBoolean()) {
                        int k = random.nextInt(keys);
                        MutableDecision out = new MutableDecision();
                        if (space.acquire("k" + k, 1, out)) {
                            // Counted after admission and before release: never above the truth.
                            if (held.incrementAndGet(k) > 3) {
                                overAdmitted.set(true);
                            }
                            mine.add(k);
                            admissions.add(out);
                        }
                    } else {
                        int j = random.nextInt(mine.size());
                        int k = mine.remove(j);
                        held.decrementAndGet(k);
                        giveBack(space, "k" + k, admissions.remove(j));
                    }
                }
                for (int j = 0; j < mine.size(); j++) {
                    held.decrementAndGet(mine.get(j));
                    giveBack(space, "k" + mine.get(j), admissions.get(j));
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        done.set(true);
        sweeping.get(30, TimeUnit.SECONDS);
        pool.shutdown();
        sweeper.shutdown();

        // Then no key ever had more than its limit in use, every key is whole again once all was
        // given back (no admission lost to a key dropped while in use), and keys were dropped
        assertTrue(!overAdmitted.get(), "a key admitted more than its limit");
        MutableDecision out = new MutableDecision();
        for (int k = 0; k < keys; k++) {
            space.acquire("k" + k, 0, out);
            assertEquals(3, out.remaining(), "key " + k);
        }
        assertTrue(swept.get() >= 500, "the sweeper dropped only " + swept.get() + " keys");
    }
}
