package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Linearizability under a clock that moves while many threads decide on one key. Each admission is
 * recorded with the clock readings just before and just after it; the algorithm decided at some
 * instant in between. The checks count only admissions certainly inside a window, so they are
 * sound: a failure is a real over-admission.
 */
class MovingClockTest {

    private static final int THREADS = 8;
    private static final int ATTEMPTS = 20_000;
    private static final long MS = 1_000_000L;

    private record Admission(long before, long after) {
    }

    private final FakeClock clock = new FakeClock();

    @Test
    void slidingWindow_neverAdmitsMoreThanTheLimitInAnyWindowOfSlots() throws Exception {
        SlidingWindow sw = SlidingWindow.builder().limit(20).window(Duration.ofMillis(10)).slots(5).build();
        long slot = sw.slotNanos();

        List<Admission> admitted = hammer(sw, slot / 3);

        long first = Math.floorDiv(admitted.get(0).before(), slot);
        long last = Math.floorDiv(admitted.get(admitted.size() - 1).after(), slot);
        for (long end = first; end <= last; end++) {
            long from = end - sw.slots() + 1;
            long to = end;
            long inside = admitted.stream().filter(a -> Math.floorDiv(a.before(), slot) >= from
                    && Math.floorDiv(a.after(), slot) <= to).count();
            long e = end;
            assertTrue(inside <= 20, () -> inside + " admitted in the window ending with slot " + e);
        }
    }

    @Test
    void fixedWindow_neverAdmitsMoreThanTheLimitInAWindow() throws Exception {
        FixedWindow fw = FixedWindow.of(20, Duration.ofMillis(2));
        long w = fw.windowNanos();

        List<Admission> admitted = hammer(fw, w / 5);

        admitted.stream()
                .filter(a -> Math.floorDiv(a.before(), w) == Math.floorDiv(a.after(), w))
                .collect(java.util.stream.Collectors.groupingBy(a -> Math.floorDiv(a.before(), w),
                        java.util.stream.Collectors.counting()))
                .forEach((window, n) -> assertTrue(n <= 20, n + " admitted in window " + window));
    }

    @Test
    void tokenBucket_neverAdmitsMoreThanBurstPlusRefill() throws Exception {
        TokenBucket tb = TokenBucket.builder().rate(Rate.of(1, Duration.ofMillis(1))).burst(10).build();

        checkBucket(hammer(tb, MS / 2), 10, tb.intervalNanos());
    }

    @Test
    void gcra_neverAdmitsMoreThanBurstPlusRefill() throws Exception {
        Gcra gcra = Gcra.builder().rate(Rate.of(1, Duration.ofMillis(1))).burst(9).build();

        checkBucket(hammer(gcra, MS / 2), 10, gcra.emissionIntervalNanos());
    }

    /** Admissions certainly within [before of i, after of j] fit in capacity plus refill. */
    private static void checkBucket(List<Admission> admitted, long capacity, long interval) {
        for (int i = 0; i < admitted.size(); i++) {
            long from = admitted.get(i).before();
            for (int j = i; j < admitted.size() && j < i + 64; j++) {
                long to = admitted.get(j).after();
                long inside = 0;
                for (int k = i; k <= j; k++) {
                    if (admitted.get(k).before() >= from && admitted.get(k).after() <= to) {
                        inside++;
                    }
                }
                long allowed = capacity + (to - from) / interval;
                long n = inside;
                assertTrue(n <= allowed, () -> n + " admitted in " + (to - from) + " ns, at most "
                        + allowed);
            }
        }
    }

    /**
     * Eight threads released together make single-permit requests on one key through the
     * registry; each thread also moves the clock forward by up to {@code maxStep} now and then.
     */
    private List<Admission> hammer(Algorithm<?> algorithm, long maxStep) throws Exception {
        KeySpace space = ShardedRegistry.builder().clock(clock).build().keySpace("p", algorithm);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<List<Admission>>> results = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = t;
            results.add(pool.submit(() -> {
                Random random = new Random(seed);
                MutableDecision out = new MutableDecision();
                List<Admission> mine = new ArrayList<>();
                start.await();
                for (int i = 0; i < ATTEMPTS; i++) {
                    if (random.nextInt(16) == 0) {
                        clock.advanceNanos(1 + (long) (random.nextDouble() * maxStep));
                    }
                    long before = clock.nanos();
                    boolean ok = space.acquire("key", 1, out);
                    long after = clock.nanos();
                    if (ok) {
                        mine.add(new Admission(before, after));
                    }
                }
                return mine;
            }));
        }
        List<Admission> all = new ArrayList<>();
        for (Future<List<Admission>> f : results) {
            all.addAll(f.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();
        all.sort(Comparator.comparingLong(Admission::before));
        assertTrue(all.size() > 1000, "only " + all.size() + " admitted");
        return all;
    }
}
