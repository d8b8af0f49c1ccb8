package io.github.sluice.limiter;

/**
 * A small transcription of Guava's {@code SmoothRateLimiter} (bursty and warming up) including
 * its {@code setRate} / {@code doSetRate}, in doubles, in nanoseconds since the model's start,
 * never truncating to whole time units: the reference that {@link BlockingLimiter#setRate} is
 * compared with in {@link SetRateTest}. Written from Guava's published arithmetic; not Guava's
 * code.
 */
final class GuavaSetRateModel {

    private final boolean warmingUp;
    private final double maxBurstNanos;
    private final double warmupPeriod;
    private final double coldFactor;

    private double stableInterval;
    private double maxPermits;
    private double thresholdPermits;
    private double slope;
    private double storedPermits;
    private double nextFree;

    private GuavaSetRateModel(boolean warmingUp, double maxBurstNanos, double warmupPeriod, double coldFactor) {
        this.warmingUp = warmingUp;
        this.maxBurstNanos = maxBurstNanos;
        this.warmupPeriod = warmupPeriod;
        this.coldFactor = coldFactor;
    }

    /** Guava's {@code RateLimiter.create(permitsPerSecond)} with {@code maxBurstSeconds}, at time 0. */
    static GuavaSetRateModel bursty(double permitsPerSecond, double maxBurstNanos) {
        GuavaSetRateModel m = new GuavaSetRateModel(false, maxBurstNanos, 0, 0);
        m.setRate(permitsPerSecond, 0);
        return m;
    }

    /** Guava's {@code RateLimiter.create(permitsPerSecond, warmupPeriod, unit, coldFactor)}, at time 0. */
    static GuavaSetRateModel warmingUp(double permitsPerSecond, double warmupNanos, double coldFactor) {
        GuavaSetRateModel m = new GuavaSetRateModel(true, 0, warmupNanos, coldFactor);
        m.setRate(permitsPerSecond, 0);
        return m;
    }

    /** Guava's {@code setRate}: resync under the old rate, then {@code doSetRate}. */
    void setRate(double permitsPerSecond, double now) {
        resync(now);
        stableInterval = 1e9 / permitsPerSecond;
        double oldMaxPermits = maxPermits;
        if (warmingUp) {
            double coldInterval = stableInterval * coldFactor;
            thresholdPermits = 0.5 * warmupPeriod / stableInterval;
            maxPermits = thresholdPermits + 2.0 * warmupPeriod / (stableInterval + coldInterval);
            slope = (coldInterval - stableInterval) / (maxPermits - thresholdPermits);
            if (oldMaxPermits == Double.POSITIVE_INFINITY) {
                storedPermits = 0.0;
            } else {
                storedPermits = oldMaxPermits == 0.0 ? maxPermits : storedPermits * maxPermits / oldMaxPermits;
            }
        } else {
            maxPermits = maxBurstNanos / stableInterval;
            if (oldMaxPermits == Double.POSITIVE_INFINITY) {
                storedPermits = maxPermits;
            } else {
                storedPermits = oldMaxPermits == 0.0 ? 0.0 : storedPermits * maxPermits / oldMaxPermits;
            }
        }
    }

    private double coolDownInterval() {
        return warmingUp ? warmupPeriod / maxPermits : stableInterval;
    }

    private void resync(double now) {
        if (now > nextFree) {
            storedPermits = Math.min(maxPermits, storedPermits + (now - nextFree) / coolDownInterval());
            nextFree = now;
        }
    }

    private double permitsToTime(double permits) {
        return stableInterval + permits * slope;
    }

    private double storedPermitsToWaitTime(double stored, double toTake) {
        if (!warmingUp) {
            return 0;
        }
        double above = stored - thresholdPermits;
        double wait = 0;
        if (above > 0) {
            double take = Math.min(above, toTake);
            wait = take * (permitsToTime(above) + permitsToTime(above - take)) / 2.0;
            toTake -= take;
        }
        return wait + stableInterval * toTake;
    }

    /** Guava's {@code reserve(permits)} at {@code now}: the wait, before the permits' own cost. */
    double reserve(double now, long permits) {
        resync(now);
        double moment = nextFree;
        double spend = Math.min(permits, storedPermits);
        double fresh = permits - spend;
        nextFree += storedPermitsToWaitTime(storedPermits, spend) + fresh * stableInterval;
        storedPermits -= spend;
        return Math.max(0, moment - now);
    }

    /** Guava's {@code storedPermits} as of {@code now}, without changing the state. */
    double storedPermits(double now) {
        return now > nextFree ? Math.min(maxPermits, storedPermits + (now - nextFree) / coolDownInterval())
                : storedPermits;
    }
}
