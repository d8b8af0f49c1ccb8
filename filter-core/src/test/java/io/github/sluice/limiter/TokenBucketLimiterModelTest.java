package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.RateLimiterModel;
import io.github.sluice.testing.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The standalone limiter against x/time/rate transcribed as a model: random allows, reservations
 * (with and without a maximum wait), cancellations of random earlier reservations, waits with a
 * deadline, and runtime changes of rate and burst, at random times.
 */
class TokenBucketLimiterModelTest {

    private static final Duration[] PERIODS = {
        Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofMillis(7), Duration.ofMinutes(1)};

    private record Pair(Reservation actual, RateLimiterModel.Res expected) {
    }

    @ParameterizedTest
    @ValueSource(longs = {51, 52, 53})
    void randomOperations_decideAsXTimeRate(long seed) throws InterruptedException {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock();
        long permits = 1 + random.nextInt(20);
        Duration period = PERIODS[random.nextInt(PERIODS.length)];
        long burst = 1 + random.nextInt(20);
        TokenBucketLimiter limiter = TokenBucketLimiter.of(
                TokenBucket.builder().rate(Rate.of(permits, period)).burst(burst).build(), clock, clock::advanceNanos);
        RateLimiterModel model = new RateLimiterModel(interval(permits, period), burst, clock.nanos());
        Workload workload = new Workload(seed, interval(permits, period), burst, 0);
        List<Pair> reservations = new ArrayList<>();
        int granted = 0;
        int refused = 0;

        for (int i = 0; i < 100_000; i++) {
            workload.next(clock.nanos());
            clock.advanceNanos(workload.step());
            long now = clock.nanos();
            long n = Math.min(workload.cost(), 3 * model.burst());
            String where = "seed " + seed + ", operation " + i;
            int op = random.nextInt(100);
            if (op < 40) {
                boolean ok = model.allowN(now, n);
                assertEquals(ok, limiter.allow(n), where + ": allow " + n);
                if (ok) {
                    granted++;
                } else {
                    refused++;
                }
            } else if (op < 60) {
                boolean bounded = random.nextBoolean();
                long maxWait = bounded ? (long) (random.nextDouble() * 3 * interval(permits, period))
                        : RateLimiterModel.MAX_WAIT;
                Reservation r = bounded ? limiter.reserve(n, Duration.ofNanos(maxWait))
                        : limiter.reserve(n);
                RateLimiterModel.Res expected = model.reserveN(now, n, maxWait);
                assertEquals(expected.ok(), r.ok(), where + ": reserve " + n);
                if (expected.ok()) {
                    assertEquals(expected.timeToAct(), r.timeToActNanos(), where + ": time to act");
                    reservations.add(new Pair(r, expected));
                }
            } else if (op < 75) {
                if (!reservations.isEmpty()) {
                    Pair p = reservations.remove(random.nextInt(reservations.size()));
                    p.actual().cancel();
                    model.cancelAt(now, p.expected());
                }
            } else if (op < 85) {
                long deadline = now + (long) (random.nextDouble() * 3 * interval(permits, period));
                RateLimiterModel.Res expected = model.reserveN(now, n, deadline - now);
                assertEquals(expected.ok(), limiter.waitUntil(n, deadline), where + ": wait " + n);
                if (expected.ok()) {
                    assertEquals(expected.timeToAct(), clock.nanos(), where + ": woke at");
                }
            } else if (op < 90) {
                permits = 1 + random.nextInt(20);
                period = PERIODS[random.nextInt(PERIODS.length)];
                limiter.setRate(Rate.of(permits, period));
                model.setLimitAt(now, interval(permits, period));
            } else if (op < 95) {
                long newBurst = 1 + random.nextInt(20);
                limiter.setBurst(newBurst);
                model.setBurstAt(now, newBurst);
            }
            assertEquals(model.tokens(clock.nanos()), limiter.tokens(), where + ": tokens");
            if (reservations.size() > 1000) {
                reservations.subList(0, 500).clear();
            }
        }
        assertTrue(granted > 1000 && refused > 1000, granted + " granted, " + refused + " refused");
    }

    /** The documented interval: the period divided by the permits, rounded up. */
    private static long interval(long permits, Duration period) {
        return (period.toNanos() + permits - 1) / permits;
    }
}
