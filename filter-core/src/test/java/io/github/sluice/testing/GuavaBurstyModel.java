package io.github.sluice.testing;

/**
 * A plain transcription of Guava's {@code SmoothRateLimiter.SmoothBursty} in double arithmetic,
 * counting time in nanoseconds since the model's start (so that doubles keep sub-nanosecond
 * precision) and never truncating to whole time units: the exact reference that Sluice's
 * {@code smooth-bursty} must match within a microsecond and never undercut.
 */
public final class GuavaBurstyModel {

    private final double stableInterval;
    private double maxPermits;
    private double storedPermits;
    private double nextFree;

    /**
     * @param permits permits per period
     * @param periodNanos the period
     * @param maxBurstNanos Guava's {@code maxBurstSeconds}, in nanoseconds
     */
    public GuavaBurstyModel(long permits, long periodNanos, long maxBurstNanos) {
        this.stableInterval = (double) periodNanos / permits;
        this.maxPermits = maxBurstNanos / stableInterval;
    }

    private void resync(long now) {
        if (now > nextFree) {
            storedPermits = Math.min(maxPermits, storedPermits + (now - nextFree) / stableInterval);
            nextFree = now;
        }
    }

    /** Guava's {@code reserve}: the wait before the permits, charged to the next request. */
    public double reserve(long now, long permits) {
        resync(now);
        double moment = nextFree;
        double spend = Math.min(permits, storedPermits);
        double fresh = permits - spend;
        nextFree += fresh * stableInterval;
        storedPermits -= spend;
        return Math.max(0, moment - now);
    }

    /** Guava's {@code canAcquire(now, timeout)}: {@code nextFree - timeout <= now}. */
    public boolean canAcquire(long now, long timeoutNanos) {
        return nextFree - timeoutNanos <= now;
    }

    /** @return how far past {@code now} the next free moment is (negative if earlier) */
    public double due(long now) {
        return nextFree - now;
    }

    /** Guava's {@code storedPermits} after a resync at {@code now}, without changing the state. */
    public double storedPermits(long now) {
        return now > nextFree ? Math.min(maxPermits, storedPermits + (now - nextFree) / stableInterval)
                : storedPermits;
    }

    /** @return the stable interval, nanoseconds */
    public double stableInterval() {
        return stableInterval;
    }
}
