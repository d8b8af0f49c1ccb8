package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The heavy hitters' summary: the Space-Saving guarantees checked against exact counts, under
 * streams built to break them (floods of distinct keys, heavy keys first or last, keys of one hash
 * code), and the sliding periods on a fake clock.
 */
class TopClientsTest {

    private static final int K = 20;

    private final FakeClock clock = new FakeClock(0);

    private TopClients top(int size) {
        return new TopClients("per-ip", TopClients.By.DENIED, size, clock);
    }

    /** Checks the three Space-Saving guarantees of one minute's list against the true counts. */
    private static void assertGuarantees(TopClients.Top top, Map<String, Long> truth, long n, int k) {
        assertEquals(n, top.total(), "every request is counted once");
        assertTrue(top.entries().size() <= k, "at most k entries: " + top.entries().size());
        assertTrue(top.bound() <= n / k, "bound " + top.bound() + " <= N/k " + n / k);
        Map<String, TopClients.Entry> listed = new HashMap<>();
        for (TopClients.Entry e : top.entries()) {
            long t = truth.getOrDefault(e.key(), 0L);
            assertTrue(e.count() >= t && e.count() - e.error() <= t,
                    e + " must bracket the true count " + t);
            listed.put(e.key(), e);
        }
        for (Map.Entry<String, Long> t : truth.entrySet()) {
            if (t.getValue() > n / k) {
                assertTrue(listed.containsKey(t.getKey()), t.getKey() + " made " + t.getValue() + " > N/k = "
                        + n / k + " requests but is not listed: " + top.entries());
            }
            if (!listed.containsKey(t.getKey())) {
                assertTrue(t.getValue() <= top.bound(), t + " is not listed, so at most the bound " + top.bound());
            }
        }
    }

    @Test
    void aFloodOfDistinctKeysAfterTheHeavyHitters_neitherEvictsThemNorGrowsTheSummary() {
        // Given three clients that each made more than N/k of the requests, all before the flood
        TopClients t = top(K);
        Map<String, Long> truth = new HashMap<>();
        long n = 0;
        String[] heavy = {"192.0.2.1", "192.0.2.2", "192.0.2.3"};
        int floodSize = 100_000;
        long each = (floodSize + 3L * 6000) / K + 1; // > N/k however N ends up
        for (String h : heavy) {
            for (int i = 0; i < each; i++) {
                t.record(h);
            }
            truth.put(h, each);
            n += each;
        }
        // When a flood of 100,000 distinct spoofed addresses follows (the order that favours eviction most)
        for (int i = 0; i < floodSize; i++) {
            String spoofed = "10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255);
            t.record(spoofed);
            truth.merge(spoofed, 1L, Long::sum);
            n++;
        }

        // Then every heavy hitter is listed, heaviest first, with counts that bracket the truth
        TopClients.Top top = t.top(1);
        assertGuarantees(top, truth, n, K);
        for (String h : heavy) {
            assertTrue(top.entries().stream().limit(3).anyMatch(e -> e.key().equals(h)), h + " in " + top.entries());
        }
        // And the summary holds K keys, not the flood's 100,000
        assertEquals(K, top.entries().size());
    }

    @Test
    void randomAndAdversarialStreams_keepEveryGuaranteeAgainstExactCounts() {
        Random random = new Random(29);
        for (int run = 0; run < 60; run++) {
            TopClients t = top(1 + random.nextInt(K));
            int k = t.size();
            List<String> stream = new ArrayList<>();
            int heavyKeys = random.nextInt(k + 1);
            int distinct = 1 + random.nextInt(5000);
            for (int i = 0; i < distinct; i++) {
                stream.add("flood-" + i);
            }
            for (int h = 0; h < heavyKeys; h++) {
                int copies = random.nextInt(3 * distinct / Math.max(1, k) + 2);
                for (int c = 0; c < copies; c++) {
                    stream.add("heavy-" + h);
                }
            }
            // Three orders: shuffled, heavy keys first, heavy keys last.
            switch (run % 3) {
                case 0 -> Collections.shuffle(stream, random);
                case 1 -> Collections.reverse(stream);
                default -> {
                    // as built: the flood first, heavy keys last
                }
            }
            Map<String, Long> truth = new HashMap<>();
            for (String key : stream) {
                t.record(key);
                truth.merge(key, 1L, Long::sum);
            }
            assertGuarantees(t.top(1), truth, stream.size(), k);
        }
    }

