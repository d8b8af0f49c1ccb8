package io.github.sluice.adaptive;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import java.lang.reflect.Field;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Netflix's {@link VegasLimit}, made deterministic for the simulation. VegasLimit draws the
 * jitter of its next probe (how many requests, between 0.5x and 1x {@code probeMultiplier *
 * limit}, until it measures the latency without load again) from {@code ThreadLocalRandom},
 * which no one can seed, so its rows changed from run to run. This wrapper replaces that draw
 * with one from a seeded stream, at construction and after every probe (when VegasLimit resets
 * its probe count to 0), through reflection on the two private fields; the algorithm is
 * otherwise VegasLimit's own, unchanged, and the draw has the same distribution.
 */
final class SeededVegas implements Limit {

    private final VegasLimit delegate;
    private final SplittableRandom random;
    private final Field probeCount;
    private final Field probeJitter;
    private boolean drawn;

    SeededVegas(VegasLimit delegate, long seed) {
        this.delegate = delegate;
        this.random = new SplittableRandom(seed);
        try {
            probeCount = VegasLimit.class.getDeclaredField("probeCount");
            probeJitter = VegasLimit.class.getDeclaredField("probeJitter");
            probeCount.setAccessible(true);
            probeJitter.setAccessible(true);
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("VegasLimit changed: " + e.getMessage(), e);
        }
        redraw();
    }

    private void redraw() {
        try {
            probeJitter.setDouble(delegate, random.nextDouble(0.5, 1.0));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        drawn = true;
    }

    /** @return the jitter VegasLimit will probe with next (for the test of this wrapper) */
    double jitter() {
        try {
            return probeJitter.getDouble(delegate);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public int getLimit() {
        return delegate.getLimit();
    }

    @Override
    public void notifyOnChange(Consumer<Integer> consumer) {
        delegate.notifyOnChange(consumer);
    }

    @Override
    public void onSample(long startTime, long rtt, int inflight, boolean didDrop) {
        delegate.onSample(startTime, rtt, inflight, didDrop);
        int count;
        try {
            count = probeCount.getInt(delegate);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        if (count == 0 && !drawn) {
            redraw(); // VegasLimit just probed and drew a new jitter from ThreadLocalRandom
        } else if (count > 0) {
            drawn = false;
        }
    }
}
