package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.ReadingInvariants.Admission;
import io.github.sluice.testing.ReadingInvariants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The attack of issue 12 on the real clock: threads racing on one key (more threads than the two
 * cores, so that some hold a stale clock reading when they are descheduled), short windows of
 * 10 ms, a first policy that admits and a second that refuses most requests, so that most of the
 * first policy's permits are refunded. The admissions that stay (both policies admitted) are
 * stamped with the clock reading the first policy decided at, and each algorithm's guarantee is
 * checked on those readings, exactly: no window, interval or spacing ever holds more than the
 * limit, however refunds and stale readings interleave.
 */
class RefundRaceTest {

    private static final int THREADS = 8;
    private static final long RUN_NANOS = 150_000_000L;
    private static final Duration WINDOW = Duration.ofMillis(10);
    private static final long W = WINDOW.toNanos();

    /** The system clock, remembering per thread the first reading since {@link #mark()}. */
    private static final class FirstReading implements Clock {
        private final ThreadLocal<long[]> first = ThreadLocal.withInitial(() -> new long[] {0, 0});

        void mark() {
            first.get()[1] = 0;
        }

        long first() {
            return first.get()[0];
        }

        @Override
        public long nanos() {
            long now = Clock.system().nanos();
            long[] f = first.get();
            if (f[1] == 0) {
                f[0] = now;
                f[1] = 1;
            }
            return now;
        }
    }

    /** The second policy: refuses three requests in four, at random; holds nothing. */
    private static final class Refuser extends Algorithm<Cell> {
        @Override
        public String kind() {
            return "refuser";
        }

        @Override
        public long limit() {
            return 1;
        }

        @Override
        public long windowNanos() {
            return 1;
        }

        @Override
        public Cell newCell(long now) {
            return new Cell(0);
        }

        @Override
        public int acquire(Cell cell, long now, long cost, MutableDecision out) {
            if (cost > 0 && ThreadLocalRandom.current().nextInt(4) != 0) {
                out.deny(1, 0, 1, 1);
                return DENIED;
            }
            out.allow(1, 1, 0);
            return ADMITTED;
        }

        @Override
        public void refund(Cell cell, long cost, long receipt, Clock clock) {
        }

        @Override
        public boolean isFresh(Cell cell, long now) {
            return false;
        }

        @Override
        public boolean retireIfFresh(Cell cell, long now) {
            return false;
        }

        @Override
        public long bytesPerKey() {
            return objectBytes(1, 1, 0);
        }
    }

    /**
     * Races for {@link #RUN_NANOS} and returns the admissions that stayed, stamped with the first
     * policy's reading; {@code held} runs for each of them before its concurrency permits, if any,
     * are released.
     */
    private static List<Admission> race(Algorithm<?> algorithm, Consumer<Boolean> held)
            throws Exception {
        FirstReading clock = new FirstReading();
        ShardedRegistry first = ShardedRegistry.builder().clock(clock).build();
        KeySpace tested = first.keySpace("tested", algorithm);
        KeySpace refusing = ShardedRegistry.builder().build().keySpace("refusing", new Refuser());
        AtomicInteger refunded = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<List<Admission>>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(pool.submit(() -> {
                    MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
                    Claim claims = Claim.of(tested, "one-key", 1, out[0],
                            Claim.of(refusing, "one-key", 1, out[1], null));
                    List<Admission> mine = new ArrayList<>();
                    start.await(10, TimeUnit.SECONDS);
                    long end = System.nanoTime() + RUN_NANOS;
                    while (System.nanoTime() < end) {
                        clock.mark();
                        boolean admitted = first.acquireAll(claims);
                        if (admitted) {
                            mine.add(new Admission(clock.first(), 1, out[0].receipt()));
                            held.accept(Boolean.TRUE);
                            if (algorithm.concurrency()) {
                                held.accept(Boolean.FALSE);
                                tested.release("one-key", 1);
                            }
                        } else if (out[0].allowed()) {
                            refunded.incrementAndGet();
                        }
                    }
                    return mine;
                }));
            }
            List<Admission> all = new ArrayList<>();
            for (Future<List<Admission>> f : futures) {
                all.addAll(f.get(60, TimeUnit.SECONDS));
            }
            assertTrue(refunded.get() > 0, "no permit of the first policy was ever refunded");
            assertTrue(!all.isEmpty(), "nothing was admitted");
            return all;
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<Admission> race(Algorithm<?> algorithm) throws Exception {
        return race(algorithm, h -> { });
    }

