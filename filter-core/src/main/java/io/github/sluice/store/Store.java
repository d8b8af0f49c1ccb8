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
                return Chains.refuse(claims, c);
            }
        }
        return true;
    }

    /**
     * Acquires every claim of a request's chain, all or nothing, as {@link #acquireAll} does,
     * without blocking the calling thread: the decision of an adapter on an event loop. The stage
     * completes once every claim's decision is written, with {@code true} if every claim was
     * admitted; it never completes exceptionally because a remote store failed (the store's
     * failure policy decides, as on the synchronous path). The decisions are not to be read
     * before it completes.
     *
     * <p>The default decides synchronously ({@link #acquireAll}) and returns
     * {@link Decided#ADMITTED} or {@link Decided#REFUSED}: no allocation and no thread hop, which
     * is right for a store that decides in memory (the in-memory {@link ShardedRegistry}) and
     * wrong for one that waits on the network, which must override this (the Redis store decides
     * by its client's asynchronous API). An override returns one of those two shared stages
     * whenever it decided on the calling thread, and documents on which of its threads a later
     * completion runs; {@link #acquireInTurn} decides a chain one claim after the other through
     * {@link KeySpace#acquireAsync}, for a chain whose key spaces belong to several stores.
     *
     * @param claims the first claim of the chain; the chain is in policy order
     * @return the decision, when taken
     * @throws NullPointerException if {@code claims} is null
     */
    default java.util.concurrent.CompletionStage<Boolean> acquireAllAsync(Claim claims) {
        return Decided.of(acquireAll(claims));
    }

    /**
     * Whether {@link #acquireAll} decides without waiting on anything but memory, so that a
     * caller on an event loop may call it directly. The default is {@code false}, the safe answer
     * for a store that does not say; the in-memory {@link ShardedRegistry} answers {@code true}.
     *
     * @return {@code true} if a synchronous decision never blocks
     */
    default boolean decidesAtOnce() {
        return false;
    }

    /**
     * Acquires a chain as the default {@link #acquireAll} does, one claim after the other in chain
     * order, all or nothing, but through each key space's {@link KeySpace#acquireAsync}, so that
     * no claim blocks the calling thread: after the first denial the permits taken are refunded by
     * receipt and the remaining claims are peeked (cost zero) for their headers. Claims decided at
     * once continue on the same thread and allocate nothing; the first claim decided later
     * continues the walk on the thread that completes it.
     *
     * @param claims the first claim of the chain
     * @return the decision, when taken: {@link Decided#ADMITTED} or {@link Decided#REFUSED} if
     *     every claim was decided at once
     * @throws NullPointerException if {@code claims} is null
     */
    static java.util.concurrent.CompletionStage<Boolean> acquireInTurn(Claim claims) {
        return InTurn.from(Objects.requireNonNull(claims, "claims"), claims);
    }

    /**
     * How long this store's round trips take, per operation, for metrics: the enforcer hands it
     * to its {@code EnforcerMetrics} when it is built with this store, and the metrics binders
     * export it ({@code sluice.store.latency}). The default is {@code null}, right for a store
     * that makes no round trips (the in-memory {@link ShardedRegistry}).
     *
     * @return the store's latency histogram, always the same object, or {@code null} if it times
     *     nothing
     */
    default StoreLatency latency() {
        return null;
    }

    /** Releases resources (connections, threads). The default does nothing. */
    @Override
    default void close() {
    }
}
