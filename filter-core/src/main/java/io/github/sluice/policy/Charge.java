package io.github.sluice.policy;

import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * Which admitted requests a rate policy charges, by the status of their response: every one (the
 * default, {@link #ALWAYS}), only those whose status is listed ({@code count=401,403},
 * {@code count=4xx}), or all but those listed ({@code skip=5xx}).
 *
 * <h2>Checked before, charged after</h2>
 * A policy that counts by outcome decides each request as any other: a request is refused when the
 * key's quota is spent. An admitted request takes its permits as a <em>reservation</em>; when the
 * request ends, the reservation is kept if this charge {@linkplain #charges(int) charges} the
 * final status, and refunded otherwise, by the admission's receipt (the same exact refund that
 * undoes an admission another policy refused; see {@code io.github.sluice.store.KeySpace#refund}).
 * So requests in flight count against the quota until they end: N concurrent wrong passwords never
 * get more than the limit through, and a right password gives its permits back when it ends.
 *
 * <h2>Endings without a final status</h2>
 * <ul>
 *   <li>an exception that escaped the application counts as {@code 500}, unless the adapter saw a
 *       status already written (committed) to the client, which then counts;
 *   <li>a timeout counts as {@code 504};
 *   <li>a client abort (the client went away, a subscriber cancelled) and an ending whose status
 *       is unknown keep the reservation, whatever the policy says: hanging up never buys a free
 *       attempt (express-rate-limit also counts an aborted request as failed).
 * </ul>
 *
 * <p>Only rate policies count by outcome: a concurrency or adaptive policy gives its permits back
 * when the request ends, whatever its status, so {@code count=} and {@code skip=} are refused for
 * them at start-up; so are warm-up and shaping, which refund an admission only while no later
 * one was scheduled behind it (a request in flight would keep a right password's permits).
 *
 * <p>Immutable and thread-safe; {@link #charges(int)} allocates nothing.
 */
public final class Charge {

    /** Every admitted request is charged, whatever its status: the default. */
    public static final Charge ALWAYS = new Charge(null, false);

    /** The listed statuses, or {@code null} for {@link #ALWAYS}. */
    private final DropStatuses statuses;
    /** {@code true} for {@code skip=}: the listed statuses are the ones not charged. */
    private final boolean skip;

    private Charge(DropStatuses statuses, boolean skip) {
        this.statuses = statuses;
        this.skip = skip;
    }

    /**
     * Charges only the requests whose response has one of these statuses ({@code count=}).
     *
     * @param statuses statuses ({@code 401}) and classes ({@code 4xx}) separated by commas
     * @return the charge
     * @throws NullPointerException if {@code statuses} is null
     * @throws IllegalArgumentException naming the item if an item is neither a status between 100
     *     and 599 nor a class {@code 1xx} to {@code 5xx}, or if the text is empty or {@code none}
     *     (a policy that charges nothing limits nothing)
     */
    public static Charge count(String statuses) {
        Objects.requireNonNull(statuses, "statuses");
        if (statuses.strip().equalsIgnoreCase("none")) {
            throw new IllegalArgumentException("count must list the statuses that are charged (401, 4xx, ...) but "
                    + "was none, which would charge no request: remove the policy instead");
        }
        return new Charge(DropStatuses.parse(statuses, "count"), false);
    }

    /**
     * Charges only the requests whose response has one of these statuses ({@code count=}).
     *
     * @param statuses each between 100 and 599, at least one
     * @return the charge
     * @throws IllegalArgumentException if none is given or one is out of range
     */
    public static Charge count(int... statuses) {
        return count(join(statuses));
    }

    /**
     * Charges every request except those whose response has one of these statuses
     * ({@code skip=}); {@code none} is {@link #ALWAYS}.
     *
     * @param statuses statuses ({@code 503}) and classes ({@code 5xx}) separated by commas, or
     *     {@code none}
     * @return the charge
     * @throws NullPointerException if {@code statuses} is null
     * @throws IllegalArgumentException naming the item if an item is neither a status between 100
     *     and 599 nor a class {@code 1xx} to {@code 5xx}, or the text is empty
     */
    public static Charge skip(String statuses) {
        Objects.requireNonNull(statuses, "statuses");
        DropStatuses set = DropStatuses.parse(statuses, "skip");
        return set.isEmpty() ? ALWAYS : new Charge(set, true);
    }

    /**
     * Charges every request except those whose response has one of these statuses
     * ({@code skip=}).
     *
     * @param statuses each between 100 and 599, at least one
     * @return the charge
     * @throws IllegalArgumentException if none is given or one is out of range
     */
    public static Charge skip(int... statuses) {
        return skip(join(statuses));
    }

    /**
     * The rule an algorithm breaks by counting by outcome, with the value, or {@code null} if it
     * may: concurrency and adaptive policies give their permits back at the end anyway; warm-up and
     * shaping refund an admission only while no later one was scheduled behind it, so a request in
     * flight would keep the permits of a right password.
     */
    static String refusal(Algorithm<?> algorithm, Charge charge) {
        if (charge.always()) {
            return null;
        }
        String option = charge.skip ? "skip" : "count";
        if (algorithm.concurrency()) {
            return option + " applies to rate policies only, not to " + algorithm.kind()
                    + ": its permits come back when each request ends, whatever the status, but was " + charge;
        }
        if (algorithm instanceof WarmUp || algorithm instanceof ShapingLeakyBucket) {
            return option + " needs an algorithm that refunds a request whatever ran meanwhile (fixed-window, "
                    + "sliding-window, sliding-log, token-bucket, gcra, leaky-bucket, smooth-bursty), not "
                    + algorithm.kind() + ", but was " + charge;
        }
        return null;
    }

    private static String join(int... statuses) {
        StringJoiner j = new StringJoiner(",");
        for (int s : statuses) {
            j.add(Integer.toString(s));
        }
        return j.toString();
    }

    /** @return {@code true} if every admitted request is charged at once ({@link #ALWAYS}) */
    public boolean always() {
        return statuses == null;
    }

    /**
     * @param status a final HTTP status (any value; those outside 100..599 are in no list)
     * @return {@code true} if a request that ended with this status keeps its reservation
     */
    public boolean charges(int status) {
        return statuses == null || statuses.contains(status) != skip;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Charge c && c.skip == skip && Objects.equals(c.statuses, statuses);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(statuses) * 31 + (skip ? 1 : 0);
    }

    /** @return the option as written in the policy language, {@code count=401,403} or {@code skip=5xx}; {@code always} for {@link #ALWAYS} */
    @Override
    public String toString() {
        return statuses == null ? "always" : (skip ? "skip=" : "count=") + statuses;
    }
}
