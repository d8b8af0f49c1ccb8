package io.github.sluice.redis.internal;

import io.github.sluice.core.MutableDecision;

/**
 * One policy's share of a script call: whose key, which binding, what cost, and, for a release or
 * a refund, which lease or receipt. A call writes its parts' bytes when the client sends it, on
 * the client's I/O thread, possibly after the request that made it has returned (a call that
 * timed out is still sent): so a part is filled in before the call is dispatched and never
 * changed afterwards.
 *
 * <p>Not thread-safe by itself; safely published by dispatching the call.
 */
public class Part {

    /** The policy's binding, or {@code null} for the probe's part. */
    public final Binding binding;
    /** What the Redis key starts with, {@code <prefix>:<policy>:}, or the whole key (the probe's). */
    public final KeyNames.Head head;
    /** Permits asked for, released or refunded. */
    public final long cost;
    /**
     * The client key, whose hash tag completes the Redis key after {@link #head} (hashed when the
     * call is written, {@link KeyNames#write}); {@code null} for a whole key.
     */
    public String key;
    /** The lease or request id, or {@code null}. */
    public String id;
    /** The index of the lease's first member. */
    public long first = 1;
    /** The receipt of the admission a refund undoes, or {@link MutableDecision#NO_RECEIPT}. */
    public long receipt = MutableDecision.NO_RECEIPT;
    /** Which call of the request this part goes in: parts of one group share a slot. */
    public int group;
    /**
     * The local clock's reading when the part was made, nanoseconds: the instant around which a
     * calendar window's bounds are sent ({@link Binding#encode}), whatever clock the script reads.
     */
    public long at;

    /**
     * @param binding the policy's binding, or {@code null} for the probe
     * @param head the key's head
     * @param cost the cost
     */
    public Part(Binding binding, KeyNames.Head head, long cost) {
        this.binding = binding;
        this.head = head;
        this.cost = cost;
    }
}
