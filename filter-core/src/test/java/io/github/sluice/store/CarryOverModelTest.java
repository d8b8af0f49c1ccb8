package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The promise of a change at run time (docs/operations.md, "Changing limits at run time"), checked
 * against a small reference model over random sequences of changes, requests, reads, resets,
 * sweeps and idle stretches, under a fake clock: for every rate algorithm and every
 * {@link Inheritance}, each decision and each read of the in-memory store equals the model's.
 *
 * <p>The model states the promise directly, with no retention horizon and no memory bound: each
 * key's state lives in the generation of its last request; its first request in a later
 * generation carries it over (advanced to that moment under its own parameters, then charged into
 * a fresh state of the new one by the strategy; a fresh state carries nothing); a change while the
 * key's state is still one generation behind carries it first, at the moment of the change; a
 * reset forgets the key; a read keeps nothing. The store's retention of old generations (twice the
 * old window plus a second) must be invisible in every decision. At every change the promise is
 * also checked in plain numbers, for every strategy but RESET: no key is left more than it had left
 * plus what the change raises, or than a key never seen has if that is more.
 */
class CarryOverModelTest {

    private static final String[] FAMILIES = {"token-bucket", "gcra", "leaky-bucket", "shaping",
        "fixed-window", "fixed-window-first", "sliding-window", "sliding-log", "smooth-bursty", "warm-up"};
    private static final Duration[] WINDOWS = {Duration.ofSeconds(1), Duration.ofSeconds(10),
        Duration.ofMinutes(1), Duration.ofHours(1)};
    private static final String[] KEYS = {"a", "b", "c"};
    private static final int SEEDS = 40;
    private static final int STEPS = 120;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String family : FAMILIES) {
            for (Inheritance strategy : Inheritance.values()) {
                out.add(Arguments.of(family, strategy));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void anyChangeSequence_everyDecisionAndRead_equalsTheModel(String family, Inheritance strategy) {
        for (int seed = 0; seed < SEEDS; seed++) {
            run(family, strategy, seed);
        }
    }

    private static void run(String family, Inheritance strategy, int seed) {
        SplittableRandom random = new SplittableRandom(seed * 7919L + family.hashCode() * 31L + strategy.ordinal());
        FakeClock clock = new FakeClock();
        Algorithm<?> algorithm = algorithm(family, random);
        Model model = new Model(algorithm, strategy);
        // The store drops only fresh states (idle eviction); the model is told, as it cannot know
        // when a sweep comes (smooth-bursty's rested state and its new state are both fresh, and
        // differ).
        ShardedRegistry store = ShardedRegistry.builder().clock(clock).shards(4).maxKeys(10_000)
                .listener((policy, key, lossless) -> model.dropped(key, lossless, clock.nanos())).build();
        KeySpace space = store.keySpace("p", algorithm);
        StringBuilder trace = new StringBuilder(family + " " + strategy + " seed " + seed + ": " + algorithm);
        MutableDecision got = new MutableDecision();
        MutableDecision want = new MutableDecision();
        for (int step = 0; step < STEPS; step++) {
            int roll = random.nextInt(100);
            String key = KEYS[Math.min(random.nextInt(4), 2)]; // "c" twice as often: the others idle longer
            long now = clock.nanos();
            if (roll < 12) {
                Algorithm<?> next = random.nextInt(3) == 0 ? algorithm(FAMILIES[random.nextInt(FAMILIES.length)], random)
                        : algorithm(family, random);
                trace.append("\n change to ").append(next);
                MutableDecision[] before = new MutableDecision[KEYS.length];
                for (int k = 0; k < KEYS.length; k++) {
                    space.inspect(KEYS[k], before[k] = new MutableDecision());
                }
                space = store.rebind(space, next, strategy);
                model.change(next, now);
                MutableDecision stranger = new MutableDecision();
                space.inspect("never-seen", stranger);
                for (int k = 0; k < KEYS.length && strategy != Inheritance.RESET; k++) {
                    // The promise in plain numbers: a change leaves a key at most what it had left plus
                    // what it raises, or what a key never seen has if that is more.
                    space.inspect(KEYS[k], got);
                    long raise = Math.max(0, got.limit() - before[k].limit());
                    long most = Math.max(stranger.remaining(), before[k].remaining() + raise);
                    assertTrue(got.remaining() <= most, trace + "\n " + KEYS[k] + " had " + before[k]
                            + ", the change leaves it " + got + ", more than " + most);
                }
            } else if (roll < 30) {
                long by = idle(random, model.current);
                trace.append("\n +").append(by).append("ns");
                clock.advanceNanos(by);
            } else if (roll < 36) {
                trace.append("\n reset ").append(key);
                space.reset(key);
                model.reset(key);
            } else if (roll < 44) {
                long size = space.size();
                long previous = store.previousKeys("p");
                space.inspect(key, got);
                model.read(key, now, want);
                trace.append("\n inspect ").append(key).append(" -> ").append(got);
                same(trace, want, got, false);
                assertEquals(size, space.size(), () -> trace + "\n an inspection created state");
                assertEquals(previous, store.previousKeys("p"), () -> trace + "\n an inspection changed state");
            } else if (roll < 48) {
                store.sweep(64);
            } else {
                // At most the policy's limit, as the enforcer's costs are (a policy's cost is checked against it).
                long cost = random.nextInt(8) == 0 ? 0 : Math.min(1 + random.nextInt(2), model.current.limit());
                boolean admitted = space.acquire(key, cost, got);
                model.request(key, cost, now, want);
                trace.append("\n ").append(key).append(" x").append(cost).append(" -> ").append(got);
                same(trace, want, got, true);
                assertEquals(want.allowed(), admitted, trace::toString);
            }
        }
    }

    private static void same(StringBuilder trace, MutableDecision want, MutableDecision got, boolean decision) {
        String where = trace + "\n expected " + want;
        if (decision) {
            assertEquals(want.allowed(), got.allowed(), where);
        }
        assertEquals(want.limit(), got.limit(), where);
        assertEquals(want.remaining(), got.remaining(), where);
    }

    /** An idle stretch: a fraction of a window, a few windows, or hours. */
    private static long idle(SplittableRandom random, Algorithm<?> algorithm) {
        long w = Math.max(1_000_000L, algorithm.windowNanos());
        return switch (random.nextInt(4)) {
            case 0 -> random.nextLong(1, 1_000_000_000L);
            case 1 -> random.nextLong(1, w);
            case 2 -> random.nextLong(w, 3 * w + 2_000_000_000L);
            default -> random.nextLong(1, Duration.ofHours(3).toNanos());
        };
    }

    static Algorithm<?> algorithm(String family, SplittableRandom random) {
        long limit = 1 + random.nextInt(8);
        Duration window = WINDOWS[random.nextInt(WINDOWS.length)];
        Rate rate = Rate.of(limit, window);
        return switch (family) {
            case "token-bucket" -> TokenBucket.builder().rate(rate).burst(1 + random.nextInt(8)).build();
            case "gcra" -> Gcra.builder().rate(rate).burst(1 + random.nextInt(8)).build();
            case "leaky-bucket" -> LeakyBucket.builder().rate(rate).capacity(1 + random.nextInt(8)).build();
            case "shaping" -> ShapingLeakyBucket.builder().rate(rate).slack(1 + random.nextInt(4)).build();
            case "fixed-window" -> FixedWindow.of(limit, window);
            case "fixed-window-first" -> FixedWindow.builder().limit(limit).window(window)
                    .alignment(FixedWindow.Alignment.FIRST_REQUEST).build();
            case "sliding-window" -> SlidingWindow.builder().limit(limit).window(window).slots(1 + random.nextInt(4)).build();
            case "sliding-log" -> SlidingLog.of(limit, window);
            case "smooth-bursty" -> SmoothBursty.of(rate);
            case "warm-up" -> WarmUp.of(rate, window);
            default -> throw new IllegalArgumentException(family);
        };
    }

    /**
     * The reference: per key, the generation of its state and its cell, kept forever; the
     * algorithms decide on the model's own cells.
     */
    static final class Model {
        private final Inheritance strategy;
        private final List<Algorithm<?>> generations = new ArrayList<>();
        private final Map<String, Entry> keys = new HashMap<>();
        Algorithm<?> current;

        record Entry(int generation, Cell cell) {
        }

        Model(Algorithm<?> first, Inheritance strategy) {
            this.strategy = strategy;
            this.current = first;
            generations.add(first);
        }

        private int now() {
            return generations.size() - 1;
        }

        void change(Algorithm<?> next, long now) {
            if (next.equals(current)) {
                return; // the same policy: nothing happens
            }
            if (strategy == Inheritance.RESET) {
                keys.clear();
            } else {
                // A key still one generation behind is carried at the change, as a zero-cost request would be.
                for (Map.Entry<String, Entry> e : new ArrayList<>(keys.entrySet())) {
                    if (e.getValue().generation() == now() - 1) {
                        Entry carried = carry(e.getValue(), now);
                        if (carried == null) {
                            keys.remove(e.getKey());
                        } else {
                            keys.put(e.getKey(), carried);
                        }
                    }
                }
            }
            generations.add(next);
            current = next;
        }

        void reset(String key) {
            keys.remove(key);
        }

        /** The store dropped the key's state in some generation, which must have been fresh. */
        @SuppressWarnings({"unchecked", "rawtypes"})
        void dropped(String key, boolean lossless, long now) {
            assertTrue(lossless, "no key is dropped at the bound in this test: " + key);
            Entry e = keys.get(key);
            if (e != null && ((Algorithm) generations.get(e.generation())).isFresh(e.cell(), now)) {
                keys.remove(key);
            }
        }

        /** The key's state in the current generation, carried if it is one behind; null if fresh. */
        private Entry state(String key, long now) {
            Entry e = keys.get(key);
            if (e == null || e.generation() == now()) {
                return e;
            }
            if (e.generation() == now() - 1) {
                return carry(e, now);
            }
            throw new AssertionError("a key two generations behind: the change should have carried it");
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private Entry carry(Entry e, long now) {
            Algorithm from = generations.get(e.generation());
            MutableDecision d = new MutableDecision();
            from.acquire(e.cell(), now, 0, d);
            if (from.isFresh(e.cell(), now)) {
                return null;
            }
            long oldLimit = Math.max(1, d.limit());
            long left = d.remaining();
            if (left >= oldLimit) {
                return null; // nothing used: starts as a key never seen
            }
            Algorithm to = generations.get(e.generation() + 1);
            Cell cell = to.newCell(now);
            to.acquire(cell, now, 0, d);
            long carried = strategy.carried(oldLimit, left, Math.max(1, d.limit()));
            if (carried <= 0) {
                return null;
            }
            if (to.acquire(cell, now, carried, d) != Algorithm.ADMITTED) {
                long all = Math.min(carried, d.remaining());
                if (all <= 0 || to.acquire(cell, now, all, d) != Algorithm.ADMITTED) {
                    return null;
                }
            }
            return to.isFresh(cell, now) ? null : new Entry(e.generation() + 1, cell);
        }

        /**
         * A request: on the key's state in this generation, else on what it carries (kept before
         * the decision), else on a fresh state, kept only if the decision left it other than
         * fresh (a peek, or a refusal by a fresh state, leaves nothing behind; the key's state in
         * the previous generation then stays to be carried by a later request).
         */
        @SuppressWarnings({"unchecked", "rawtypes"})
        void request(String key, long cost, long now, MutableDecision out) {
            Entry e = state(key, now);
            Algorithm a = current;
            if (e != null) {
                keys.put(key, e);
                a.acquire(e.cell(), now, cost, out);
                return;
            }
            Cell cell = a.newCell(now);
            a.acquire(cell, now, cost, out);
            if (!a.isFresh(cell, now)) {
                keys.put(key, new Entry(now(), cell));
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        void read(String key, long now, MutableDecision out) {
            Entry e = state(key, now);
            Algorithm a = current;
            a.acquire(e == null ? a.newCell(now) : e.cell(), now, 0, out);
        }
    }
}
