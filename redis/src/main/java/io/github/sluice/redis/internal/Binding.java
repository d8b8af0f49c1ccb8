package io.github.sluice.redis.internal;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.netty.buffer.ByteBuf;
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
    private static final byte[] NONE = Resp.encoded(NO_RECEIPT);
    /** The longest duration the in-memory algorithms accept (their {@code Checks.MAX_NANOS}). */
    static final long MAX_NANOS = 1L << 61;

    private final Algorithm<?> algorithm;
    private final String kind;
    private final String[] params;
    /** The kind and the parameters, encoded once: a call copies their bytes. */
    private final byte[] kindBytes;
    private final byte[][] paramBytes;

    /**
     * @param algorithm the in-memory algorithm this binding mirrors
     * @param params integer parameters (microseconds or counts), at most {@link #PARAMS}
     */
    protected Binding(Algorithm<?> algorithm, long... params) {
        this(algorithm, algorithm.kind(), params);
    }

    /**
     * @param algorithm the in-memory algorithm this binding mirrors
     * @param kind the script's dispatch key, when a variant of the algorithm has its own entry
     * @param params integer parameters (microseconds or counts), at most {@link #PARAMS}
     */
    protected Binding(Algorithm<?> algorithm, String kind, long... params) {
        if (params.length > PARAMS) {
            throw new IllegalArgumentException("at most " + PARAMS + " parameters but was " + params.length);
        }
        this.algorithm = algorithm;
        this.kind = kind;
        this.params = new String[PARAMS];
        Arrays.fill(this.params, "0");
        for (int i = 0; i < params.length; i++) {
            this.params[i] = Long.toString(Micros.checked(kind + " parameter " + (i + 1), params[i]));
        }
        this.kindBytes = Resp.encoded(kind);
        this.paramBytes = new byte[PARAMS][];
        for (int i = 0; i < PARAMS; i++) {
            this.paramBytes[i] = Resp.encoded(this.params[i]);
        }
    }

    /** @return the algorithm */
    public final Algorithm<?> algorithm() {
        return algorithm;
    }

    /** @return the script's dispatch key: the algorithm's kind, or its variant's entry */
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
     * @return {@code true} if every acquisition sends the same parameters, whatever its time or
     *     request: a batch of such acquisitions on one key may send them once, then each cost
     *     (see {@link ScriptCall#batch})
     */
    public boolean sameParamsEveryCall() {
        return !needsRequestId() && !timeDependent();
    }

    /** @return {@code true} if {@link #writeParams} writes parameters that depend on the time */
    protected boolean timeDependent() {
        return false;
    }

    /**
     * Writes the kind, the cost and the fixed parameters, without a request id or a receipt: the
     * shared values of a compact batch ({@link #sameParamsEveryCall}).
     *
     * @param buf the call's buffer
     * @param cost the cost
     */
    final void encodeShared(ByteBuf buf, long cost) {
        buf.writeBytes(kindBytes);
        Resp.bulk(buf, cost);
        for (byte[] p : paramBytes) {
            buf.writeBytes(p);
        }
        buf.writeBytes(NONE);
    }

    /**
     * @return how long a denied request may wait for a permit (a concurrency limit's bounded
     *     wait), nanoseconds; {@code 0} for no wait
     */
    public long maxWaitNanos() {
        return 0;
    }

    /**
     * @return {@code true} if the script replies durations (reset, retry-after, delay) in
     *     nanoseconds, {@code false} for microseconds
     */
    public boolean nanosReply() {
        return false;
    }

    /** @return {@code true} if a denial may be cached until its retry-after */
    public boolean cacheDenials() {
        return !concurrency();
    }

    /**
     * Writes this policy's {@link #STRIDE} arguments into a call: its kind, the cost, the
     * parameters (for an algorithm that {@linkplain #needsRequestId() needs a request id}, the
     * third and fourth are the id and the index of its first member), and the receipt.
     *
     * @param buf the call's buffer
     * @param cost the cost
     * @param requestId the lease or request id, or {@code null} (written as {@code '-'})
     * @param first the index of the lease's first member, if there is an id
     * @param receipt the receipt of the admission a refund undoes, or
     *     {@link MutableDecision#NO_RECEIPT}
     * @param at the local clock's reading when the call was made, nanoseconds (for parameters
     *     that depend on it, see {@link #writeParams})
     */
    public final void encode(ByteBuf buf, long cost, String requestId, long first, long receipt, long at) {
        buf.writeBytes(kindBytes);
        Resp.bulk(buf, cost);
        if (writeParams(buf, at)) {
            writeReceipt(buf, receipt);
            return;
        }
        buf.writeBytes(paramBytes[0]);
        buf.writeBytes(paramBytes[1]);
        if (needsRequestId()) {
            if (requestId == null) {
                buf.writeBytes(NONE);
            } else {
                Resp.bulk(buf, requestId);
            }
            Resp.bulk(buf, first);
        } else {
            buf.writeBytes(paramBytes[2]);
            buf.writeBytes(paramBytes[3]);
        }
        buf.writeBytes(paramBytes[4]);
        writeReceipt(buf, receipt);
    }

    private static void writeReceipt(ByteBuf buf, long receipt) {
        if (receipt == MutableDecision.NO_RECEIPT) {
            buf.writeBytes(NONE);
        } else {
            Resp.bulk(buf, receipt);
        }
    }

    /**
     * Writes the {@link #PARAMS} parameters of a binding whose parameters depend on the time of
     * the call (a calendar window sends the bounds of the windows around {@code at}), instead of
     * the fixed ones. Must not allocate: it runs for every call, on the client's I/O thread.
     *
     * @param buf the call's buffer
     * @param at the local clock's reading when the call was made, nanoseconds
     * @return {@code true} if it wrote them; the default writes nothing and returns {@code false}
     */
    protected boolean writeParams(ByteBuf buf, long at) {
        return false;
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
