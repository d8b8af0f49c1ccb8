package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exact rational schedule of the one-word algorithms (token bucket, GCRA, policing leaky
 * bucket): a rate such as 7 per minute keeps 7 per 60 s forever instead of losing a fraction of a
 * nanosecond per permit to an interval rounded up. Checked two ways: against reference models in
 * unbounded rational arithmetic ({@link BigInteger} instants, no wrapping), on a clock anchored in
 * 2026 so that the words in ticks wrap around; and as the property itself, the k-th permit of a
 * greedy client at exactly {@code ceil(k * period / permits)}.
 */
class ExactScheduleTest {

    private static final long START = 1_767_225_600_000_000_000L;
    private static final long NEVER = Decision.NEVER;

    static Stream<Arguments> rates() {
        return Stream.of(
                Arguments.of(Rate.perMinute(7)),
                Arguments.of(Rate.perSecond(3)),
                Arguments.of(Rate.perHour(13)),
                Arguments.of(Rate.of(11, Duration.ofMillis(7))),
                Arguments.of(Rate.of(1000, Duration.ofSeconds(3))),
                Arguments.of(Rate.perSecond(1021)),
                Arguments.of(Rate.of(3, Duration.ofNanos(10))),
                // A reduced denominator above 1024: the interval rounded up, as documented.
                Arguments.of(Rate.perSecond(1031)));
    }

    /** The exact interval {@code p / n} ns in lowest terms, or the rounded one beyond 1024. */
    private static long[] fraction(Rate rate) {
        long g = BigInteger.valueOf(rate.periodNanos()).gcd(BigInteger.valueOf(rate.permits())).longValueExact();
        long p = rate.periodNanos() / g;
        long n = rate.permits() / g;
        if (n > 1024) {
            return new long[] {(rate.periodNanos() + rate.permits() - 1) / rate.permits(), 1};
        }
        return new long[] {p, n};
    }

    private static BigInteger big(long v) {
        return BigInteger.valueOf(v);
    }

