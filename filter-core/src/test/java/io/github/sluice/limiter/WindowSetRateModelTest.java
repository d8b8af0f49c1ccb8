package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockingLimiter#setRate} on the sliding window and the sliding log, against reference
 * models on a manual clock: randomized sequences of {@code tryAcquire(n)}, {@code acquire(n)},
 * {@code tryAcquire(n, timeout)}, clock moves and rate changes ({@code setRate(Rate)} with or
 * without another window, {@code setRate(double)}), over a fixed list of seeds so that a failure
 * names the seed that reproduces it.
 * <ul>
 *   <li>Sliding window: the model is a plain list of admitted permits with their timestamps,
 *       re-evaluated at slot granularity ({@code floor(stamp / slot) > floor(now / slot) - slots}).
 *       At a change, a permit that the old window no longer counts is dropped, and the others are
 *       dated the last nanosecond of their old slot (or now): the documented rule. Every
 *       decision, and every wait, must be the model's. Independently of that rule, the
 *       <em>safety</em> property: no admission ever puts more than the limit in force into the
 *       current window counted by the permits' true timestamps (of the permits that every change
 *       so far still counted): a carry that forgets a permit early fails it.
 *   <li>Sliding log: the model is the whole log of timestamps ({@code stamp > now - window}); at
 *       a change it drops what the old window no longer counts and keeps <em>all</em> the rest,
 *       however many, while the limiter keeps only the newest {@code limit} in its ring: equal
 *       decisions prove that the newest {@code limit} decide alone, and that the ones dropped
 *       from the ring are remembered for a later raise.
 * </ul>
 * A wait is checked exactly: the model refuses one nanosecond before the admission and admits at
 * it (the permits in a window only fall while nothing is admitted, so that pins the earliest
 * instant).
 */
class WindowSetRateModelTest {

    private static final int SEEDS = 3_000;
    private static final int STEPS = 80;

    // ---- the models ----

    /** A reference model of one of the two algorithms under a configuration that can change. */
    private interface Model {
        boolean admits(long now, long n);

        void admit(long now, long n);

        void change(long now, long limit, long window);

        long limit();

        long window();

        /** Checks a property of an admission about to be recorded; throws if it fails. */
        default void checkSafe(long now, long n, String where) {
        }
    }

    /**
     * A permit: its true timestamp; the stamp the model dates it by and whether the model still
     * keeps it; whether the safety property still owes it (every change so far counted it by its
     * true timestamp).
     */
    private static final class Permit {
        final long truth;
        long stamp;
        boolean kept = true;
        boolean owed = true;

        Permit(long t) {
            this.truth = t;
            this.stamp = t;
        }
    }

    /** The sliding window at slot granularity, with the documented re-dating rule. */
    private static final class WindowModel implements Model {
        final int slots;
        long limit;
        long window;
        long slot;
        final List<Permit> permits = new ArrayList<>();

        WindowModel(long limit, long window, int slots) {
            this.slots = slots;
            set(limit, window);
        }

        private void set(long l, long w) {
            limit = l;
            window = w;
            slot = (w + slots - 1) / slots;
        }

        private boolean counts(long stamp, long now, long s) {
            return Math.floorDiv(stamp, s) > Math.floorDiv(now, s) - slots;
        }

        @Override
        public boolean admits(long now, long n) {
            long used = 0;
            for (Permit p : permits) {
                if (p.kept && counts(p.stamp, now, slot)) {
                    used++;
                }
            }
            return n <= limit && used + n <= limit;
        }

        @Override
        public void admit(long now, long n) {
            for (long i = 0; i < n; i++) {
                permits.add(new Permit(now));
            }
        }

        @Override
        public void change(long now, long l, long w) {
            for (Permit p : permits) {
                if (!counts(p.stamp, now, slot)) {
                    p.kept = false; // the old window had forgotten it: it stays forgotten
                }
                // The safety property's own bookkeeping: owed while the true timestamp counts.
                if (!counts(p.truth, now, slot)) {
                    p.owed = false;
                }
                p.stamp = Math.min((Math.floorDiv(p.stamp, slot) + 1) * slot - 1, now);
            }
            set(l, w);
        }

        @Override
        public void checkSafe(long now, long n, String where) {
            long truly = 0;
            for (Permit p : permits) {
                if (p.owed && counts(p.truth, now, slot)) {
                    truly++;
                }
            }
            if (truly + n > limit) {
                fail(where + ": admits " + n + " with " + truly + " permits truly in the window of "
                        + limit);
            }
        }

        @Override
        public long limit() {
            return limit;
        }

        @Override
        public long window() {
            return window;
        }
    }

    /** The whole sliding log: every timestamp the old window still counted, however many. */
    private static final class LogModel implements Model {
        long limit;
        long window;
        final List<Long> stamps = new ArrayList<>();

        LogModel(long limit, long window) {
            this.limit = limit;
            this.window = window;
        }

        @Override
        public boolean admits(long now, long n) {
            long used = stamps.stream().filter(t -> t > now - window).count();
            return n <= limit && used + n <= limit;
        }

        @Override
        public void admit(long now, long n) {
            for (long i = 0; i < n; i++) {
                stamps.add(now);
            }
        }

        @Override
        public void change(long now, long l, long w) {
            stamps.removeIf(t -> t <= now - window);
            limit = l;
            window = w;
        }

        @Override
        public long limit() {
            return limit;
        }

