package io.github.sluice.adaptive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.netflix.concurrency.limits.limit.VegasLimit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The seeded wrapper that makes Netflix's VegasLimit deterministic in the simulation. */
class SeededVegasTest {

    /** Feeds samples of a steady 10 ms latency and returns the jitter after each probe, and the limits. */
    private static List<Double> drive(long seed, List<Integer> limits) {
        SeededVegas vegas = new SeededVegas(VegasLimit.newBuilder().initialLimit(20).maxConcurrency(500).build(), seed);
        List<Double> jitters = new ArrayList<>();
        jitters.add(vegas.jitter());
        long now = 0;
        for (int i = 0; i < 20_000; i++) {
            now += 1_000_000;
            vegas.onSample(now, 10_000_000L, vegas.getLimit(), false);
            if (vegas.jitter() != jitters.get(jitters.size() - 1)) {
                jitters.add(vegas.jitter());
            }
            limits.add(vegas.getLimit());
        }
        return jitters;
    }

    @Test
    void seededVegas_sameSeed_probesAtTheSameRequestsEveryRun() {
        List<Integer> firstLimits = new ArrayList<>();
        List<Integer> secondLimits = new ArrayList<>();

        List<Double> first = drive(7, firstLimits);
        List<Double> second = drive(7, secondLimits);

        assertTrue(first.size() >= 3, "VegasLimit probed fewer than twice in 20,000 samples: " + first);
        assertEquals(first, second);
        assertEquals(firstLimits, secondLimits);
        for (double jitter : first) {
            assertTrue(jitter >= 0.5 && jitter < 1.0, "jitter out of VegasLimit's range: " + jitter);
        }
    }

    @Test
    void seededVegas_otherSeed_drawsOtherProbes() {
        assertNotEquals(drive(7, new ArrayList<>()), drive(8, new ArrayList<>()));
    }
}
