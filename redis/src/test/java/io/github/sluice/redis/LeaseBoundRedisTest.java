package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.ShareSlot;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The over-admission bound of lease mode (docs/redis.md, "Lease mode"), on one real redis-server:
 * three instances (three {@link RedisStore} objects, as three application instances hold), four
 * threads each, hammer one hot key for a second; every admission's reading of the shared clock
 * (the decision's own, {@link MutableDecision#nanos()}, on the client clock every instance sends
 * Redis, coalescing off so that it is the instant the script counted the admission at) goes to a
 * ledger, and the admissions of every window are counted.
 *
 * <ul>
 *   <li>Token bucket, GCRA, policing leaky bucket: in any window of length W, at most limit + W *
 *       rate admissions (what the meter allows), plus one share per instance with leases; none
 *       beyond it without.
 *   <li>Fixed window: a share ends with its window, so no window counts more than its limit, with
 *       leases or without.
 * </ul>
 */
@ExtendWith(RedisServerExtension.class)
class LeaseBoundRedisTest {

    private static final int INSTANCES = 3;
    private static final int THREADS = 4;
    private static final long RUN_NANOS = 1_000_000_000L;
    private static final String HOT = "203.0.113.9";

    /**
     * The token bucket: 2,000 a second (a token every 500 us), a burst of 1,000: its key lives as
     * long as the bucket takes to fill, half a second, longer than any request is delayed on its
     * way to Redis (a request that reached Redis after the key had expired would find it full at
     * its own, earlier, reading).
     */
    private static final long BURST = 1000;
    private static final long STEP_NANOS = 500_000;
    /** Leases of 10 % of the limit: 100 permits a share. */
    private static final double SHARE = 0.1;
    private static final long SHARE_PERMITS = 100;

