package io.github.sluice.redis.internal;

import io.github.sluice.core.Algorithm;
import java.util.Arrays;

/**
 * How one algorithm runs in the Lua script: its kind (the script's dispatch key), its parameters
 * converted to integer microseconds once, and how to build the smaller algorithm that a local
 * fallback uses while Redis is down.
 *
 * <p>Immutable and thread-safe.
 */
public abstract class Binding {

    /** Parameters per policy in the script's argument layout. */
    public static final int PARAMS = 5;
    /** Arguments per policy: kind, cost, the parameters, and the receipt a refund carries. */
    public static final int STRIDE = 3 + PARAMS;
    /** Where, from a policy's first argument, the receipt of the admission a refund undoes goes. */
    public static final int RECEIPT = 2 + PARAMS;
    /** The receipt argument of a call that carries none (an acquisition, a lease's release). */
    public static final String NO_RECEIPT = "-";
    /** The longest duration the in-memory algorithms accept (their {@code Checks.MAX_NANOS}). */
    static final long MAX_NANOS = 1L << 61;

    private final Algorithm<?> algorithm;
    private final String kind;
    private final String[] params;

    /**
     * @param algorithm the in-memory algorithm this binding mirrors
     * @param params integer parameters (microseconds or counts), at most {@link #PARAMS}
     */
    protected Binding(Algorithm<?> algorithm, long... params) {
        if (params.length > PARAMS) {
            throw new IllegalArgumentException("at most " + PARAMS + " parameters but was " + params.length);
        }
        this.algorithm = algorithm;
        this.kind = algorithm.kind();
        this.params = new String[PARAMS];
        Arrays.fill(this.params, "0");
        for (int i = 0; i < params.length; i++) {
            this.params[i] = Long.toString(Micros.checked(kind + " parameter " + (i + 1), params[i]));
        }
    }

    /** @return the algorithm */
    public final Algorithm<?> algorithm() {
        return algorithm;
    }

    /** @return the script's dispatch key: the algorithm's kind */
    public final String kind() {
        return kind;
    }

    /** @return {@code true} for a concurrency limit, whose permits are leases */
    public final boolean concurrency() {
        return algorithm.concurrency();
    }

    /**
     * @return {@code true} if an acquisition needs a unique request id (a concurrency lease, or
     *     the members of a sliding log)
     */
    public boolean needsRequestId() {
        return false;
    }

    /**
     * @return how long a denied request may wait for a permit (a concurrency limit's bounded
     *     wait), nanoseconds; {@code 0} for no wait
     */
    public long maxWaitNanos() {
        return 0;
    }

    /** @return {@code true} if a denial may be cached until its retry-after */
    public boolean cacheDenials() {
        return !concurrency();
    }

    /**
     * Writes this policy's {@link #STRIDE} arguments, with no receipt (a refund then sets the
     * receipt at {@link #RECEIPT}).
     *
     * @param argv the argument array
     * @param offset where this policy's arguments start
     * @param cost the cost
     * @param leaseId the lease id for a concurrency limit, else ignored
     * @param first the index of the lease's first member, else ignored
     */
    public void fill(String[] argv, int offset, long cost, String leaseId, long first) {
        argv[offset] = kind;
        argv[offset + 1] = Long.toString(cost);
        System.arraycopy(params, 0, argv, offset + 2, PARAMS);
        argv[offset + RECEIPT] = NO_RECEIPT;
    }

    /**
     * Builds the algorithm a local fallback runs on one of {@code instances} instances: the same
     * kind with its limit (and rate) divided by the number of instances, at least one permit.
     *
     * @param instances the number of instances sharing the limit, {@code >= 1}
     * @return the smaller algorithm
     */
    public abstract Algorithm<?> scaled(int instances);

    /**
     * Divides a permit count among instances, keeping at least one.
     *
     * @param permits the shared count
     * @param instances the number of instances
     * @return {@code max(1, permits / instances)}
     */
    protected static long share(long permits, int instances) {
        return Math.max(1, permits / instances);
    }

    /**
     * Multiplies an interval by the number of instances, saturating at the longest duration the
     * algorithms accept.
     *
     * @param nanos an interval
     * @param instances the number of instances
     * @return the longer interval, nanoseconds
     */
    protected static long stretch(long nanos, int instances) {
        return nanos > MAX_NANOS / instances ? MAX_NANOS : nanos * instances;
    }

    @Override
    public String toString() {
        return "Binding{" + kind + ", params=" + Arrays.toString(params) + '}';
    }
}
