package io.github.sluice.adaptive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import java.time.Duration;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/** How each rule moves the limit, driven round by round on a manual clock. */
class RulesTest {

    private static final long MS = 1_000_000L;

    /** A key under test and its own clock reading. */
    private static final class Driver<C extends AdaptiveCell> {
        final AdaptiveLimit<C> algorithm;
        final C cell;
        final MutableDecision out = new MutableDecision();
        long now = 1_000 * MS;
        /** Requests of {@link #saturatedServer}: end time and receipt. */
        final PriorityQueue<long[]> running = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));

        Driver(AdaptiveLimit<C> algorithm) {
            this.algorithm = algorithm;
            this.cell = algorithm.newCell(now);
        }

        /**
         * One round: admits {@code use} requests (or as many as the limit takes) at once, and
         * ends them all {@code latency} later; {@code drops} of them dropped.
         *
         * @return how many were admitted
         */
        int round(long use, long latency, long drops) {
            long[] receipts = new long[(int) use];
            int admitted = 0;
            while (admitted < use && algorithm.acquire(cell, now, 1, out) == Algorithm.ADMITTED) {
                receipts[admitted++] = out.receipt();
            }
            now += latency;
            for (int i = 0; i < admitted; i++) {
                algorithm.release(cell, now, 1, receipts[i], i < drops);
            }
            now += MS;
            return admitted;
        }

        /**
         * A closed loop against a saturated server of {@code capacity} workers: whenever a
         * request ends another starts, as many as the limit takes, and a request admitted with
         * {@code n} in flight takes {@code base * max(capacity, n) / capacity}.
         *
         * @return the median limit over those requests (a probe may be under way at any one time)
         */
        long saturatedServer(int requests, long capacity, long base) {
            long[] limits = new long[requests];
            for (int i = 0; i < requests; i++) {
                while (algorithm.acquire(cell, now, 1, out) == Algorithm.ADMITTED) {
                    long n = cell.inFlight();
                    running.add(new long[] {now + base * Math.max(capacity, n) / capacity, out.receipt()});
                }
                long[] next = running.poll();
                now = Math.max(now, next[0]);
                algorithm.release(cell, now, 1, next[1], false);
                limits[i] = cell.limit();
            }
            java.util.Arrays.sort(limits);
            return limits[requests / 2];
        }

        /** Rounds that use the whole limit. */
        void saturate(int rounds, long latency) {
            for (int i = 0; i < rounds; i++) {
                round(cell.limit(), latency, 0);
            }
        }
    }

    // ---- AIMD -------------------------------------------------------------------------------

    @Test
    void aimd_fastAndUsed_growsByOnePerBatch() {
        Driver<AdaptiveCell> d = new Driver<>(Aimd.builder().min(1).max(1000).initial(10).samples(5).build());

        d.round(10, 5 * MS, 0); // two batches, but the second was admitted before the first grew it
        d.round(11, 5 * MS, 0);

        assertEquals(12, d.cell.limit());
    }

    @Test
    void aimd_idleLimit_doesNotGrow() {
        Driver<AdaptiveCell> d = new Driver<>(Aimd.builder().min(1).max(1000).initial(20).samples(4).build());

        for (int i = 0; i < 50; i++) {
            d.round(4, 5 * MS, 0); // a fifth of the limit
        }

        assertEquals(20, d.cell.limit());
    }

    @Test
    void aimd_batchWithDrops_isCutOnceNotOncePerDrop() {
        Driver<AdaptiveCell> d = new Driver<>(
                Aimd.builder().min(1).max(1000).initial(20).samples(20).backoff(0.5).build());

        d.round(20, 5 * MS, 5);

        assertEquals(10, d.cell.limit());
    }

    @Test
    void aimd_slowerThanItsLatency_countsAsADrop() {
        Driver<AdaptiveCell> d = new Driver<>(Aimd.builder().min(1).max(1000).initial(20).samples(20)
                .backoff(0.5).latency(Duration.ofMillis(100)).build());

        d.round(20, 101 * MS, 0);

        assertEquals(10, d.cell.limit());
    }

    @Test
    void aimd_batchOfDrops_isCutByTheBackoff() {
        // A drop (an error, a timeout) says the server is overloaded, not by how much: the
        // backoff, however many of the batch were dropped.
        Driver<AdaptiveCell> d = new Driver<>(Aimd.builder().min(1).max(1000).initial(100).samples(100).build());

        d.round(100, 5 * MS, 100);

        assertEquals(90, d.cell.limit());
    }

    @Test
    void aimd_aFewRequestsOverTheObjective_cutByTheBackoff() {
        Driver<AdaptiveCell> d = new Driver<>(Aimd.builder().min(1).max(1000).initial(100).samples(100)
                .latency(Duration.ofMillis(30)).build());

        batch(d, 98, 10 * MS, 2, 60 * MS); // 1 - 0.02 / 2 = 0.99 would barely move it

        assertEquals(90, d.cell.limit());
    }

    @Test
    void aimd_capacityHalves_everyRequestOverTheObjective_halvesTheLimitInOneBatch() {
        // Capacity halved under a limit of 100: the whole batch is over the objective, a sign
        // that the limit is far above what the server carries, not near it; the backoff alone
        // (0.9) would take seven round trips, each as slow as the queue it lets stand.
        Driver<AdaptiveCell> d = new Driver<>(Aimd.builder().min(1).max(1000).initial(100).samples(100)
                .latency(Duration.ofMillis(30)).build());

        d.round(100, 60 * MS, 0);

        assertEquals(50, d.cell.limit());
    }

    @Test
    void aimd_cutGrowsWithTheShareOverTheObjective() {
        // Half the batch over the objective: cut by a quarter (DCTCP's alpha / 2).
        Driver<AdaptiveCell> d = new Driver<>(Aimd.builder().min(1).max(1000).initial(100).samples(100)
                .latency(Duration.ofMillis(30)).build());

        batch(d, 50, 10 * MS, 50, 60 * MS);

        assertEquals(75, d.cell.limit());
    }

    /** Admits {@code fast + slow} requests at once; ends {@code fast} after one latency, the rest after the other. */
    private static void batch(Driver<AdaptiveCell> d, int fast, long fastLatency, int slow, long slowLatency) {
        long[] receipts = new long[fast + slow];
        for (int i = 0; i < receipts.length; i++) {
            assertEquals(Algorithm.ADMITTED, d.algorithm.acquire(d.cell, d.now, 1, d.out));
            receipts[i] = d.out.receipt();
        }
        long start = d.now;
        for (int i = 0; i < receipts.length; i++) {
            d.algorithm.release(d.cell, start + (i < fast ? fastLatency : slowLatency), 1, receipts[i], false);
        }
        d.now = start + slowLatency + MS;
    }

    @Test
    void aimd_neverBelowMin() {
        Driver<AdaptiveCell> d = new Driver<>(
                Aimd.builder().min(3).max(1000).initial(20).samples(1).backoff(0.5).build());
        long lowest = Long.MAX_VALUE;

        for (int i = 0; i < 20; i++) {
            d.round(d.cell.limit(), MS, d.cell.limit());
            lowest = Math.min(lowest, d.cell.limit());
        }

        assertEquals(3, lowest);
    }

    @Test
    void samplesOfRequestsAdmittedBeforeTheLimitChanged_areIgnored() {
        // 20 requests start under limit 20; the first 10 that end cut it (a drop); the other 10
        // say nothing of the new limit and must not cut it again.
        Aimd a = Aimd.builder().min(1).max(1000).initial(20).samples(10).backoff(0.5).build();
        AdaptiveCell cell = a.newCell(0);
        MutableDecision out = new MutableDecision();
        long[] receipts = new long[20];
        for (int i = 0; i < 20; i++) {
            a.acquire(cell, MS, 1, out);
            receipts[i] = out.receipt();
        }
        for (int i = 0; i < 20; i++) {
            a.release(cell, 2 * MS + i, 1, receipts[i], true);
        }

        assertEquals(10, cell.limit());
    }

    // ---- Gradient ---------------------------------------------------------------------------

    @Test
    void gradient_steadyLatency_growsByTheQueueAllowance() {
        Driver<AdaptiveCell> d = new Driver<>(Gradient.builder().min(1).max(1000).initial(20).samples(10).build());

        d.saturate(20, 10 * MS);

        assertTrue(d.cell.limit() > 30, "limit " + d.cell.limit());
    }

    @Test
    void gradient_latencyBeyondTolerance_limitFalls() {
        Driver<AdaptiveCell> d = new Driver<>(Gradient.builder().min(1).max(1000).initial(50).samples(10).build());
        d.saturate(10, 10 * MS);
        long before = d.cell.limit();

        d.saturate(10, 30 * MS); // three times the long-term latency

        assertTrue(d.cell.limit() < before * 0.6, before + " -> " + d.cell.limit());
    }

    @Test
    void gradient_sustainedOverload_doesNotDriftUpward() {
        // The long-term latency must not follow a queue the limit itself allows (Netflix's
        // Gradient2 drift): against a saturated server of capacity 40, the limit stays near 40,
        // however long the overload lasts.
        Driver<AdaptiveCell> d = new Driver<>(Gradient.builder().min(1).max(1000).initial(20).build());

        long early = d.saturatedServer(20_000, 40, 10 * MS);
        long late = d.saturatedServer(200_000, 40, 10 * MS);

        assertTrue(early <= 70 && early >= 40, "limit " + early);
        assertTrue(late <= early + 5, early + " -> " + late);
    }

    @Test
    void gradient_drop_cutsByTheLargestStep() {
        Driver<AdaptiveCell> d = new Driver<>(
                Gradient.builder().min(1).max(1000).initial(100).samples(10).queue(0).smoothing(1).build());
        d.saturate(2, 10 * MS);
        long before = d.cell.limit();

        d.round(10, 10 * MS, 1);

        assertEquals(before / 2, d.cell.limit());
    }

    // ---- Vegas ------------------------------------------------------------------------------

    @Test
    void vegas_noQueue_growsOncePerFewRoundTrips() {
        Driver<AdaptiveCell> d = new Driver<>(Vegas.builder().min(1).max(1000).initial(20).samples(10).build());

        d.saturate(8, 10 * MS);
        long early = d.cell.limit();
        d.saturate(20, 10 * MS);

        // A change is judged on completions from three round trips after it, recomputed after four.
        assertTrue(early < 40, "limit " + early);
        assertTrue(d.cell.limit() > 40, "limit " + d.cell.limit());
    }

    @Test
    void vegas_fastestCompletionsRightAfterAChange_doNotCutTheLimit() {
        // After the limit changes, the requests admitted under it that complete first are the
        // short ones. Taken as a batch, they read as a latency without load far under the
        // server's, and every later batch as a queue: the limit was cut under the workers.
        Driver<AdaptiveCell> d = new Driver<>(Vegas.builder().min(1).max(1000).initial(100).samples(10).build());
        d.saturate(12, 10 * MS);
        long before = d.cell.limit();

        for (int i = 0; i < 5; i++) {
            long[] receipts = new long[(int) d.cell.limit()];
            int admitted = 0;
            while (admitted < receipts.length && d.algorithm.acquire(d.cell, d.now, 1, d.out) == Algorithm.ADMITTED) {
                receipts[admitted++] = d.out.receipt();
            }
            d.now += 2 * MS; // the fastest fifth completes first
            for (int k = 0; k < admitted / 5; k++) {
                d.algorithm.release(d.cell, d.now, 1, receipts[k], false);
            }
            d.now += 10 * MS; // the others at about the service time
            for (int k = admitted / 5; k < admitted; k++) {
                d.algorithm.release(d.cell, d.now, 1, receipts[k], false);
            }
            d.now += MS;
        }
        d.saturate(12, 10 * MS);

        assertTrue(d.cell.limit() >= before, before + " -> " + d.cell.limit());
    }

    @Test
    void vegas_afterABatchOfSlowRequests_movesAgainWithinItsWindow() {
        // The completions after a change are left out for three round trips of the last batch,
        // but never longer than the window: a batch of 2 s requests must not hold the limit
        // still for 6 s.
        Driver<AdaptiveCell> d = new Driver<>(Vegas.builder().min(1).max(1000).initial(100).samples(10)
                .window(Duration.ofMillis(100)).build());
        d.saturate(12, 10 * MS);
        d.round(d.cell.limit(), 2_000 * MS, 0); // a queue: the limit is cut, the round trip is 2 s
        long cut = d.cell.limit();

        d.saturate(30, 10 * MS); // 330 ms of 10 ms requests, no queue

        assertTrue(d.cell.limit() > cut, cut + " -> " + d.cell.limit());
    }

    @Test
    void vegas_queueBuilds_limitFalls() {
        Driver<AdaptiveCell> d = new Driver<>(Vegas.builder().min(1).max(1000).initial(100).samples(10).build());
        d.saturate(3, 10 * MS);
        long before = d.cell.limit();

        d.saturate(5, 20 * MS); // half of each request's latency is queue

        assertTrue(d.cell.limit() < before * 0.8, before + " -> " + d.cell.limit());
    }

    @Test
    void vegas_sustainedOverload_settlesNearCapacityWithoutRatchetingOnProbes() {
        Driver<AdaptiveCell> d = new Driver<>(Vegas.builder().min(1).max(1000).initial(20).build());

        long early = d.saturatedServer(20_000, 40, 10 * MS);
        long late = d.saturatedServer(200_000, 40, 10 * MS);

        assertTrue(early <= 60 && early >= 38, "limit " + early);
        assertTrue(late <= 60 && late >= 38, "limit " + late);
    }

    // ---- BBR --------------------------------------------------------------------------------

    /** A CPU gauge the test sets. */
    private static final class Cpu implements CpuGauge {
        volatile double usage;

        @Override
        public double usage(long nowNanos) {
            return usage;
        }
    }

    private static Bbr bbr(Cpu cpu) {
        return Bbr.builder().min(1).max(1000).initial(10).window(Duration.ofSeconds(1)).buckets(10)
                .coolDown(Duration.ofMillis(500)).gauge(cpu).build();
    }

    @Test
    void bbr_cpuBelowThreshold_admitsUpToMax() {
        Cpu cpu = new Cpu();
        cpu.usage = 0.5;
        Driver<Bbr.BbrCell> d = new Driver<>(bbr(cpu));

        assertEquals(1000, d.round(1000, 10 * MS, 0));
    }

    @Test
    void bbr_unknownCpu_neverSheds() {
        Cpu cpu = new Cpu();
        cpu.usage = -1;
        Driver<Bbr.BbrCell> d = new Driver<>(bbr(cpu));

        assertEquals(1000, d.round(1000, 10 * MS, 0));
    }

    @Test
    void bbr_cpuAboveThreshold_admitsMaxPassTimesMinRt() {
        Cpu cpu = new Cpu();
        cpu.usage = 0.5;
        Driver<Bbr.BbrCell> d = new Driver<>(bbr(cpu));
        // 30 requests of 20 ms end in each 100 ms bucket: the server carries 30 * 20 / 100 = 6.
        for (int i = 0; i < 30; i++) {
            d.round(30, 20 * MS, 0);
            d.now += 79 * MS; // one round per bucket
        }
        cpu.usage = 0.9;

        assertEquals(6, d.round(100, 20 * MS, 0));
    }

    @Test
    void bbr_afterARefusal_keepsSheddingThroughTheCoolDown() {
        Cpu cpu = new Cpu();
        cpu.usage = 0.9;
        Bbr b = bbr(cpu);
        Bbr.BbrCell cell = b.newCell(0);
        for (int i = 0; i < 10; i++) {
            b.acquire(cell, MS, 1, null);
        }
        assertEquals(Algorithm.DENIED, b.acquire(cell, MS, 1, null), "shedding at the initial limit");

        cpu.usage = 0.1;

        assertEquals(Algorithm.DENIED, b.acquire(cell, 400 * MS, 1, null), "within the cool-down");
        assertEquals(Algorithm.ADMITTED, b.acquire(cell, 502 * MS, 1, null), "after it");
    }

    @Test
    void bbr_droppedRequests_showNoCapacity() {
        Cpu cpu = new Cpu();
        cpu.usage = 0.5;
        Driver<Bbr.BbrCell> d = new Driver<>(bbr(cpu));
        for (int i = 0; i < 30; i++) {
            d.round(30, 20 * MS, 0);
            d.now += 79 * MS;
        }
        for (int i = 0; i < 30; i++) {
            d.round(300, 20 * MS, 300); // many fail fast: no more capacity than before
            d.now += 79 * MS;
        }
        cpu.usage = 0.9;

        assertEquals(6, d.round(100, 20 * MS, 0));
    }

    @Test
    void processGauge_readsTheProcessCpuUsage() {
        CpuGauge gauge = CpuGauge.process();
        double usage = gauge.usage(System.nanoTime());

        assertTrue(usage >= -1 && usage <= 1, "usage " + usage);
    }
}
