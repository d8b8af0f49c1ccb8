package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Plan changes under traffic, against the promise of {@link PlanAlgorithm}: while the clock stands
 * still, a key is admitted at most the largest limit of its plans, however its plan changes (a
 * downgrade-upgrade cycle through any plans resets nothing), and a key that has used nothing gets
 * its new plan's whole limit at once. Randomized (seeded) and with threads released together.
 */
class PlanModelTest {

    static List<Arguments> kinds() {
        Duration m = Duration.ofMinutes(1);
        return List.of(
                Arguments.of("fixed-window", (LongFunction<Algorithm<?>>) n -> FixedWindow.builder().limit(n).window(m).build()),
                Arguments.of("sliding-window", (LongFunction<Algorithm<?>>) n -> SlidingWindow.builder().limit(n).window(m).build()),
                Arguments.of("sliding-log", (LongFunction<Algorithm<?>>) n -> SlidingLog.builder().limit(n).window(m).build()),
                Arguments.of("token-bucket", (LongFunction<Algorithm<?>>) n -> TokenBucket.of(Rate.perMinute(n))),
                Arguments.of("gcra", (LongFunction<Algorithm<?>>) n -> Gcra.builder().rate(Rate.perMinute(n)).build()),
                Arguments.of("leaky-bucket", (LongFunction<Algorithm<?>>) n -> LeakyBucket.builder().rate(Rate.perMinute(n)).build()));
    }

    private static final long[] LIMITS = {3, 17, 40, 8};

