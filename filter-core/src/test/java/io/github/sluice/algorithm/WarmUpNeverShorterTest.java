package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Warm-up decisions against Guava's {@code SmoothWarmingUp} evaluated in exact double arithmetic
 * (nanoseconds, no truncation to whole units), <em>from the same state</em>: before every request
 * of a random sequence, Guava's pair ({@code nextFreeTicket}, {@code storedPermits}) is set to
 * Sluice's ticket and credit; then Sluice's charge (how far the request pushes the next ticket)
 * must be within a microsecond of Guava's and never smaller, and the credit it leaves never
 * smaller than Guava's (more credit is a colder, slower key). Both directions err on the side of
 * waiting. (Over a whole sequence the two schedules can part by more: Guava's next ticket is up to
 * a nanosecond per permit earlier, so its key idles, and cools, that much longer.)
 */
class WarmUpNeverShorterTest {

    private static final long S = 1_000_000_000L;
    private static final long START = 1_767_225_600_000_000_000L;
    /** Doubles at these magnitudes are exact to far below a nanosecond. */
    private static final double EPSILON = 1e-3;

    /** Guava's SmoothWarmingUp: one decision from a given state, in exact doubles. */
    private static final class ExactGuava {
        final double stable;
        final double threshold;
        final double maxPermits;
        final double slope;
        final double coolDown;
        double stored;
        double next;

        ExactGuava(long permits, long period, long warmUp, double coldFactor) {
            stable = (double) period / permits;
            double cold = stable * coldFactor;
            threshold = 0.5 * warmUp / stable;
            maxPermits = threshold + 2.0 * warmUp / (stable + cold);
            slope = (cold - stable) / (maxPermits - threshold);
            coolDown = warmUp / maxPermits;
        }

        /** Reserves at {@code now}; returns how far the next free ticket moved past {@code max(now, next)}. */
        double charge(double now, long permits) {
            if (now > next) {
                stored = Math.min(maxPermits, stored + (now - next) / coolDown);
                next = now;
            }
            double spend = Math.min(permits, stored);
            double wait = (permits - spend) * stable;
            double above = stored - threshold;
            double toSpend = spend;
            if (above > 0) {
                double take = Math.min(above, toSpend);
                wait += take * (stable + above * slope + stable + (above - take) * slope) / 2;
                toSpend -= take;
            }
            wait += stable * toSpend;
            next += wait;
            stored -= spend;
            return wait;
        }
    }

    @Test
    void reserve_fromTheSameStateAsGuava_neverChargesLessNorLeavesTheKeyWarmer() {
        SplittableRandom random = new SplittableRandom(1414);
        int compared = 0;
        for (int config = 0; config < 3_000; config++) {
            long permits = 1 + random.nextLong(200);
            long period = random.nextBoolean() ? S
                    : permits * (1 + random.nextLong(S / permits)) + random.nextLong(permits);
            long warmUp = 1 + random.nextLong(10 * S);
            double coldFactor = random.nextInt(4) == 0 ? 3.0 : 1 + random.nextInt(2_000) / 7.0;
            WarmUp algorithm = WarmUp.builder().rate(Rate.of(permits, Duration.ofNanos(period)))
                    .warmUp(Duration.ofNanos(warmUp)).coldFactor(coldFactor).build();
            ExactGuava guava = new ExactGuava(permits, period, warmUp, coldFactor);
            WarmUpCell cell = algorithm.newCell(START);
            MutableDecision out = new MutableDecision();
            long t = 0;
            for (int i = 0; i < 40; i++) {
                long cost = 1 + random.nextLong(4);
                // Guava's state := Sluice's (the credit is idle time: storedPermits = credit / coolDown)
                long ticket = cell.word() - START;
                guava.next = ticket;
                guava.stored = cell.stored() / guava.coolDown;
                double expected = guava.charge(t, cost);
                double expectedCredit = guava.stored * guava.coolDown;

                assertEquals(Algorithm.ADMITTED, algorithm.reserve(cell, START + t, cost, Long.MAX_VALUE, out));
                long actual = out.receipt() - START - Math.max(t, ticket);
                String at = algorithm + ", request " + i + " of " + cost + " at +" + t + " ns";
                assertTrue(actual >= expected - EPSILON && actual <= expected + 1_000,
                        at + ": charged " + actual + " ns, Guava " + expected);
                assertTrue(cell.stored() >= expectedCredit - EPSILON,
                        at + ": left " + cell.stored() + " ns of credit, Guava " + expectedCredit);
                compared++;
                // The caller sleeps its wait, then sometimes idles a little or a lot.
                t = Math.max(t, ticket) + switch (random.nextInt(3)) {
                    case 0 -> 0;
                    case 1 -> random.nextLong(algorithm.intervalNanos() * 2 + 1);
                    default -> random.nextLong(warmUp + 1);
                };
            }
        }
        assertEquals(120_000, compared);
    }
}