    @Test
    void keysOfOneHashCode_areToldApartByEquality() {
        // Given keys built from "Aa" and "BB", which share a hash code: 2^10 keys of one hash
        TopClients t = top(4);
        List<String> colliding = new ArrayList<>();
        for (int bits = 0; bits < 1024; bits++) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < 10; i++) {
                b.append((bits >> i & 1) == 0 ? "Aa" : "BB");
            }
            colliding.add(b.toString());
        }
        assertEquals(1, colliding.stream().mapToInt(String::hashCode).distinct().count());
        Map<String, Long> truth = new HashMap<>();
        long n = 0;
        // When one of them is heavy and the others flood, interleaved
        for (int i = 0; i < colliding.size(); i++) {
            t.record(colliding.get(i));
            truth.merge(colliding.get(i), 1L, Long::sum);
            t.record(colliding.get(0));
            truth.merge(colliding.get(0), 1L, Long::sum);
            n += 2;
        }
        // Then the heavy one is counted alone, and the guarantees hold
        assertGuarantees(t.top(1), truth, n, 4);
        assertEquals(colliding.get(0), t.top(1).entries().get(0).key());
    }

    @Test
    void periods_mergeTheCurrentMinuteAndThoseBefore_andForgetOlderOnes() {
        TopClients t = top(K);
        // minute 0: a, 5 times; minute 3: b, 2 times; minute 4 (now): c once
        for (int i = 0; i < 5; i++) {
            t.record("a");
        }
        clock.advance(Duration.ofMinutes(3));
        t.record("b");
        t.record("b");
        clock.advance(Duration.ofMinutes(1));
        t.record("c");

        assertEquals(List.of("b", "c"), keys(t.top(1)));
        assertEquals(List.of("b", "c"), keys(t.top(3)));
        assertEquals(List.of("a", "b", "c"), keys(t.top(4)));
        assertEquals(8, t.top(15).total());

        // 16 minutes later, the ring has turned: minute 0 is gone even though its slot is reused
        clock.advance(Duration.ofMinutes(12));
        t.record("d");
        assertEquals(List.of("b", "c", "d"), keys(t.top(15)));
        clock.advance(Duration.ofMinutes(16));
        assertEquals(0, t.top(15).total());
        assertTrue(t.top(15).entries().isEmpty());
    }

    @Test
    void aMergedPeriod_listsEveryClientAboveNOverK_withCountsThatBracketTheTruth() {
        // Given a client just above N/k over 5 minutes, but under each minute's own N/k in some,
        // and a different flood of distinct keys every minute
        TopClients t = top(K);
        Map<String, Long> truth = new HashMap<>();
        long n = 0;
        int[] heavyPerMinute = {400, 5, 300, 0, 200};
        for (int m = 0; m < heavyPerMinute.length; m++) {
            if (m > 0) {
                clock.advance(Duration.ofMinutes(1));
            }
            for (int i = 0; i < 2000; i++) {
                String key = "m" + m + "-" + i;
                t.record(key);
                truth.merge(key, 1L, Long::sum);
                n++;
                if (i < heavyPerMinute[m]) {
                    t.record("heavy");
                    truth.merge("heavy", 1L, Long::sum);
                    n++;
                }
            }
        }
        TopClients.Top top = t.top(4);
        assertEquals(n, top.total());
        assertTrue(truth.get("heavy") > n / K);
        TopClients.Entry heavy = top.entries().get(0);
        assertEquals("heavy", heavy.key());
        assertTrue(heavy.count() >= truth.get("heavy") && heavy.count() - heavy.error() <= truth.get("heavy"), heavy
                + " vs " + truth.get("heavy"));
        for (Map.Entry<String, Long> e : truth.entrySet()) {
            if (top.entries().stream().noneMatch(listed -> listed.key().equals(e.getKey()))) {
                assertTrue(e.getValue() <= top.bound(), e + " is not listed, so at most the bound " + top.bound());
            }
        }
    }

    @Test
    void concurrentThreads_countEveryRequestOnce_andFindTheHeavyClient() throws Exception {
        TopClients t = top(K);
        int threads = 4;
        int perThread = 20_000;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        List<Thread> running = new ArrayList<>();
        for (int id = 0; id < threads; id++) {
            int me = id;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                    t.record(i % 2 == 0 ? "heavy" : "t" + me + "-" + i);
                }
            });
            th.start();
            running.add(th);
        }
        for (Thread th : running) {
            th.join();
        }
        TopClients.Top top = t.top(1);
        assertEquals((long) threads * perThread, top.total());
        TopClients.Entry first = top.entries().get(0);
        assertEquals("heavy", first.key());
        long heavy = (long) threads * perThread / 2;
        // Two threads may bring a new key in at once (a duplicate, summed on read): the bracket can
        // be off by those few takeovers, never by more than the bound.
        assertTrue(first.count() >= heavy - top.bound() && first.count() - first.error() <= heavy + top.bound(),
                first + " vs " + heavy);
        assertTrue(top.entries().size() <= K);
    }

    @Test
    void badArguments_areRefusedNamingTheValue() {
        TopClients t = top(K);
        assertEquals("period must be 1 to 15 minutes but was 16",
                assertThrows(IllegalArgumentException.class, () -> t.top(16)).getMessage());
        assertEquals(5, TopClients.minutes("5m"));
        assertEquals("period must be whole minutes from 1m to 15m (e.g. 5m) but was '300s'",
                assertThrows(IllegalArgumentException.class, () -> TopClients.minutes("300s")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> TopClients.minutes("0m"));
        assertThrows(IllegalArgumentException.class, () -> TopClients.minutes("16m"));
        assertEquals("by must be denied or admitted but was 'allowed'",
                assertThrows(IllegalArgumentException.class, () -> TopClients.By.of("allowed")).getMessage());
        assertEquals("topClients must be 0 (off) to 1000 but was 1001", assertThrows(IllegalArgumentException.class,
                () -> EnforcerMetrics.builder().topClients(1001)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Enforcer.builder().topClients(-1));
    }

    @Test
    void aNullKey_isNotCounted() {
        TopClients t = top(K);
        t.record(null);
        assertEquals(0, t.top(1).total());
        assertFalse(t.toString().isEmpty());
    }

    private static List<String> keys(TopClients.Top top) {
        List<String> keys = new ArrayList<>();
        for (TopClients.Entry e : top.entries()) {
            keys.add(e.key());
        }
        Collections.sort(keys);
        return keys;
    }
}
