package io.github.sluice.testing;

import java.util.Random;

/**
 * Random operations for model checks: time steps that are often zero or tiny, often land just
 * before, on or after a boundary of the algorithm's time unit, sometimes span several units, and
 * rarely jump a long way; costs that are often 0 or 1, sometimes up to the limit, sometimes above
 * it.
 */
public final class Workload {

    /** Kind of operation. */
    public enum Op {
        /** Acquire {@link #cost()} permits. */
        ACQUIRE,
        /** Release {@link #cost()} permits. */
        RELEASE
    }

    private final Random random;
    private final long unit;
    private final long limit;
    private final double releaseShare;

    private Op op;
    private long step;
    private long cost;

    /**
     * @param seed the random seed (print it on failure)
     * @param unitNanos the algorithm's natural time unit (interval, window, slot), {@code >= 1}
     * @param limit the algorithm's limit (burst, quota), {@code >= 1}
     * @param releaseShare the share of operations that are releases, in {@code [0, 1]}
     */
    public Workload(long seed, long unitNanos, long limit, double releaseShare) {
        this.random = new Random(seed);
        this.unit = unitNanos;
        this.limit = limit;
        this.releaseShare = releaseShare;
    }

    /**
     * Draws the next operation; read it with {@link #op()}, {@link #step()}, {@link #cost()}.
     *
     * @param now the clock reading before the step, so that steps can land on epoch boundaries
     */
    public void next(long now) {
        op = random.nextDouble() < releaseShare ? Op.RELEASE : Op.ACQUIRE;
        step = nextStep(now);
        cost = nextCost();
    }

    /** @return the underlying random source, for extra choices made by a test */
    public Random random() {
        return random;
    }

    /** @return the kind of the current operation */
    public Op op() {
        return op;
    }

    /** @return nanoseconds to advance the clock before the current operation, {@code >= 0} */
    public long step() {
        return step;
    }

    /** @return the cost of the current operation, {@code >= 0} */
    public long cost() {
        return cost;
    }

    private long nextStep(long now) {
        int r = random.nextInt(100);
        if (r < 35) {
            return 0;
        }
        if (r < 50) {
            return 1 + random.nextInt(1000);
        }
        long units = random.nextInt(3);
        long jitter = random.nextInt(5) - 2;
        if (r < 63) {
            // Just before, on, or just after an epoch-aligned boundary of the unit.
            long target = (Math.floorDiv(now, unit) + 1 + units) * unit + jitter;
            return Math.max(0, target - now);
        }
        if (r < 75) {
            // About a whole number of units after the previous operation.
            return Math.max(0, (1 + units) * unit + jitter);
        }
        if (r < 98) {
            return (long) (random.nextDouble() * 2.5 * unit);
        }
        // Rare long jumps: up to 1000 units, capped at a day.
        return Math.min(86_400_000_000_000L, (long) (random.nextDouble() * 1000 * unit));
    }

    private long nextCost() {
        int r = random.nextInt(100);
        if (r < 10) {
            return 0;
        }
        if (r < 60) {
            return 1;
        }
        if (r < 88) {
            return 1 + (long) (random.nextDouble() * limit);
        }
        if (r < 99) {
            return limit + 1 + (long) (random.nextDouble() * 2 * limit);
        }
        return Long.MAX_VALUE / (1 + random.nextInt(4));
    }
}
