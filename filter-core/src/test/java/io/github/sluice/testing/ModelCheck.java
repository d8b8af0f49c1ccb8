package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Drives an algorithm and its reference model through the same random workload and asserts that
 * every decision is identical. Refunds undo earlier admissions chosen at random, often the latest
 * (as all-or-nothing evaluation does) and sometimes one made long before, after the key's state
 * has moved on: the algorithm refunds with the admission's receipt, the model with its own record
 * of what that admission took.
 */
public final class ModelCheck {

    /** The 2026-01-01 epoch reading every run starts near. */
    public static final long START = 1_767_225_600_000_000_000L;

    /**
     * One admitted acquisition (with its receipt) or one release, for invariant checks.
     *
     * @param time the clock reading
     * @param cost permits
     * @param release {@code true} for a release
     * @param receipt the admission's receipt; {@link MutableDecision#NO_RECEIPT} for a release
     */
    public record Event(long time, long cost, boolean release, long receipt) {
    }

    /** An admission that may still be refunded. */
    private record Held(int call, long cost, long receipt, int event) {
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
     * @param releaseShare the share of refunds (releases, for a concurrency limit)
     * @param <S> the cell type
     * @return the admissions that were not refunded, and the releases, in order
     */
    public static <S extends Cell> List<Event> run(Algorithm<S> algorithm, Model model, long seed,
            int ops, long unitNanos, double releaseShare) {
        Workload workload = new Workload(seed, unitNanos, algorithm.limit(), releaseShare);
        Random random = workload.random();
        long now = START + Math.floorMod(random.nextLong(), 3 * unitNanos);
        S cell = algorithm.newCell(now);
        MutableDecision out = new MutableDecision();
        List<Event> events = new ArrayList<>();
        List<Boolean> refunded = new ArrayList<>();
        List<Held> held = new ArrayList<>();
        int admissions = 0;
        int denials = 0;
        int calls = 0;
        for (int i = 0; i < ops; i++) {
            workload.next(now);
            now += workload.step();
            long cost = workload.cost();
            final long t = now;
            if (workload.op() == Workload.Op.RELEASE) {
                if (algorithm.concurrency()) {
                    algorithm.release(cell, now, cost);
                    model.release(now, cost);
                    events.add(new Event(now, cost, true, MutableDecision.NO_RECEIPT));
                    refunded.add(false);
                } else if (!held.isEmpty()) {
                    int pick = random.nextInt(4) != 0 ? held.size() - 1 - random.nextInt(Math.min(3, held.size()))
                            : random.nextInt(held.size());
                    Held h = held.remove(pick);
                    Clock frozen = () -> t;
                    algorithm.refund(cell, h.cost(), h.receipt(), frozen);
                    model.refund(now, h.cost(), h.call());
                    refunded.set(h.event(), true);
                }
                continue;
            }
            Decision expected = model.acquire(now, cost);
            int call = calls++;
            int result = algorithm.acquire(cell, now, cost, out);
            Decision actual = out.toDecision();
            final int op = i;
            assertEquals(expected, actual, () -> "seed " + seed + ", operation " + op + " at "
                    + (t - START) + " ns after start, cost " + cost + ", " + algorithm);
            assertEquals(expected.allowed(), result == Algorithm.ADMITTED, "result code");
            if (expected.allowed()) {
                admissions++;
            } else {
                denials++;
            }
            if (expected.allowed() && cost > 0) {
                held.add(new Held(call, cost, out.receipt(), events.size()));
                events.add(new Event(now, cost, false, out.receipt()));
                refunded.add(false);
            }
        }
        // A workload that never reaches the limit, or never frees it, would prove little.
        int acquisitions = admissions + denials;
        int a = admissions;
        int d = denials;
        assertTrue(a > acquisitions / 10 && d > acquisitions / 10,
                () -> "unbalanced workload: " + a + " admitted, " + d + " denied");
        List<Event> kept = new ArrayList<>();
        for (int e = 0; e < events.size(); e++) {
            if (!refunded.get(e)) {
                kept.add(events.get(e));
            }
        }
        return kept;
    }
}
