package io.github.sluice.store;

/**
 * What a key keeps when its policy's limit changes at run time
 * ({@code Enforcer.reconfigure}, {@link Store#rebind}): the counterpart of Bucket4j's
 * {@code TokensInheritanceStrategy} for {@code replaceConfiguration}.
 *
 * <p>A key's state is carried over lazily, on the key's first request after the change, never in
 * a sweep at the change: the old state is first advanced to that moment under the <em>old</em>
 * parameters (what the old policy says the key has used and has left), then a fresh state of the
 * new policy is charged with what the strategy carries. The new state then runs under the new
 * parameters only; for a token bucket that is the rule of {@code x/time/rate}'s {@code SetLimitAt}
 * and Guava's {@code setRate}: advance under the old rate, then switch.
 *
 * <p>With {@code c} the permits the key had used of the old limit {@code L0} (so
 * {@code r = L0 - c} were left) and {@code L1} the new limit, the key starts the new policy
 * having used:
 * <table>
 *   <caption>strategies</caption>
 *   <tr><th>strategy</th><th>used of {@code L1}</th><th>Bucket4j</th></tr>
 *   <tr><td>{@link #KEEP_CONSUMED}</td><td>{@code min(c, L1)}</td><td>{@code ADDITIVE}</td></tr>
 *   <tr><td>{@link #KEEP_REMAINING}</td><td>{@code L1 - min(r, L1)}</td><td>{@code AS_IS}</td></tr>
 *   <tr><td>{@link #PROPORTIONAL}</td><td>{@code L1 - floor(r * L1 / L0)}</td><td>{@code PROPORTIONALLY}</td></tr>
 *   <tr><td>{@link #RESET}</td><td>0 (every key starts fresh)</td><td>{@code RESET}</td></tr>
 * </table>
 * A key that had used nothing of the old limit (its whole quota back, or never seen) starts the new
 * one as a key never seen, whatever the strategy. A key idle across several changes inherits
 * through each of them in turn, so, with every strategy but {@link #RESET}, no sequence of changes
 * leaves a key more than it had left plus the sum of the raises (with {@link #KEEP_CONSUMED}: a
 * key that had used {@code c} has used {@code min(c, L1, ..., Ln)}); docs/operations.md, "What a
 * change promises, precisely", states it in full.
 *
 * <p>A concurrency limit ({@code concurrency}) always keeps its permits in flight, whatever the
 * strategy: they are held by requests that are running, and forgetting them would let more than
 * the new limit run at once.
 *
 * <p>Immutable.
 */
public enum Inheritance {

    /**
     * A key keeps the permits it has used: a client that had used 30 of 100 has 70 left under a
     * limit of 100 and 20 left under a limit of 50. Raising a limit gives every key the
     * difference at once; lowering it takes the difference away. The default: no key gains from a
     * change more than the change itself gives.
     */
    KEEP_CONSUMED,

    /**
     * A key keeps the permits it has left, at most the new limit: a client that had 70 of 100 left
     * has 70 left under a limit of 200 and 50 under a limit of 50.
     */
    KEEP_REMAINING,

    /**
     * A key keeps the same fraction of its limit, rounded down: 70 of 100 left becomes 35 of 50.
     */
    PROPORTIONAL,

    /** Every key starts fresh under the new policy; the old state is forgotten at once. */
    RESET;

    /**
     * The permits a key starts a new limit having used, by this strategy.
     *
     * @param oldLimit the old limit {@code L0}, {@code >= 1}
     * @param remaining what was left of it, clamped into {@code [0, oldLimit]}
     * @param newLimit the new limit {@code L1}, {@code >= 1}
     * @return the permits used of {@code newLimit}, in {@code [0, newLimit]}
     */
    long carried(long oldLimit, long remaining, long newLimit) {
        long left = Math.max(0, Math.min(remaining, oldLimit));
        long used = oldLimit - left;
        return switch (this) {
            case KEEP_CONSUMED -> Math.min(used, newLimit);
            case KEEP_REMAINING -> newLimit - Math.min(left, newLimit);
            case PROPORTIONAL -> newLimit - scaled(left, newLimit, oldLimit);
            case RESET -> 0;
        };
    }

    /** {@code floor(a * b / c)} for {@code 0 <= a <= c}, exact where the product fits in a long. */
    private static long scaled(long a, long b, long c) {
        if (Math.multiplyHigh(a, b) == 0 && a * b >= 0) {
            return a * b / c;
        }
        return Math.min(b, (long) Math.floor((double) a / c * b));
    }
}
