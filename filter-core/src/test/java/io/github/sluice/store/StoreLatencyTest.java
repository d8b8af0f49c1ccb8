package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The store latency histogram: buckets, cumulative counts, and recording without a lock or an allocation. */
class StoreLatencyTest {

    private static final long MS = 1_000_000L;

    @Test
    void record_roundTrips_landInTheFirstBucketTheyFitAndCountCumulatively() {
        StoreLatency l = new StoreLatency("redis", "acquire", "release");

        l.record(0, 40_000);     // 40 us: the 100 us bucket
        l.record(0, 100_000);    // exactly a bound: that bucket (le means at most)
        l.record(0, 3 * MS);     // the 5 ms bucket
        l.record(0, 2_000 * MS); // above every bound: +Inf only
        l.record(1, -5);         // a clock that stepped back: 0

        long[] bounds = StoreLatency.bounds();
        assertEquals(12, bounds.length);
        assertEquals(100_000, bounds[0]);
        assertEquals(1_000 * MS, bounds[bounds.length - 1]);
        assertEquals(2, l.countAtMost(0, 0));
        assertEquals(2, l.countAtMost(0, 4)); // le 2.5 ms
        assertEquals(3, l.countAtMost(0, 5)); // le 5 ms
        assertEquals(3, l.countAtMost(0, bounds.length - 1));
        assertEquals(4, l.countAtMost(0, bounds.length)); // +Inf
        assertEquals(4, l.count(0));
        assertEquals(40_000 + 100_000 + 3 * MS + 2_000 * MS, l.totalNanos(0));
        assertEquals(1, l.countAtMost(1, 0));
        assertEquals(0, l.totalNanos(1));
        assertEquals(List.of("acquire", "release"), l.operations());
        assertEquals("redis", l.store());
        assertTrue(l.toString().contains("acquire=4"), l.toString());
    }

    @Test
    void bounds_areACopy() {
        long[] b = StoreLatency.bounds();
        b[0] = 7;
        assertArrayEquals(new long[] {100_000L}, new long[] {StoreLatency.bounds()[0]});
    }

    @Test
    void record_allocatesNothing() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        StoreLatency l = new StoreLatency("redis", "acquire");
        for (int i = 0; i < 20_000; i++) {
            l.record(0, i * 1_000L);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 20_000; i++) {
            l.record(0, i * 1_000L);
        }
        long bytes = threads.getCurrentThreadAllocatedBytes() - before;

        assertTrue(bytes < 200, "recording 20,000 round trips allocated " + bytes + " bytes");
    }

    @Test
    void record_manyThreadsAtOnce_losesNoRoundTrip() throws Exception {
        StoreLatency l = new StoreLatency("redis", "acquire");
        int threads = 8;
        int each = 10_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    l.record(0, 300_000); // 300 us: the 500 us bucket
                }
            });
            th.start();
            all.add(th);
        }
        start.countDown();
        for (Thread th : all) {
            th.join();
        }

        assertEquals((long) threads * each, l.count(0));
        assertEquals((long) threads * each * 300_000, l.totalNanos(0));
        assertEquals(0, l.countAtMost(0, 1));
        assertEquals((long) threads * each, l.countAtMost(0, 2));
    }

    @Test
    void constructor_badOperations_areRefusedNamingThem() {
        assertEquals("operations must not be empty",
                assertThrows(IllegalArgumentException.class, () -> new StoreLatency("redis")).getMessage());
        assertEquals("operation must be [a-z]+ but was 'Acquire'",
                assertThrows(IllegalArgumentException.class, () -> new StoreLatency("redis", "Acquire")).getMessage());
        assertEquals("operation 'a' is repeated in [a, b, a]",
                assertThrows(IllegalArgumentException.class, () -> new StoreLatency("redis", "a", "b", "a")).getMessage());
        assertThrows(NullPointerException.class, () -> new StoreLatency(null, "a"));
        assertThrows(IndexOutOfBoundsException.class, () -> new StoreLatency("redis", "a").countAtMost(0, 13));
    }
}