        @Override
        public long window() {
            return window;
        }
    }

    // ---- the runs ----

    @Test
    void slidingWindow_randomAcquiresAndRateChanges_decideAndWaitExactlyAsTheModel() throws Exception {
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int slots = new int[] {1, 2, 3, 4, 7, 10}[random.nextInt(6)];
            long limit = 1 + random.nextInt(20);
            long window = randomWindow(random);
            SlidingWindow algorithm = SlidingWindow.builder().limit(limit).window(Duration.ofNanos(window))
                    .slots(slots).build();
            run(seed, random, algorithm, new WindowModel(limit, window, slots), 25);
        }
    }

    @Test
    void slidingLog_randomAcquiresAndRateChanges_decideAndWaitExactlyAsTheWholeLog() throws Exception {
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            long limit = 1 + random.nextInt(30);
            long window = randomWindow(random);
            run(seed, random, SlidingLog.of(limit, Duration.ofNanos(window)), new LogModel(limit, window), 40);
        }
    }

    /** A window of 1 to 50 ms plus an odd number of nanoseconds, so that slots rarely divide it. */
    private static long randomWindow(SplittableRandom random) {
        return (1 + random.nextInt(50)) * 1_000_000L + random.nextInt(1_000);
    }

    private static void run(int seed, SplittableRandom random, Algorithm<?> algorithm, Model model,
            int maxLimit) throws InterruptedException {
        FakeClock clock = new FakeClock(1_767_225_600_000_000_000L + random.nextLong(1_000_000_000L));
        BlockingLimiter<?> limiter = BlockingLimiter.of(algorithm, clock, clock::advanceNanos);
        List<String> trace = new ArrayList<>();
        for (int step = 0; step < STEPS; step++) {
            long now = clock.nanos();
            String where = algorithm.kind() + " seed " + seed + " step " + step + " " + trace;
            int op = random.nextInt(100);
            if (op < 35) {
                long n = 1 + random.nextInt((int) Math.min(model.limit() + 2, 8));
                boolean expected = model.admits(now, n);
                trace.add("try(" + n + ")@" + now);
                assertEquals(expected, limiter.tryAcquire(n), where);
                if (expected) {
                    model.checkSafe(now, n, where);
                    model.admit(now, n);
                }
            } else if (op < 50) {
                long n = 1 + random.nextInt((int) Math.min(model.limit(), 6));
                trace.add("acquire(" + n + ")@" + now);
                long waited = limiter.acquire(n).toNanos();
                long at = now + waited;
                assertEquals(at, clock.nanos(), where);
                assertTrue(model.admits(at, n), where + ": admitted after " + waited + " ns");
                assertTrue(waited == 0 || !model.admits(at - 1, n), where + ": waited " + waited + " ns, 1 ns too long");
                model.checkSafe(at, n, where);
                model.admit(at, n);
            } else if (op < 58) {
                long n = 1 + random.nextInt((int) Math.min(model.limit(), 6));
                long timeout = random.nextLong(model.window());
                trace.add("try(" + n + "," + timeout + ")@" + now);
                boolean admitted = limiter.tryAcquire(n, Duration.ofNanos(timeout));
                long at = clock.nanos();
                if (admitted) {
                    assertTrue(at - now <= timeout && model.admits(at, n), where);
                    assertTrue(at == now || !model.admits(at - 1, n), where);
                    model.checkSafe(at, n, where);
                    model.admit(at, n);
                } else {
                    assertFalse(model.admits(now + timeout, n), where + ": refused within the timeout");
                }
            } else if (op < 82) {
                long advance = switch (random.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> random.nextLong(1 + model.window() / 4);
                    case 2 -> random.nextLong(2 * model.window());
                    default -> {
                        long unit = 1 + random.nextLong(model.window());
                        yield unit - Math.floorMod(now, unit) - 1 + random.nextInt(3);
                    }
                };
                trace.add("+" + advance);
                clock.advanceNanos(advance);
            } else if (op < 96) {
                long limit = 1 + random.nextInt(maxLimit);
                long window = random.nextBoolean() ? model.window() : randomWindow(random);
                trace.add("setRate(" + limit + "/" + window + ")@" + now);
                limiter.setRate(Rate.of(limit, Duration.ofNanos(window)));
                model.change(now, limit, window);
                assertEquals(Rate.of(limit, Duration.ofNanos(window)), limiter.rate(), where);
            } else {
                double perSecond = (1 + random.nextInt(40)) * 125.0;
                long window = model.window();
                long limit = new BigDecimal(perSecond).multiply(BigDecimal.valueOf(window))
                        .divide(BigDecimal.valueOf(1_000_000_000L), 0, RoundingMode.FLOOR).longValueExact();
                trace.add("setRate(" + perSecond + "/s)@" + now);
                if (limit < 1) {
                    Rate before = limiter.rate();
                    String message = assertThrows(IllegalArgumentException.class, () -> limiter.setRate(perSecond),
                            where).getMessage();
                    assertTrue(message.startsWith("permitsPerSecond must give at least 1 permit per "), message);
                    assertEquals(before, limiter.rate(), where + ": a refused change changes nothing");
                } else {
                    limiter.setRate(perSecond);
                    model.change(now, limit, window);
                    assertEquals(Rate.of(limit, Duration.ofNanos(window)), limiter.rate(), where);
                }
            }
        }
    }
}
