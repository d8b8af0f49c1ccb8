package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives an algorithm and its reference model through the same random workload and asserts that
 * every decision is identical.
 */
public final class ModelCheck {

    /** The 2026-01-01 epoch reading every run starts near. */
    public static final long START = 1_767_225_600_000_000_000L;

    /** One admitted acquisition or one release, for invariant checks. */
    public record Event(long time, long cost, boolean release) {
    }

    private ModelCheck() {
    }

    /**
     * Runs {@code ops} random operations on one key.
     *
     * @param algorithm the algorithm under test (a fresh cell is made at the start)
     * @param model the reference model, fresh
     * @param seed the workload's seed, reported on failure
     * @param ops the number of operations
     * @param unitNanos the algorithm's natural time unit
     * @param releaseShare the share of releases
     * @param <S> the cell type
     * @return the admitted acquisitions and the releases, in order
     */
    public static <S extends Cell> List<Event> run(Algorithm<S> algorithm, Model model, long seed,
            int ops, long unitNanos, double releaseShare) {
        Workload workload = new Workload(seed, unitNanos, algorithm.limit(), releaseShare);
        long now = START + Math.floorMod(workload.random().nextLong(), 3 * unitNanos);
        S cell = algorithm.newCell(now);
        MutableDecision out = new MutableDecision();
        List<Event> events = new ArrayList<>();
        int admissions = 0;
        int denials = 0;
        for (int i = 0; i < ops; i++) {
            workload.next(now);
            now += workload.step();
            long cost = workload.cost();
            if (workload.op() == Workload.Op.RELEASE) {
                algorithm.release(cell, now, cost);
                model.release(now, cost);
                events.add(new Event(now, cost, true));
                continue;
            }
            Decision expected = model.acquire(now, cost);
            int result = algorithm.acquire(cell, now, cost, out);
            Decision actual = out.toDecision();
            final int op = i;
            final long t = now;
            assertEquals(expected, actual, () -> "seed " + seed + ", operation " + op + " at "
                    + (t - START) + " ns after start, cost " + cost + ", " + algorithm);
            assertEquals(expected.allowed(), result == Algorithm.ADMITTED, "result code");
            if (expected.allowed()) {
                admissions++;
            } else {
                denials++;
            }
            if (expected.allowed() && cost > 0) {
                events.add(new Event(now, cost, false));
            }
        }
        // A workload that never reaches the limit, or never frees it, would prove little.
        int acquisitions = admissions + denials;
        int a = admissions;
        int d = denials;
        assertTrue(a > acquisitions / 10 && d > acquisitions / 10,
                () -> "unbalanced workload: " + a + " admitted, " + d + " denied");
        return events;
    }
}
