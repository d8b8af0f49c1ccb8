package io.github.sluice.algorithm;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import java.math.BigInteger;

/**
 * Reference model of the policing leaky bucket, written as the Funnel of the Redis article: free
 * space ({@code leftQuota}) refilled by the leak since the last pour, capped at the capacity.
 * Quantities are exact fractions of a unit kept as {@link BigInteger} numerators over the leak
 * interval, so nothing is rounded before the final report.
 */
final class FunnelModel {

    private final BigInteger capacity;
    private final BigInteger interval;
    /** Free space, in units times {@code interval} (so one unit leaks per nanosecond of this). */
    private BigInteger leftQuota;
    private long leakingTs;

    FunnelModel(long capacity, long intervalNanos, long now) {
        this.capacity = BigInteger.valueOf(capacity);
        this.interval = BigInteger.valueOf(intervalNanos);
        this.leftQuota = this.capacity.multiply(interval);
        this.leakingTs = now;
    }

    private void makeSpace(long now) {
        BigInteger full = capacity.multiply(interval);
        leftQuota = leftQuota.add(BigInteger.valueOf(now - leakingTs)).min(full);
        leakingTs = now;
    }

    /** Pours {@code quota} units; returns the decision this model expects. */
    Decision watering(long quota, long now) {
        makeSpace(now);
        BigInteger full = capacity.multiply(interval);
        BigInteger need = BigInteger.valueOf(quota).multiply(interval);
        long remaining = leftQuota.divide(interval).longValueExact();
        long water = full.subtract(leftQuota).longValueExact();
        if (quota > capacity.longValueExact()) {
            return new Decision(Outcome.DENIED, capacity.longValueExact(), remaining, water,
                    Decision.NEVER, 0);
        }
        if (leftQuota.compareTo(need) < 0) {
            long wait = need.subtract(leftQuota).longValueExact();
            return new Decision(Outcome.DENIED, capacity.longValueExact(), remaining, water, wait, 0);
        }
        leftQuota = leftQuota.subtract(need);
        return new Decision(Outcome.ALLOWED, capacity.longValueExact(),
                leftQuota.divide(interval).longValueExact(),
                full.subtract(leftQuota).longValueExact(), 0, 0);
    }

    /**
     * Takes back out the {@code quota} units poured at {@code pouredAt}, less what leaked since
     * (that water has left, and what is in the funnel now may be later pours'); the funnel never
     * holds less than nothing.
     */
    void refund(long quota, long pouredAt, long now) {
        makeSpace(now);
        BigInteger full = capacity.multiply(interval);
        BigInteger back = BigInteger.valueOf(quota).multiply(interval)
                .subtract(BigInteger.valueOf(now - pouredAt));
        if (back.signum() > 0) {
            leftQuota = leftQuota.add(back).min(full);
        }
    }
}
