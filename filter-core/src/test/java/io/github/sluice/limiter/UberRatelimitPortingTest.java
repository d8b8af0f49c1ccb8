package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * uber-go/ratelimit's expectations, reproduced through Sluice's public API on a manual clock: a
 * {@code shaping} algorithm in a {@link BlockingLimiter} whose {@link BlockingLimiter#take()} is
 * uber-go's {@code Take()}. The cases are written here after what uber-go's own tests pin down
 * (rate, {@code Per}, {@code WithSlack}, {@code WithoutSlack}, delays after idling, many
 * goroutines), and a randomized test compares every returned instant with {@link UberLimiter}, a
 * transcription of uber-go's atomic-int64 ("state") limiter.
 */
class UberRatelimitPortingTest {

    private static final long MS = 1_000_000L;

    private final FakeClock clock = new FakeClock(1_000 * MS);
    private final List<Long> slept = Collections.synchronizedList(new ArrayList<>());
    private final TokenBucketLimiter.Sleeper sleeper = nanos -> {
        slept.add(nanos);
        clock.advanceNanos(nanos);
    };

    /**
     * uber-go's {@code New(rate, Per(per), WithSlack(slack))}; the max delay is long enough that,
     * as in uber-go, nothing is ever refused.
     */
    private static ShapingLeakyBucket uber(long rate, Duration per, long slack) {
        return ShapingLeakyBucket.builder().rate(Rate.of(rate, per)).slack(slack)
                .maxDelay(Duration.ofDays(1)).build();
    }

    private BlockingLimiter<?> limiter(long rate, long slack) {
        return BlockingLimiter.of(uber(rate, Duration.ofSeconds(1), slack), clock, sleeper);
    }

    /** Takes {@code n} times and returns the instants relative to {@code t0}, in ms. */
    private static List<Long> takes(BlockingLimiter<?> limiter, int n, long t0) throws InterruptedException {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long at = limiter.take();
            out.add((at - t0) / MS);
            assertEquals(0, (at - t0) % MS, "whole milliseconds at take " + i);
        }
        return out;
    }

    @Test
    void take_newLimiter_firstAtOnceThenOnePerInterval() throws Exception {
        // uber-go: a new limiter has banked no slack, whatever its slack option
        BlockingLimiter<?> limiter = limiter(100, 10);
        clock.advance(Duration.ofSeconds(5)); // created long before its first Take: still no slack
        long t0 = clock.nanos();

        assertEquals(List.of(0L, 10L, 20L, 30L, 40L), takes(limiter, 5, t0));
        assertEquals(List.of(10 * MS, 10 * MS, 10 * MS, 10 * MS), slept);
    }

    @Test
    void take_perMinute_spacesByThePeriodOverTheRate() throws Exception {
        // uber-go: New(6, Per(time.Minute)) -> one Take every 10 s
        BlockingLimiter<?> limiter = BlockingLimiter.of(uber(6, Duration.ofMinutes(1), 10), clock, sleeper);
        long t0 = clock.nanos();

        assertEquals(List.of(0L, 10_000L, 20_000L), takes(limiter, 3, t0));
    }

    /**
     * uber-go's {@code New(7)}: {@code perRequest = time.Second / 7}, truncated to 142,857,142 ns.
     * Sluice's {@code Rate.of(7, 1 s)} rounds the interval up to 142,857,143 ns (never closer than
     * the rate); uber-go's own truncated interval, passed as the rate, gives its instants exactly.
     */
    @Test
    void per_rateNotDividingThePeriod_roundsUpUnlessGivenUberGosTruncatedInterval() throws Exception {
        long uberInterval = Duration.ofSeconds(1).toNanos() / 7;
        assertEquals(142_857_142L, uberInterval);
        BlockingLimiter<?> rounded = BlockingLimiter.of(uber(7, Duration.ofSeconds(1), 0), clock, sleeper);
        long t0 = rounded.take();
        for (int k = 1; k <= 20; k++) {
            assertEquals(t0 + k * 142_857_143L, rounded.take(), "rounded up, take " + k);
        }
        BlockingLimiter<?> exact = BlockingLimiter.of(ShapingLeakyBucket.builder()
                .rate(Rate.of(1, Duration.ofNanos(uberInterval))).slack(0).maxDelay(Duration.ofDays(1)).build(),
                clock, sleeper);
        long e0 = exact.take();
        long e = 0;
        for (int k = 1; k <= 20; k++) {
            e = exact.take();
        }
        assertEquals(e0 + 20 * uberInterval, e, "uber-go's truncated interval: its instants");
    }

    @Test
    void newUnlimited_isSetRateInf_everyTakeAtOnce() throws Exception {
        BlockingLimiter<?> limiter = limiter(100, 10);
        limiter.setRate(BlockingLimiter.INF);
        long t0 = clock.nanos();
        for (int i = 0; i < 1000; i++) {
            assertEquals(t0, limiter.take());
        }
        assertEquals(List.of(), slept);
    }

    @Test
    void take_afterIdlingLessThanTheSlack_catchesUpTheIdleIntervalsAtOnce() throws Exception {
        BlockingLimiter<?> limiter = limiter(100, 10);
        long t0 = clock.nanos();
        limiter.take();

        // When it idles 50 ms (five intervals)
        clock.advance(Duration.ofMillis(50));

        // Then the five slots that fell behind are taken at once, and the next is spaced again
        assertEquals(List.of(50L, 50L, 50L, 50L, 50L, 60L, 70L), takes(limiter, 7, t0));
    }

    @Test
    void take_afterIdlingLong_burstsAtMostSlackPlusOne() throws Exception {
        for (long slack : new long[] {0, 1, 5, 10, 100}) {
            slept.clear();
            BlockingLimiter<?> limiter = limiter(100, slack);
            limiter.take();
            clock.advance(Duration.ofSeconds(10));
            long t0 = clock.nanos();

            List<Long> at = takes(limiter, (int) slack + 3, t0);

            // slack + 1 at once (the slack earned, and the slot that is due), then one per interval
            for (int i = 0; i <= slack; i++) {
                assertEquals(0L, at.get(i), "slack " + slack + ", take " + i);
            }
            assertEquals(List.of(10L, 20L), at.subList((int) slack + 1, (int) slack + 3), "slack " + slack);
        }
    }

    @Test
    void take_withoutSlack_spacesEveryTakeEvenAfterAPause() throws Exception {
        // uber-go: WithoutSlack
        BlockingLimiter<?> limiter = BlockingLimiter.of(Policy.parse("a = shaping 100/1s slack=0 max-delay=1d key=global")
                .algorithm(), clock, sleeper);
        long t0 = clock.nanos();
        assertEquals(List.of(0L, 10L), takes(limiter, 2, t0));
        clock.advance(Duration.ofMillis(1_000));

        assertEquals(List.of(1_010L, 1_020L, 1_030L), takes(limiter, 3, t0));
    }

    @Test
    void take_slowCaller_isNeverDelayedAndBanksNothingWithoutSlack() throws Exception {
        // A caller slower than the rate is never made to wait; without slack it gains no burst
        BlockingLimiter<?> limiter = limiter(100, 0);
        for (int i = 0; i < 5; i++) {
            long now = clock.nanos();
            assertEquals(now, limiter.take());
            clock.advance(Duration.ofMillis(15));
        }
        assertEquals(List.of(), slept);
        long t0 = clock.nanos();
        assertEquals(List.of(0L, 10L), takes(limiter, 2, t0));
    }

    @Test
    void take_earnedStart_keepsTheOldStartWithSlackAlreadyEarned() throws Exception {
        // Not uber-go: start=earned gives a new key its slack at once (idle keys evicted without loss)
        BlockingLimiter<?> limiter = BlockingLimiter.of(ShapingLeakyBucket.builder().rate(Rate.perSecond(100))
                .slack(2).maxDelay(Duration.ofDays(1)).start(ShapingLeakyBucket.Start.EARNED).build(), clock, sleeper);
        long t0 = clock.nanos();

        assertEquals(List.of(0L, 0L, 0L, 10L), takes(limiter, 4, t0));
    }

    @Test
    void take_manyThreadsTogether_eachGetsItsOwnSlotOneIntervalApart() throws Exception {
        // Given uber-go's many goroutines: 8 threads x 50 takes released together on a frozen clock
        int threads = 8;
        int each = 50;
        long per = 10 * MS;
        List<Long> naps = Collections.synchronizedList(new ArrayList<>());
        BlockingLimiter<?> limiter = BlockingLimiter.of(uber(100, Duration.ofSeconds(1), 10), clock, naps::add);
        long t0 = clock.nanos();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<Long>>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    List<Long> mine = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        mine.add(limiter.take());
                    }
                    return mine;
                }));
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> f : futures) {
                all.addAll(f.get(60, TimeUnit.SECONDS));
            }

            // Then the instants are exactly t0, t0 + per, ..., each given once: no two callers
            // share a slot, none is skipped, and the first needs no slack
            Collections.sort(all);
            for (int i = 0; i < threads * each; i++) {
                assertEquals(t0 + i * per, all.get(i), "slot " + i);
            }
            // And each thread's own takes come in order
            for (Future<List<Long>> f : futures) {
                List<Long> mine = f.get();
                for (int i = 1; i < mine.size(); i++) {
                    assertTrue(mine.get(i) > mine.get(i - 1));
                }
            }
            assertEquals(threads * each - 1, naps.size(), "every take but the first waited");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void take_randomCallsAgainstUbersStateLimiter_returnTheSameInstants() throws Exception {
        SplittableRandom random = new SplittableRandom(1414);
        for (int round = 0; round < 40; round++) {
            long per = switch (round % 4) {
                case 0 -> MS;
                case 1 -> 1_000_003;
                case 2 -> 7;
                default -> 250 * MS;
            };
            long slack = round % 5 == 0 ? 0 : random.nextLong(20);
            // A sleeper that sometimes oversleeps, as a real one does, to move the clock unevenly
            TokenBucketLimiter.Sleeper napper = nanos -> clock.advanceNanos(nanos
                    + (random.nextInt(4) == 0 ? random.nextLong(2 * per) : 0));
            BlockingLimiter<?> limiter = BlockingLimiter.of(ShapingLeakyBucket.builder()
                    .rate(Rate.of(1, Duration.ofNanos(per))).slack(slack)
                    .maxDelay(Duration.ofNanos(Long.MAX_VALUE / 8)).build(), clock, napper);
            UberLimiter model = new UberLimiter(per, slack);
            for (int i = 0; i < 2_000; i++) {
                long expected = model.take(clock.nanos());
                long actual = limiter.take();
                assertEquals(expected, actual, "round " + round + " (per " + per + ", slack " + slack
                        + "), take " + i);
                long step = switch (random.nextInt(5)) {
                    case 0 -> 0;
                    case 1 -> random.nextLong(per);
                    case 2 -> random.nextLong(3 * per);
                    case 3 -> random.nextLong((slack + 3) * per);
                    default -> random.nextInt(20) == 0 ? random.nextLong(100 * per) : 0;
                };
                clock.advanceNanos(step);
            }
        }
    }

    @Test
    void take_interruptedOnEntry_throwsAndTakesNothing() throws Exception {
        BlockingLimiter<?> limiter = limiter(100, 10);
        long t0 = clock.nanos();
        Thread.currentThread().interrupt();

        assertThrows(InterruptedException.class, limiter::take);
        assertFalse(Thread.interrupted(), "the flag is cleared, as Semaphore.acquire clears it");

        // Then the next take is the limiter's first: at once, no slot used up
        assertEquals(List.of(0L, 10L), takes(limiter, 2, t0));
    }

    @Test
    void take_interruptedWhileWaiting_givesItsSlotBack() throws Exception {
        boolean[] interrupt = {false};
        TokenBucketLimiter.Sleeper interruptible = nanos -> {
            if (interrupt[0]) {
                throw new InterruptedException("test");
            }
            clock.advanceNanos(nanos);
        };
        BlockingLimiter<?> limiter = BlockingLimiter.of(uber(100, Duration.ofSeconds(1), 10), clock, interruptible);
        long t0 = clock.nanos();
        limiter.take();

        // When the second take is interrupted while it waits for its slot at 10 ms
        interrupt[0] = true;
        assertThrows(InterruptedException.class, limiter::take);
        interrupt[0] = false;

        // Then that slot is given back: the next take gets it
        assertEquals(List.of(10L, 20L), takes(limiter, 2, t0));
    }

    @Test
    void take_costZeroOrNegative_isRefusedAsAcquireIs() {
        BlockingLimiter<?> limiter = limiter(100, 10);
        assertEquals("permits must be >= 1 but was 0 (Guava: 'Requested permits (0) must be positive')",
                assertThrows(IllegalArgumentException.class, () -> limiter.take(0)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> limiter.take(-1));
    }

    @Test
    void take_nPermits_occupyNConsecutiveSlots() throws Exception {
        BlockingLimiter<?> limiter = limiter(100, 10);
        long t0 = clock.nanos();
        assertEquals(t0, limiter.take(3));
        assertEquals(t0 + 30 * MS, limiter.take());
    }

    /**
     * uber-go/ratelimit's atomic-int64 limiter, transcribed: {@code state} is the time of the last
     * permission issued, zero for a limiter that has issued none. {@link #take} returns what
     * uber-go's {@code Take} returns for a call at {@code now}: the permission's time if it had to
     * sleep until then, else {@code now}.
     */
    static final class UberLimiter {
        private final long perRequest;
        private final long maxSlack;
        private long state;
        private boolean issued;

        UberLimiter(long perRequest, long slack) {
            this.perRequest = perRequest;
            this.maxSlack = slack * perRequest;
        }

        long take(long now) {
            long next;
            if (!issued || maxSlack == 0 && now - state > perRequest) {
                next = now;
            } else if (maxSlack > 0 && now - state > maxSlack + perRequest) {
                next = now - maxSlack;
            } else {
                next = state + perRequest;
            }
            state = next;
            issued = true;
            return next > now ? next : now;
        }
    }
}
