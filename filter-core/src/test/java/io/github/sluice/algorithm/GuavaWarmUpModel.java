package io.github.sluice.algorithm;

/**
 * A plain transcription of Guava's {@code SmoothRateLimiter.SmoothWarmingUp}, with doubles exactly
 * as Guava computes, but counting time in nanoseconds where Guava counts microseconds (so that its
 * truncations to whole time units do not hide differences of less than a microsecond). Drives
 * Guava's blocking {@code acquire}: reserve now, sleep until the reserved moment.
 */
final class GuavaWarmUpModel {

    private final double stableInterval;
    private final double thresholdPermits;
    private final double maxPermits;
    private final double slope;
    private final long warmupPeriod;

    private double storedPermits;
    private long nextFreeTicket;
    private long now;

    GuavaWarmUpModel(double permitsPerSecond, long warmupPeriodNanos, double coldFactor, long start) {
        this.warmupPeriod = warmupPeriodNanos;
        this.stableInterval = 1e9 / permitsPerSecond;
        double coldInterval = stableInterval * coldFactor;
        this.thresholdPermits = 0.5 * warmupPeriod / stableInterval;
        this.maxPermits = thresholdPermits + 2.0 * warmupPeriod / (stableInterval + coldInterval);
        this.slope = (coldInterval - stableInterval) / (maxPermits - thresholdPermits);
        this.storedPermits = maxPermits; // Guava's initial state is cold
        this.now = start;
        this.nextFreeTicket = start;
    }

    private double coolDownInterval() {
        return warmupPeriod / maxPermits;
    }

    private void resync() {
        if (now > nextFreeTicket) {
            double newPermits = (now - nextFreeTicket) / coolDownInterval();
            storedPermits = Math.min(maxPermits, storedPermits + newPermits);
            nextFreeTicket = now;
        }
    }

    private double permitsToTime(double permits) {
        return stableInterval + permits * slope;
    }

    private long storedPermitsToWaitTime(double stored, double permitsToTake) {
        double availablePermitsAboveThreshold = stored - thresholdPermits;
        long nanos = 0;
        if (availablePermitsAboveThreshold > 0.0) {
            double permitsAboveThresholdToTake = Math.min(availablePermitsAboveThreshold, permitsToTake);
            double length = permitsToTime(availablePermitsAboveThreshold)
                    + permitsToTime(availablePermitsAboveThreshold - permitsAboveThresholdToTake);
            nanos = (long) (permitsAboveThresholdToTake * length / 2.0);
            permitsToTake -= permitsAboveThresholdToTake;
        }
        nanos += (long) (stableInterval * permitsToTake);
        return nanos;
    }

    /** Guava's {@code acquire(permits)}: returns the time slept, in nanoseconds. */
    long acquire(int permits) {
        resync();
        long momentAvailable = nextFreeTicket;
        double storedPermitsToSpend = Math.min(permits, storedPermits);
        double freshPermits = permits - storedPermitsToSpend;
        long wait = storedPermitsToWaitTime(storedPermits, storedPermitsToSpend)
                + (long) (freshPermits * stableInterval);
        nextFreeTicket = nextFreeTicket + wait;
        storedPermits -= storedPermitsToSpend;
        long sleep = Math.max(momentAvailable - now, 0);
        now += sleep;
        return sleep;
    }

    /** The caller does something else for a while. */
    void sleep(long nanos) {
        now += nanos;
    }
}