    private static KeySpace space(FakeClock clock, LongFunction<Algorithm<?>> kind) {
        List<Algorithm<?>> plans = new ArrayList<>();
        for (long l : LIMITS) {
            plans.add(kind.apply(l));
        }
        return ShardedRegistry.builder().clock(clock).shards(2).build().keySpace("api", new PlanAlgorithm(plans, 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void randomPlanChanges_frozenClock_neverAdmitMoreThanTheLargestLimit(String name, LongFunction<Algorithm<?>> kind) {
        for (long seed = 1; seed <= 40; seed++) {
            Random random = new Random(seed);
            FakeClock clock = new FakeClock();
            KeySpace space = space(clock, kind);
            MutableDecision d = new MutableDecision();
            long admitted = 0;
            for (int i = 0; i < 300; i++) {
                int plan = random.nextInt(LIMITS.length);
                if (space.acquire("k", plan, 1, d)) {
                    admitted++;
                }
            }
            assertTrue(admitted <= 40, name + " seed " + seed + ": admitted " + admitted + " > 40");
            assertTrue(admitted >= 3, name + " seed " + seed + ": at least the smallest plan's limit");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void downgradeUpgradeCycle_findsTheQuotaSpent(String name, LongFunction<Algorithm<?>> kind) {
        FakeClock clock = new FakeClock();
        KeySpace space = space(clock, kind);
        MutableDecision d = new MutableDecision();
        int pro = 2;
        int free = 0;
        int mid = 3;
        for (int i = 0; i < 40; i++) {
            assertTrue(space.acquire("k", pro, 1, d), name + ": pro spends its 40");
        }
        assertTrue(!space.acquire("k", free, 1, d), name + ": free, below what was used");
        assertTrue(!space.acquire("k", mid, 1, d), name + ": another plan below it: the debt follows");
        assertTrue(!space.acquire("k", pro, 1, d), name + ": back to pro: nothing was reset");
        assertTrue(space.acquire("fresh", free, 1, d));
        assertTrue(space.acquire("fresh", pro, 39, d), name + ": an upgrade takes effect at once: 40 less the 1 used");
        assertTrue(!space.acquire("fresh", pro, 1, d));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void threadsSwitchingPlans_frozenClock_neverAdmitMoreThanTheLargestLimit(String name, LongFunction<Algorithm<?>> kind)
            throws InterruptedException {
        for (int round = 0; round < 5; round++) {
            FakeClock clock = new FakeClock();
            KeySpace space = space(clock, kind);
            AtomicLong admitted = new AtomicLong();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = round * 10 + t;
                Thread thread = new Thread(() -> {
                    Random random = new Random(seed);
                    MutableDecision d = new MutableDecision();
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < 200; i++) {
                        if (space.acquire("k", random.nextInt(LIMITS.length), 1, d)) {
                            admitted.incrementAndGet();
                        }
                    }
                });
                thread.start();
                threads.add(thread);
            }
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(admitted.get() <= 40, name + " round " + round + ": admitted " + admitted.get());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void planChangesOverTime_eachEpochWindowAdmitsAtMostTheLargestLimit(String name, LongFunction<Algorithm<?>> kind) {
        if (!name.equals("fixed-window")) {
            return; // the window per epoch minute is the fixed window's own promise
        }
        Random random = new Random(7);
        FakeClock clock = new FakeClock(0);
        KeySpace space = space(clock, kind);
        MutableDecision d = new MutableDecision();
        long window = Duration.ofMinutes(1).toNanos();
        long currentWindow = 0;
        long inWindow = 0;
        for (int i = 0; i < 5000; i++) {
            clock.advanceNanos(random.nextInt(50_000_000));
            long w = clock.nanos() / window;
            if (w != currentWindow) {
                currentWindow = w;
                inWindow = 0;
            }
            if (space.acquire("k", random.nextInt(LIMITS.length), 1, d)) {
                inWindow++;
            }
            assertTrue(inWindow <= 40, "window " + w + ": " + inWindow);
        }
    }

    @org.junit.jupiter.api.Test
    void concurrency_planChange_keepsPermitsInFlight_andReleasesBalance() {
        FakeClock clock = new FakeClock();
        KeySpace space = ShardedRegistry.builder().clock(clock).shards(2).build().keySpace("c",
                new PlanAlgorithm(List.of(Concurrency.of(2), Concurrency.of(5)), 0));
        MutableDecision d = new MutableDecision();
        assertTrue(space.acquire("k", 1, 1, d));
        assertTrue(space.acquire("k", 1, 1, d));
        assertTrue(space.acquire("k", 1, 1, d));
        assertTrue(!space.acquire("k", 0, 1, d), "downgrade to 2 with 3 in flight: refused");
        assertEquals(0, space.release("k", 1, MutableDecision.NO_RECEIPT, false), "released where the permits are now");
        assertEquals(0, space.release("k", 1, MutableDecision.NO_RECEIPT, false));
        assertTrue(space.acquire("k", 0, 1, d), "1 in flight of 2");
        assertTrue(!space.acquire("k", 0, 1, d));
        assertTrue(space.acquire("k", 1, 3, d), "upgrade: 2 in flight of 5, 3 more");
        assertEquals(0, space.release("k", 5, MutableDecision.NO_RECEIPT, false));
        assertEquals(1, space.release("k", 1, MutableDecision.NO_RECEIPT, false), "nothing more was held");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void withoutAPlan_newKey_peeksAndDecidesByTheDefaultPlan_andAKnownKeyByItsOwn(String name,
            LongFunction<Algorithm<?>> kind) {
        FakeClock clock = new FakeClock();
        KeySpace space = space(clock, kind);
        MutableDecision d = new MutableDecision();
        space.inspect("new", d);
        assertEquals(3, d.limit(), name + ": a key never seen reads as the default plan's");
        assertTrue(space.acquire("new", 0, d), name + ": a peek without a plan");
        assertEquals(3, d.limit());
        assertTrue(space.acquire("pro", 2, 1, d));
        assertTrue(space.acquire("pro", 0, d));
        assertEquals(40, d.limit(), name + ": a peek without a plan reads the key's plan");
        space.inspect("pro", d);
        assertEquals(40, d.limit());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void reconfiguredPlanTable_keyKeepsItsPlanAndWhatItUsed(String name, LongFunction<Algorithm<?>> kind) {
        FakeClock clock = new FakeClock();
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).shards(2).build();
        KeySpace before = registry.keySpace("api", new PlanAlgorithm(List.of(kind.apply(3), kind.apply(40)), 0));
        MutableDecision d = new MutableDecision();
        assertTrue(before.acquire("k", 1, 40, d), name + ": pro spends its 40");
        // The operator adds a plan: free and pro are unchanged.
        KeySpace after = registry.rebind(before, new PlanAlgorithm(List.of(kind.apply(3), kind.apply(40),
                kind.apply(100)), 0), Inheritance.KEEP_CONSUMED);
        assertTrue(!after.acquire("k", 1, 1, d), name + ": still on pro, its 40 spent");
        assertTrue(!after.acquire("k", 0, 1, d), name + ": on free too");
        assertTrue(!after.acquire("k", 1, 1, d), name + ": and back: nothing reset by the change");
    }
}
