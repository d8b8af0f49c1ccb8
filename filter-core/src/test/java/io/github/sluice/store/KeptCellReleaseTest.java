package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.adaptive.Aimd;
import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The release of a concurrency permit goes back to the cell its admission took it from, kept in
 * the decision ({@link CellHolder}) instead of looked up again, and the registry reads no clock
 * where the algorithm says it needs none ({@link Algorithm#readsClockToDecide()},
 * {@link Algorithm#readsClockAtRelease()}). The race: requests take and give back permits while
 * another thread changes the limit at run time ({@link ShardedRegistry#rebind}), to another
 * concurrency limit (same cells) and through other algorithms (new cells). Every cell is
 * accounted by its own ledger, keyed by the cell the admission was handed: a release that landed
 * on any other cell would leave one cell above its ledger and another below.
 */
class KeptCellReleaseTest {

    private static final int WORKERS = 6;
    private static final int ROUNDS = 60;

    /** A decision that keeps the cell, as the enforcer's verdict entries do. */
    private static final class Holding extends MutableDecision implements CellHolder {
        Cell cell;
        KeySpace space;

        @Override
        public void holdCell(Cell cell) {
            this.cell = cell;
        }
    }

    private final FakeClock clock = new FakeClock();
    private final ShardedRegistry registry = ShardedRegistry.builder().clock(clock).build();

    @Test
    void concurrencyAdmission_handsItsCellToTheDecision_theOneALookupFinds_andRateLimitsHandNone() {
        KeySpace gate = registry.keySpace("gate", Concurrency.of(2));
        Holding first = new Holding();
        Holding second = new Holding();

        assertTrue(gate.acquire("k", 1, first), "a new key's first admission");
        assertTrue(gate.acquire("k", 1, second), "a kept key's admission");

        assertNotNull(first.cell);
        assertSame(first.cell, second.cell, "one key, one cell");
        assertEquals(2, ((Concurrency.PermitCell) first.cell).inFlight());
        Holding rate = new Holding();
        assertTrue(registry.keySpace("rate", TokenBucket.of(Rate.of(10, Duration.ofSeconds(1)))).acquire("k", 1, rate));
        assertNull(rate.cell, "a rate limit holds nothing while a request runs");
        Holding denied = new Holding();
        assertTrue(!gate.acquire("k", 1, denied) && denied.cell == null, "a denial holds nothing");
    }

    @Test
    void secondRelease_afterTheKeyWasDroppedAndMadeAgain_isUnmatched_andLeavesTheNewCellAlone() {
        // Given a request's permit taken and given back, and the idle key dropped by a sweep
        KeySpace gate = registry.keySpace("gate", Concurrency.of(2));
        Holding old = new Holding();
        assertTrue(gate.acquire("k", 1, old));
        assertEquals(0, gate.release("k", old.cell, 1, old.receipt(), false));
        assertEquals(1, registry.sweep(16), "the idle key is dropped");
        // And a new request of the same key on a new cell
        Holding now = new Holding();
        assertTrue(gate.acquire("k", 1, now));
        assertNotSame(old.cell, now.cell);

        // When the first request is released a second time (a caller's bug)
        long unmatched = gate.release("k", old.cell, 1, old.receipt(), false);

        // Then it matches nothing, and the new cell still counts the request that holds it
        assertEquals(1, unmatched);
        assertEquals(1, ((Concurrency.PermitCell) now.cell).inFlight());
        assertEquals(0, gate.release("k", now.cell, 1, now.receipt(), false));
    }

    @Test
    void sameKeyString_afterItsCellWasForgottenOrDropped_isDecidedOnTheNewCell_notTheRetiredOne() {
        // Given a key that every request resolves to the same string (as key=global does), its
        // cell found without the map, and a window of 2 it has used up
        KeySpace window = registry.keySpace("window", io.github.sluice.algorithm.FixedWindow.builder().limit(2)
                .window(Duration.ofHours(1)).build());
        String global = "global";
        assertTrue(window.acquire(global, 1, new MutableDecision()));
        assertTrue(window.acquire(global, 1, new MutableDecision()));
        assertTrue(!window.acquire(global, 1, new MutableDecision()), "the window is used up");

        // When the operator forgets the key (its cell is retired and leaves the map)
        assertTrue(window.reset(global));

        // Then the same string is decided on a fresh cell, and that cell is the one kept from then on
        assertTrue(window.acquire(global, 1, new MutableDecision()));
        assertTrue(window.acquire(global, 1, new MutableDecision()));
        assertTrue(!window.acquire(global, 1, new MutableDecision()), "the new cell counts: 2 of 2");
        MutableDecision peek = new MutableDecision();
        window.inspect(global, peek);
        assertEquals(0, peek.remaining(), "the map's cell is the one that counted");
    }

    @Test
    void clockReadings_onlyWhereTheAlgorithmNeedsThem() {
        CountingClock counting = new CountingClock();
        ShardedRegistry r = ShardedRegistry.builder().clock(counting).build();
        KeySpace gate = r.keySpace("gate", Concurrency.of(5));
        KeySpace waiting = r.keySpace("waiting", Concurrency.builder().maxInFlight(5).maxWait(Duration.ofSeconds(1))
                .build());
        KeySpace adaptive = r.keySpace("adaptive", Aimd.of(1, 10, 5, Duration.ofSeconds(1)));
        KeySpace rate = r.keySpace("rate", TokenBucket.of(Rate.of(10, Duration.ofSeconds(1))));
        for (KeySpace s : List.of(gate, waiting, adaptive, rate)) {
            assertTrue(s.acquire("k", 1, new Holding()), "the key's first cell: " + s);
        }

        assertEquals(0, readings(counting, () -> gate.acquire("k", 1, new Holding())), "concurrency, kept key");
        Holding h = new Holding();
        gate.acquire("k", 1, h);
        assertEquals(0, readings(counting, () -> gate.release("k", h.cell, 1, h.receipt(), false)), "its release");
        assertEquals(0, readings(counting, () -> gate.release("k", 1, MutableDecision.NO_RECEIPT, false)),
                "its release by lookup");
        assertEquals(1, readings(counting, () -> waiting.acquire("k", 1, new Holding())), "a wait has a deadline");
        assertEquals(1, readings(counting, () -> rate.acquire("k", 1, new Holding())), "a rate limit decides by time");
        Holding a = new Holding();
        adaptive.acquire("k", 1, a);
        assertEquals(1, readings(counting, () -> adaptive.release("k", a.cell, 1, a.receipt(), false)),
                "an adaptive limit learns the latency");
        assertEquals(1, readings(counting, () -> gate.acquire("new", 1, new Holding())), "a new key's cell");
    }

    @Test
    void keptCellRelease_whileTheLimitChanges_goesBackToItsCell_andEveryCellStaysExact() throws Exception {
        // Limits in turn: the same cells (4 -> 6 -> 3), then new cells (a rate limit between two
        // concurrency limits, an adaptive limit), so that releases of every generation race the changes
        List<Algorithm<?>> limits = List.of(Concurrency.of(4), Concurrency.of(6), Concurrency.of(3),
                TokenBucket.of(Rate.of(1_000_000, Duration.ofSeconds(1))), Concurrency.of(5),
                Aimd.of(2, 8, 4, Duration.ofSeconds(1)), Concurrency.of(4));
        KeySpace[] current = {registry.keySpace("gate", limits.get(0))};
        Map<Cell, AtomicLong> ledger = new ConcurrentHashMap<>();
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        List<Deque<Holding>> held = new ArrayList<>();
        for (int t = 0; t < WORKERS; t++) {
            held.add(new ArrayDeque<>());
        }
        CyclicBarrier start = new CyclicBarrier(WORKERS + 1);
        CyclicBarrier end = new CyclicBarrier(WORKERS + 1);
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < WORKERS; t++) {
                Deque<Holding> mine = held.get(t);
                futures.add(pool.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        start.await();
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (int i = 0; i < 40; i++) {
                            if (!mine.isEmpty() && (random.nextBoolean() || mine.size() > 3)) {
                                release(mine.pollFirst(), ledger, problems);
                            }
                            KeySpace space = current[0];
                            Holding h = new Holding();
                            h.space = space;
                            if (space.acquire("k", 1, h) && space.algorithm().concurrency()) {
                                if (h.cell == null) {
                                    problems.add("no cell kept by " + space);
                                    continue;
                                }
                                // Counted in before anyone can release it: this thread holds it
                                ledger.computeIfAbsent(h.cell, c -> new AtomicLong()).incrementAndGet();
                                mine.addLast(h);
                            }
                        }
                        end.await();
                    }
                    return null;
                }));
            }
            for (int round = 0; round < ROUNDS; round++) {
                start.await();
                // The change races the round's acquisitions and releases
                Thread.yield();
                synchronized (current) {
                    current[0] = registry.rebind(current[0], limits.get(round % limits.size()), Inheritance.KEEP_CONSUMED);
                }
                end.await(30, TimeUnit.SECONDS);
                // Quiet between rounds: each cell holds exactly what was taken from it and not given back
                ledger.forEach((cell, n) -> {
                    long inFlight = inFlight(cell);
                    if (inFlight != n.get()) {
                        problems.add("a cell holds " + inFlight + " permits, its ledger "
                                + n.get());
                    }
                });
            }
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        for (Deque<Holding> mine : held) {
            while (!mine.isEmpty()) {
                release(mine.pollFirst(), ledger, problems);
            }
        }

        assertTrue(problems.isEmpty(), problems.size() + " problems, e.g. " + problems.peek());
        assertTrue(ledger.size() >= 3, "the changes made new cells: " + ledger.size());
        ledger.forEach((cell, n) -> {
            assertEquals(0, n.get(), "ledger");
            assertEquals(0, inFlight(cell), "every permit back in its own cell");
        });
    }

    /** Releases through the key space that admitted it, on the cell it was handed; a mismatch is a problem. */
    private static void release(Holding h, Map<Cell, AtomicLong> ledger, Queue<String> problems) {
        ledger.get(h.cell).decrementAndGet();
        long unmatched = h.space.release("k", h.cell, 1, h.receipt(), false);
        if (unmatched != 0) {
            problems.add("a release found its permit missing from its cell: " + unmatched + " unmatched, " + h.space);
        }
    }

    private static long inFlight(Cell cell) {
        return cell instanceof io.github.sluice.adaptive.AdaptiveCell a ? a.inFlight()
                : ((Concurrency.PermitCell) cell).inFlight();
    }

    private static int readings(CountingClock clock, Runnable r) {
        long before = clock.readings.get();
        r.run();
        return (int) (clock.readings.get() - before);
    }

    /** A frozen clock that counts its readings. */
    private static final class CountingClock implements Clock {
        final AtomicLong readings = new AtomicLong();

        @Override
        public long nanos() {
            readings.incrementAndGet();
            return 1_000_000_000L;
        }
    }
}
