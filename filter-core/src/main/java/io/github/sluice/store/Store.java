package io.github.sluice.store;

import io.github.sluice.core.Algorithm;
import java.util.Objects;

/**
 * Where limiter state lives: the in-memory {@link ShardedRegistry}, or a shared store such as
 * Redis. Policies never know which; they hold a {@link KeySpace} per policy.
 *
 * <p>Implementations are thread-safe.
 */
public interface Store extends AutoCloseable {

    /**
     * Returns the key space of one policy, creating it on first use. Calling again with the same
     * name and an equal algorithm returns an equivalent key space sharing the same state.
     *
     * <p>Calling again with the same name and a <em>different</em> algorithm has one of two
     * behaviours, and each implementation must document which it has: it is refused with
     * {@link IllegalArgumentException} (the in-memory {@link ShardedRegistry} does this, since its
     * cells are shaped by their algorithm), or it is accepted as a policy change (say, on a
     * configuration reload): the new algorithm replaces the old one for that name, and whatever the
     * store cached for the old binding must no longer decide requests (the Redis store does this and
     * forgets its cached denials).
     *
     * @param name the policy's name ({@code [a-z0-9-]+})
     * @param algorithm the policy's algorithm
     * @return the key space, never {@code null}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the name or the algorithm is not acceptable to this
     *     store, or the name is already bound to a different algorithm and this store refuses
     *     rebinding
     */
    KeySpace keySpace(String name, Algorithm<?> algorithm);

    /**
     * Binds a policy whose algorithm changed at run time ({@code Enforcer.reconfigure}), and
     * returns the key space that decides it from now on. {@code current} keeps working for the
     * requests admitted by the old policy (their releases and refunds go to it), so a change never
     * loses or double-counts a permit held by a running request.
     *
     * <p>Whatever the store, a change keeps what {@link Inheritance} promises (docs/operations.md,
     * "What a change promises, precisely"): with every strategy but {@link Inheritance#RESET}, no
     * key is left more than it had left plus what the change raises, also across changes it
     * sleeps through; a store that cannot keep that for a change refuses it.
     *
     * <p>The default calls {@link #keySpace(String, Algorithm)} with the new algorithm, for a store
     * that accepts a rebinding as a policy change. The Redis store reads the shared state under the
     * new parameters as it is, which keeps the promise for the changes that cannot read a key's
     * state as more (docs/redis.md, "Policy changes": e.g. a token bucket's {@code 100/1m} to
     * {@code 200/1m}), and refuses the others (a slower GCRA rate, a window's length, another
     * algorithm) unless {@code inheritance} is {@code RESET}. The
     * in-memory {@link ShardedRegistry} carries each key's state over by {@code inheritance},
     * lazily, through every change the key skipped.
     *
     * @param current the policy's key space so far, from this store
     * @param algorithm the policy's new algorithm
     * @param inheritance what each key keeps of its state
     * @return the key space of the new algorithm; {@code current} if the algorithm is equal
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the store refuses the algorithm (e.g. the memory budget),
     *     or cannot keep the promise of {@code inheritance} for this change
     */
    default KeySpace rebind(KeySpace current, Algorithm<?> algorithm, Inheritance inheritance) {
        Objects.requireNonNull(current, "current");
        Objects.requireNonNull(inheritance, "inheritance");
        return current.algorithm().equals(Objects.requireNonNull(algorithm, "algorithm")) ? current
                : keySpace(current.name(), algorithm);
    }

    /**
     * Acquires every claim of a request's chain, all or nothing: either every claim is admitted,
     * or the permits taken are given back before this method returns. Every claim's decision is
     * written; after the first denial the remaining claims are only peeked (cost zero), so that
     * their headers can still be reported.
     *
     * <p>A give-back is a {@linkplain KeySpace#refund refund} with the admission's receipt: it
     * returns the permits to the window, slot, log entries or schedule they were taken from, never
     * to a later one, and if the key's state has moved on meanwhile (other requests, a new window)
     * it returns only what is provably still the admission's own. A store that gives back after a
     * round trip carries the receipts its scripts returned.
     *
     * <p>The default implementation acquires one claim after the other, in chain order, and
     * allocates nothing; a remote store may decide the chain in one round trip. The enforcer calls
     * this for every request that an enforced policy applies to, with a chain of one claim in the
     * common case.
     *
     * @param claims the first claim of the chain; the chain is in policy order
     * @return {@code true} if every claim was admitted; {@code false} if one was denied (the first
     *     claim whose decision is a denial) and the others were given back
     * @throws NullPointerException if {@code claims} is null
     */
    default boolean acquireAll(Claim claims) {
        for (Claim c = Objects.requireNonNull(claims, "claims"); c != null; c = c.next()) {
            if (!c.space().acquire(c.key(), c.partition(), c.cost(), c.decision())) {
                for (Claim given = claims; given != c; given = given.next()) {
                    given.space().refund(given.key(), given.cost(), given.decision());
                }
                for (Claim peeked = c.next(); peeked != null; peeked = peeked.next()) {
                    peeked.space().acquire(peeked.key(), 0, peeked.decision());
                }
                return false;
            }
        }
        return true;
    }

    /** Releases resources (connections, threads). The default does nothing. */
    @Override
    default void close() {
    }
}
