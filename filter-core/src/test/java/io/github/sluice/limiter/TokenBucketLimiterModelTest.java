package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.XRateModel;
import io.github.sluice.testing.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The standalone limiter against x/time/rate transcribed as a model with exact fractions (the exact schedule): random allows, reservations
 * (with and without a maximum wait), cancellations of random earlier reservations, waits with a
 * deadline, and runtime changes of rate and burst, at random times.
 */
class TokenBucketLimiterModelTest {

    private static final Duration[] PERIODS = {
        Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofMillis(7), Duration.ofMinutes(1)};

    private record Pair(Reservation actual, XRateModel.Res expected) {
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
        long[] exact = reduced(permits, period);
        XRateModel model = new XRateModel(exact[0], exact[1], false, burst, clock.nanos());
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
                        : XRateModel.MAX_WAIT;
                Reservation r = bounded ? limiter.reserve(n, Duration.ofNanos(maxWait))
                        : limiter.reserve(n);
                XRateModel.Res expected = model.reserveN(now, n, maxWait);
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
                XRateModel.Res expected = model.reserveN(now, n, deadline - now);
                assertEquals(expected.ok(), limiter.waitUntil(n, deadline), where + ": wait " + n);
                if (expected.ok()) {
                    assertEquals(expected.timeToAct(), clock.nanos(), where + ": woke at");
                }
            } else if (op < 89) {
                permits = 1 + random.nextInt(20);
                period = PERIODS[random.nextInt(PERIODS.length)];
                limiter.setRate(Rate.of(permits, period));
                exact = reduced(permits, period);
                model.setLimitAt(now, exact[0], exact[1], false);
            } else if (op < 90) {
                // x/time/rate's limit of 0 (refills stop) or Inf (everything passes), briefly.
                boolean inf = random.nextBoolean();
                limiter.setRate(inf ? TokenBucketLimiter.INF : 0);
                model.setLimitAt(now, exact[0], 0, inf);
            } else if (op < 95) {
                long newBurst = 1 + random.nextInt(20);
                limiter.setBurst(newBurst);
                model.setBurstAt(now, newBurst);
            }
            assertEquals(model.tokens(clock.nanos()), limiter.tokens(), where + ": tokens");
            assertEquals(model.tokensAt(clock.nanos()), limiter.tokensAt(clock.nanos()), 1e-9, where + ": tokensAt");
            if (reservations.size() > 1000) {
                reservations.subList(0, 500).clear();
            }
        }
        assertTrue(granted > 1000 && refused > 1000, granted + " granted, " + refused + " refused");
    }

    /** The exact interval, {@code period / permits} in lowest terms. */
    private static long[] reduced(long permits, Duration period) {
        long p = period.toNanos();
        long g = java.math.BigInteger.valueOf(p).gcd(java.math.BigInteger.valueOf(permits)).longValueExact();
        return new long[] {p / g, permits / g};
    }

    /** The interval rounded up, for the workload's pace. */
    private static long interval(long permits, Duration period) {
        return (period.toNanos() + permits - 1) / permits;
    }
}