    /**
     * The token bucket, GCRA and the policing leaky bucket, each of 2,000 a second and a limit of
     * 1,000 (a burst of 1,000; a burst of 999, whose limit is 1,000; a capacity of 1,000): in any
     * span of W, at most limit + W * rate admissions.
     */
    static Stream<Arguments> meters() {
        List<Arguments> all = new ArrayList<>();
        for (boolean leases : new boolean[] {true, false}) {
            all.add(Arguments.of("token-bucket", TokenBucket.builder().rate(Rate.perSecond(2000)).burst(BURST).build(),
                    leases));
            all.add(Arguments.of("gcra", Gcra.builder().rate(Rate.perSecond(2000)).burst(BURST - 1).build(), leases));
            all.add(Arguments.of("leaky-bucket", LeakyBucket.builder().capacity(BURST).rate(Rate.perSecond(2000))
                    .build(), leases));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}, leases {2}")
    @MethodSource("meters")
    void meter_instancesHammerOneKey_everyWindowWithinTheStatedBound(String kind, Algorithm<?> meter,
            boolean leases, RedisServer redis) throws Exception {
        assertEquals(BURST, meter.limit());
        Ledger ledger = hammer(redis, leases, Duration.ofMillis(20), "bound-" + kind, meter, Clock.system(), null);
        ledger.assertLeased(leases);

        long extra = leases ? INSTANCES * SHARE_PERMITS : 0;
        for (long w : new long[] {0, 1_000_000, 10_000_000, 50_000_000, 200_000_000, RUN_NANOS}) {
            // The stamps are the script's clock to the microsecond (cut), hence the microsecond of slack.
            long allowance = BURST + (w + 1_000) / STEP_NANOS;
            long most = ledger.mostWithin(w);
            System.out.printf("%s, leases %s: within %d ns at most %d admissions, allowance %d + %d%n", kind, leases,
                    w, most, allowance, extra);
            assertTrue(most <= allowance + extra, kind + ", leases " + leases + ": " + most + " admissions within "
                    + w + " ns, bound " + allowance + " + " + extra);
        }
    }

    @ParameterizedTest(name = "leases {0}")
    @ValueSource(booleans = {true, false})
    void fixedWindow_instancesHammerOneKey_noWindowCountsMoreThanItsLimit(boolean leases, RedisServer redis)
            throws Exception {
        // Windows of 10 s on a client clock that moves 2.5 s every 20 ms: a window's key lives at
        // least 2.5 s of real time, longer than any request is delayed on its way to Redis (one
        // that reached Redis after its window's key expired would count in that window afresh).
        long window = 10_000_000_000L;
        FakeClock clock = new FakeClock();
        FixedWindow fw = FixedWindow.of(100, Duration.ofNanos(window));
        // A maximum age longer than the window: only the window's end ends a share.
        Ledger ledger = hammer(redis, leases, Duration.ofMinutes(1), "bound-fw", fw, clock,
                () -> clock.advance(Duration.ofMillis(2500)));
        ledger.assertLeased(leases);

        long[] stamps = ledger.sorted();
        int i = 0;
        long windows = 0;
        while (i < stamps.length) {
            long w = Math.floorDiv(Math.floorDiv(stamps[i], 1000), window / 1000);
            int j = i;
            while (j < stamps.length && Math.floorDiv(Math.floorDiv(stamps[j], 1000), window / 1000) == w) {
                j++;
            }
            assertTrue(j - i <= 100, "leases " + leases + ": window " + w + " counted " + (j - i));
            windows++;
            i = j;
        }
        assertTrue(windows >= 8, "windows seen: " + windows + ", admissions " + stamps.length + " from "
                + (stamps.length == 0 ? 0 : stamps[0]) + " to " + (stamps.length == 0 ? 0 : stamps[stamps.length - 1]));
    }

    /** Every admission's reading, and how many were decided from a share. */
    private static final class Ledger {
        final long[][] perThread;
        final int[] counts;
        final AtomicLong local = new AtomicLong();
        final AtomicLong degraded = new AtomicLong();

        Ledger(int threads) {
            perThread = new long[threads][];
            counts = new int[threads];
        }

        long[] sorted() {
            int total = Arrays.stream(counts).sum();
            long[] all = new long[total];
            int at = 0;
            for (int t = 0; t < counts.length; t++) {
                System.arraycopy(perThread[t], 0, all, at, counts[t]);
                at += counts[t];
            }
            Arrays.sort(all);
            return all;
        }

        /** @return the most admissions whose readings lie within any closed span of {@code w} ns */
        long mostWithin(long w) {
            long[] s = sorted();
            long most = 0;
            for (int i = 0, j = 0; i < s.length; i++) {
                while (s[i] - s[j] > w) {
                    j++;
                }
                most = Math.max(most, i - j + 1);
            }
            return most;
        }

        void assertLeased(boolean leases) {
            long total = Arrays.stream(counts).sum();
            assertEquals(0, degraded.get(), "degraded decisions");
            assertTrue(total > 0, "admissions: " + total);
            if (leases) {
                assertTrue(local.get() * 2 > total, "decided locally: " + local.get() + " of " + total);
            } else {
                assertEquals(0, local.get(), "decided locally without leases");
            }
        }
    }

    /**
     * Runs the instances' threads for a second of real time; {@code tick}, if not null, runs every
     * 20 ms meanwhile (a fake clock's step).
     */
    private static Ledger hammer(RedisServer redis, boolean leases, Duration maxAge, String policy,
            io.github.sluice.core.Algorithm<?> algorithm, Clock clock, Runnable tick) throws Exception {
        RedisStore[] stores = new RedisStore[INSTANCES];
        try {
            for (int i = 0; i < INSTANCES; i++) {
                // Coalescing off: a batch decides at its latest member's reading, so a member's own
                // reading would not be the instant the script counted it at, which the ledger needs.
                RedisStore.Builder b = RedisStore.builder().uri(redis.uri()).name("instance-" + i).clientClock(clock)
                        .coalescing(false).commandTimeout(Duration.ofSeconds(5));
                stores[i] = (leases ? b.leases(SHARE, maxAge) : b).build();
            }
            Ledger ledger = new Ledger(INSTANCES * THREADS);
            CountDownLatch go = new CountDownLatch(1);
            AtomicBoolean stop = new AtomicBoolean();
            Thread[] threads = new Thread[INSTANCES * THREADS];
            for (int t = 0; t < threads.length; t++) {
                KeySpace space = stores[t % INSTANCES].keySpace(policy, algorithm);
                int me = t;
                threads[t] = new Thread(() -> {
                    MutableDecision out = new MutableDecision();
                    long[] stamps = new long[1024];
                    int n = 0;
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    while (!stop.get()) {
                        if (space.acquire(HOT, 1, out)) {
                            if (n == stamps.length) {
                                stamps = Arrays.copyOf(stamps, 2 * n);
                            }
                            stamps[n++] = out.nanos();
                            if (ShareSlot.local(out.receipt())) {
                                ledger.local.incrementAndGet();
                            }
                        }
                        if (out.degraded()) {
                            ledger.degraded.incrementAndGet();
                        }
                    }
                    ledger.perThread[me] = stamps;
                    ledger.counts[me] = n;
                });
                threads[t].start();
            }
            go.countDown();
            for (long slept = 0; slept < RUN_NANOS / 1_000_000; slept += 20) {
                Thread.sleep(20);
                if (tick != null) {
                    tick.run();
                }
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            return ledger;
        } finally {
            for (RedisStore s : stores) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }
}