    private static long ceilNanos(BigInteger ticks, long n) {
        BigInteger[] qr = ticks.divideAndRemainder(big(n));
        return qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0);
    }

    private static long floorDiv(BigInteger a, long b) {
        return a.signum() <= 0 ? 0 : a.divide(big(b)).longValueExact();
    }

    /** One algorithm's reference: decides into {@code out} and updates its rational state. */
    private interface Reference {
        boolean decide(long now, long cost, MutableDecision out);
    }

    /** x/time/rate's bucket with an exact base: tokens = (now - base) / (p / n), capped at the burst. */
    private static Reference tokenBucket(long p, long n, long burst) {
        BigInteger cap = big(burst).multiply(big(p));
        BigInteger[] base = {big(START).multiply(big(n)).subtract(cap)};
        return (now, cost, out) -> {
            BigInteger nowT = big(now).multiply(big(n));
            BigInteger floor = nowT.subtract(cap);
            BigInteger eff = base[0].max(floor);
            long remaining = floorDiv(nowT.subtract(eff), p);
            long reset = ceilNanos(eff.subtract(floor), n);
            if (cost > burst) {
                out.deny(burst, remaining, reset, NEVER);
                return false;
            }
            BigInteger next = eff.add(big(cost).multiply(big(p)));
            if (next.compareTo(nowT) > 0) {
                out.deny(burst, remaining, reset, ceilNanos(next.subtract(nowT), n));
                return false;
            }
            base[0] = next;
            out.allow(burst, floorDiv(nowT.subtract(next), p), ceilNanos(next.subtract(floor), n));
            return true;
        };
    }

    /** redis-cell's GCRA with an exact emission interval p / n. */
    private static Reference gcra(long p, long n, long burst) {
        BigInteger tol = big(burst + 1).multiply(big(p));
        BigInteger[] tatBox = {big(START).multiply(big(n))};
        return (now, cost, out) -> {
            BigInteger nowT = big(now).multiply(big(n));
            BigInteger tat = tatBox[0].max(nowT);
            BigInteger ttl = tat.subtract(nowT);
            long remaining = floorDiv(tol.subtract(ttl), p);
            if (cost > burst + 1) {
                out.deny(burst + 1, remaining, ceilNanos(ttl, n), NEVER);
                return false;
            }
            BigInteger newTat = tat.add(big(cost).multiply(big(p)));
            BigInteger early = newTat.subtract(tol).subtract(nowT);
            if (early.signum() > 0) {
                out.deny(burst + 1, remaining, ceilNanos(ttl, n), ceilNanos(early, n));
                return false;
            }
            tatBox[0] = newTat;
            BigInteger left = newTat.subtract(nowT);
            out.allow(burst + 1, floorDiv(tol.subtract(left), p), ceilNanos(left, n));
            return true;
        };
    }

    /** The policing leaky bucket with an exact leak interval p / n. */
    private static Reference leaky(long p, long n, long capacity) {
        BigInteger depth = big(capacity).multiply(big(p));
        BigInteger[] emptyAt = {big(START).multiply(big(n))};
        return (now, cost, out) -> {
            BigInteger nowT = big(now).multiply(big(n));
            BigInteger level = emptyAt[0].subtract(nowT).max(BigInteger.ZERO);
            long free = floorDiv(depth.subtract(level), p);
            if (cost > capacity) {
                out.deny(capacity, free, ceilNanos(level, n), NEVER);
                return false;
            }
            BigInteger after = level.add(big(cost).multiply(big(p)));
            if (after.compareTo(depth) > 0) {
                out.deny(capacity, free, ceilNanos(level, n), ceilNanos(after.subtract(depth), n));
                return false;
            }
            emptyAt[0] = nowT.add(after);
            out.allow(capacity, floorDiv(depth.subtract(after), p), ceilNanos(after, n));
            return true;
        };
    }

    private static void compare(Algorithm<Cell> algorithm, Reference reference, long intervalNanos, long burst,
            long seed) {
        Random random = new Random(seed);
        Cell cell = algorithm.newCell(START);
        MutableDecision actual = new MutableDecision();
        MutableDecision expected = new MutableDecision();
        long now = START;
        int admitted = 0;
        int refused = 0;
        for (int i = 0; i < 20_000; i++) {
            int jump = random.nextInt(100);
            if (jump == 0) {
                now += (long) (random.nextDouble() * 5 * burst * intervalNanos); // idle: refills
            } else {
                now += (long) (random.nextDouble() * intervalNanos * 1.2);
            }
            long cost = random.nextInt(10) == 0 ? random.nextInt((int) Math.min(burst + 3, 50)) : 1;
            boolean ok = reference.decide(now, cost, expected);
            int result = algorithm.acquire(cell, now, cost, actual);
            String where = algorithm + ", seed " + seed + ", step " + i + ", cost " + cost;
            assertEquals(ok ? Algorithm.ADMITTED : Algorithm.DENIED, result, where);
            assertEquals(expected.remaining(), actual.remaining(), where + ": remaining");
            assertEquals(expected.resetNanos(), actual.resetNanos(), where + ": reset");
            if (!ok) {
                assertEquals(expected.retryAfterNanos(), actual.retryAfterNanos(), where + ": retry-after");
                refused++;
            } else {
                admitted++;
            }
        }
        assertTrue(admitted > 1000 && refused > 1000, admitted + " admitted, " + refused + " refused");
    }

    @ParameterizedTest
    @MethodSource("rates")
    void tokenBucket_randomTraffic_decidesAsTheRationalModel(Rate rate) {
        long[] f = fraction(rate);
        for (long burst : new long[] {1, 4}) {
            TokenBucket tb = TokenBucket.builder().rate(rate).burst(burst).build();
            compare(tb, tokenBucket(f[0], f[1], burst), tb.intervalNanos(), burst, burst);
        }
    }

    @ParameterizedTest
    @MethodSource("rates")
    void gcra_randomTraffic_decidesAsTheRationalModel(Rate rate) {
        long[] f = fraction(rate);
        for (long burst : new long[] {0, 3}) {
            Gcra g = Gcra.builder().rate(rate).burst(burst).build();
            compare(g, gcra(f[0], f[1], burst), g.emissionIntervalNanos(), burst + 1, burst);
        }
    }

    @ParameterizedTest
    @MethodSource("rates")
    void leakyBucket_randomTraffic_decidesAsTheRationalModel(Rate rate) {
        long[] f = fraction(rate);
        for (long capacity : new long[] {1, 5}) {
            LeakyBucket l = LeakyBucket.builder().rate(rate).capacity(capacity).build();
            compare(l, leaky(f[0], f[1], capacity), l.intervalNanos(), capacity, capacity);
        }
    }

    /**
     * The attack on rounding: a client that asks at every instant it would be admitted. With the
     * interval rounded up, 7/min admits its k-th request 4k/7 ns late, so the schedule drifts and
     * a request per minute is eventually lost; exact, the k-th is at {@code ceil(k * 60 s / 7)}
     * and every minute holds exactly 7, forever. (The bucket must be able to hold the fraction a
     * client asking at whole nanoseconds leaves: a bucket of one token is full whenever that
     * client asks, and drops it, as x/time/rate's does. So the burst here is 2.)
     */
    @ParameterizedTest
    @MethodSource("rates")
    void greedyClient_kthPermitAtExactlyCeilOfKIntervals(Rate rate) {
        long[] f = fraction(rate);
        if (f[1] == 1 && rate.periodNanos() % rate.permits() != 0) {
            return; // the documented rounded fallback has no exact schedule to check
        }
        java.util.List<Algorithm<Cell>> algorithms = java.util.List.of(
                TokenBucket.builder().rate(rate).burst(2).build(),
                Gcra.builder().rate(rate).burst(1).build(),
                LeakyBucket.builder().rate(rate).capacity(2).build());
        for (Algorithm<Cell> algorithm : algorithms) {
            Cell cell = algorithm.newCell(START);
            MutableDecision out = new MutableDecision();
            assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, START, 2, out), algorithm + ": the burst");
            for (long k = 1; k <= 20_000; k++) {
                long due = START + BigInteger.valueOf(k).multiply(big(rate.periodNanos()))
                        .add(big(rate.permits() - 1)).divide(big(rate.permits())).longValueExact();
                assertEquals(Algorithm.DENIED, algorithm.acquire(cell, due - 1, 1, out),
                        algorithm + ": permit " + k + " one nanosecond early");
                assertEquals(1L, out.retryAfterNanos(), algorithm + ": retry-after " + k);
                assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, due, 1, out),
                        algorithm + ": permit " + k + " when due");
            }
        }
    }

    /**
     * Ticks wrap modulo 2^64 (at N = 1021, every 2^54 ns, about 208 days, of idleness): whatever a key's idle time,
     * the next instant never admits more than a full burst, and almost always (outside the argued
     * misread window of probability (window + slack) / 2^64) exactly a full burst.
     */
    @ParameterizedTest
    @MethodSource("wrapping")
    void idleBeyondTheWrapHorizon_neverMoreThanAFullBurst(Algorithm<Cell> algorithm, long burst) {
        Random random = new Random(7);
        MutableDecision out = new MutableDecision();
        long now = START;
        Cell cell = algorithm.newCell(now);
        int full = 0;
        for (int i = 0; i < 100; i++) {
            while (algorithm.acquire(cell, now, 1, out) == Algorithm.ADMITTED) {
                // drain the bucket, so that the key is busy when it goes idle
            }
            now += (long) (random.nextDouble() * (1L << 56)); // up to 4 times the wrap horizon
            int admitted = 0;
            while (algorithm.acquire(cell, now, 1, out) == Algorithm.ADMITTED) {
                admitted++;
                assertTrue(admitted <= burst, algorithm + ": more than a full burst after idle time " + i);
            }
            if (admitted == burst) {
                full++;
            }
        }
        assertTrue(full >= 98, algorithm + ": full after idling " + full + " times out of 100");
    }

    static Stream<Arguments> wrapping() {
        Rate rate = Rate.perSecond(1021);
        return Stream.of(
                Arguments.of(TokenBucket.builder().rate(rate).burst(4).build(), 4L),
                Arguments.of(Gcra.builder().rate(rate).burst(3).build(), 4L),
                Arguments.of(LeakyBucket.builder().rate(rate).capacity(4).build(), 4L));
    }

    /**
     * A thread that read the clock, then lost the processor while another admitted at a later
     * reading, decides with its older reading against the newer state: the word's instant is
     * after its "now" (a negative wrapping difference), which must read as "not yet", not as a
     * wrapped-around idle key.
     */
    @ParameterizedTest
    @MethodSource("wrapping")
    void staleReading_afterANewerAdmission_isRefused(Algorithm<Cell> algorithm, long burst) {
        MutableDecision out = new MutableDecision();
        Cell cell = algorithm.newCell(START);
        long later = START + 5_000_000L;
        assertEquals(Algorithm.ADMITTED, algorithm.acquire(cell, later, burst, out));
        assertEquals(Algorithm.DENIED, algorithm.acquire(cell, START, 1, out), algorithm + ": stale reading");
        assertEquals(Algorithm.DENIED, algorithm.acquire(cell, later, 1, out), algorithm + ": at the later reading");
    }
}