    @Test
    void tokenBucket_refundsUnderRace_neverExceedBurstPlusRefill() throws Exception {
        TokenBucket a = TokenBucket.of(Rate.of(5, WINDOW));
        ReadingInvariants.instants(race(a), a.intervalNanos(), a.windowNanos());
    }

    @Test
    void gcra_refundsUnderRace_neverExceedTolerancePlusRefill() throws Exception {
        Gcra a = Gcra.of(Rate.of(5, WINDOW));
        ReadingInvariants.instants(race(a), a.emissionIntervalNanos(), a.toleranceNanos());
    }

    @Test
    void leakyBucket_refundsUnderRace_neverOverflow() throws Exception {
        LeakyBucket a = LeakyBucket.builder().capacity(5).rate(Rate.of(5, WINDOW)).build();
        ReadingInvariants.instants(race(a), a.intervalNanos(), a.windowNanos());
    }

    @Test
    void shaping_refundsUnderRace_neverScheduleCloserThanTheRate() throws Exception {
        ShapingLeakyBucket a = ShapingLeakyBucket.builder().rate(Rate.of(5, WINDOW)).slack(2)
                .maxDelay(Duration.ofMillis(4)).build();
        long iv = a.intervalNanos();
        ReadingInvariants.instants(race(a), iv, a.slack() * iv + a.maxDelayNanos() + iv);
    }

    @Test
    void fixedWindowEpoch_refundsUnderRace_neverExceedTheLimitPerWindow() throws Exception {
        ReadingInvariants.epochWindows(race(FixedWindow.of(5, WINDOW)), 5, W);
    }

    @Test
    void fixedWindowFirstRequest_refundsUnderRace_neverExceedTheLimitPerWindow() throws Exception {
        FixedWindow a = FixedWindow.builder().limit(5).window(WINDOW)
                .alignment(FixedWindow.Alignment.FIRST_REQUEST).build();
        ReadingInvariants.firstRequestWindows(race(a), 5, W, a.startRoundingNanos());
    }

    @Test
    void slidingWindow_refundsUnderRace_neverExceedTheLimitPerWindowOfSlots() throws Exception {
        SlidingWindow a = SlidingWindow.builder().limit(5).window(WINDOW).slots(5).build();
        ReadingInvariants.slidingWindows(race(a), 5, a.slotNanos(), 5);
    }

    @Test
    void slidingLog_refundsUnderRace_neverExceedTheLimitPerInterval() throws Exception {
        SlidingLog a = SlidingLog.builder().limit(5).window(WINDOW).build();
        ReadingInvariants.slidingLog(race(a), 5, W);
    }

    @Test
    void warmUp_refundsUnderRace_neverFasterThanTheStableRate() throws Exception {
        WarmUp a = WarmUp.builder().rate(Rate.of(5, WINDOW)).warmUp(Duration.ofMillis(20)).build();
        ReadingInvariants.spaced(race(a), a.intervalNanos());
    }

    @Test
    void concurrency_rollbacksUnderRace_neverExceedMaxInFlight() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        race(Concurrency.of(3), entering -> {
            if (entering) {
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                Thread.yield();
            } else {
                inFlight.decrementAndGet();
            }
        });
        assertTrue(most.get() <= 3, "in flight: " + most.get() + " > 3");
    }
}
