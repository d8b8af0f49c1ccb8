package io.github.sluice.store;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;

/**
 * One policy's per-key state inside a {@link Store}.
 *
 * <p>Thread-safe. The in-memory implementation is lock-free and allocates only when a key is
 * seen for the first time.
 */
public interface KeySpace {

    /** @return the policy's name */
    String name();

    /** @return the algorithm applied to every key */
    Algorithm<?> algorithm();

    /**
     * Decides one request for {@code key}.
     *
     * @param key the client key, non-null and already bounded in length
     * @param cost permits requested, {@code >= 0}; zero peeks without writing
     * @param out where the decision is written
     * @return {@code true} if admitted (allowed now, or shaped)
     */
    boolean acquire(String key, long cost, MutableDecision out);

    /**
     * Decides one request for {@code key} that belongs to a partition of the policy's algorithm
     * (see {@link Algorithm#acquireOrWait(io.github.sluice.core.Cell, long,
     * io.github.sluice.core.Clock, long, int, MutableDecision)}). The admission's receipt names
     * the partition; pass it back to {@link #release(String, long, long, boolean)}. The default
     * ignores the partition, for stores whose algorithms have none.
     *
     * @param key the client key, non-null and already bounded in length
     * @param partition the request's partition, or {@link Algorithm#NO_PARTITION}
     * @param cost permits requested, {@code >= 0}; zero peeks without writing
     * @param out where the decision is written
     * @return {@code true} if admitted (allowed now, or shaped)
     */
    default boolean acquire(String key, int partition, long cost, MutableDecision out) {
        return acquire(key, cost, out);
    }

    /**
     * Decides one request as {@link #acquire(String, int, long, MutableDecision)} does, except
     * that a concurrency limit's bounded wait ({@code maxWait}) is not waited for on this thread:
     * a request that finds no free permit is denied at once, and its caller waits, if at all, its
     * own way (the in-memory store's {@link #acquireAsync} polls). The default calls
     * {@code acquire}, for a store whose acquisitions never wait for a release in memory (a
     * remote store's round trip is its own matter: use {@link #acquireAsync} not to wait on it).
     *
     * @param key the client key, non-null and already bounded in length
     * @param partition the request's partition, or {@link Algorithm#NO_PARTITION}
     * @param cost permits requested, {@code >= 0}; zero peeks without writing
     * @param out where the decision is written
     * @return {@code true} if admitted (allowed now, or shaped)
     */
    default boolean acquireNoWait(String key, int partition, long cost, MutableDecision out) {
        return acquire(key, partition, cost, out);
    }

    /**
     * Decides one request as {@link #acquire(String, int, long, MutableDecision)} does, without
     * blocking the calling thread: for an adapter on an event loop. The stage completes once
     * {@code out} holds the decision; it never completes exceptionally because a remote store
     * failed (its failure policy decides, as on the synchronous path).
     *
     * <p>The default decides synchronously and returns {@link Decided#ADMITTED} or
     * {@link Decided#REFUSED}: right for a store that decides in memory, never for one that waits
     * on the network, which must override it. A store that overrides it returns one of those two
     * shared stages whenever it decided on the calling thread (a cached denial, its failure
     * policy), so that the caller continues without a thread hop or an allocation; a stage that
     * is completed later completes on the store's own threads (its client's I/O thread, its
     * timer), where the caller's continuation then runs and must not block either.
     *
     * @param key the client key, non-null and already bounded in length
     * @param partition the request's partition, or {@link Algorithm#NO_PARTITION}
     * @param cost permits requested, {@code >= 0}; zero peeks without writing
     * @param out where the decision is written; not to be read until the stage completes
     * @return {@code true} when admitted (allowed now, or shaped)
     */
    default java.util.concurrent.CompletionStage<Boolean> acquireAsync(String key, int partition, long cost,
            MutableDecision out) {
        return Decided.of(acquire(key, partition, cost, out));
    }

    /**
     * Gives back the permits of a request that has ended: for a concurrency limit, the permits its
     * admission holds. A rate limit holds nothing while a request runs, so this does nothing for
     * it (undo a rate-limit admission with {@link #refund}). Releasing more than was taken never
     * raises a key above its fresh state.
     *
     * @param key the client key
     * @param cost permits to give back, {@code >= 0}
     */
    void release(String key, long cost);

    /**
     * Gives back the permits of a request that has ended, like {@link #release(String, long)},
     * and reports how it went to algorithms that learn from it (adaptive concurrency limits): the
     * latency from the admission that issued {@code receipt} to now, on this store's clock, and
     * whether the request was {@code dropped}. Call it exactly once per admitted request of a
     * concurrency policy, however the request ends. The default ignores the receipt and the flag.
     *
     * @param key the client key the admission was for
     * @param cost the admission's cost, {@code >= 0}
     * @param receipt the admission's {@linkplain MutableDecision#receipt() receipt}, or
     *     {@link MutableDecision#NO_RECEIPT} (the permits are released, nothing is learned)
     * @param dropped {@code true} if the request failed in a way that signals overload
     * @return the permits of {@code cost} that matched nothing the key held (a second release of
     *     one admission, a release without one), as far as this store can tell; {@code 0} for a
     *     matched release, and from a store that cannot tell (the default). See
     *     {@link Algorithm#release(io.github.sluice.core.Cell, long, long)}.
     */
    default long release(String key, long cost, long receipt, boolean dropped) {
        release(key, cost);
        return 0;
    }

    /**
     * Gives back the permits of a request that has ended, as
     * {@link #release(String, long, long, boolean)} does, to the cell its admission took them from:
     * the cell this key space handed to the admission's decision ({@link CellHolder}), or
     * {@code null} if it handed none. The default ignores the cell and looks the key up; the
     * in-memory store releases on the cell itself, with no lookup.
     *
     * @param key the client key the admission was for
     * @param held the cell this key space handed to the admission's decision, or {@code null}
     * @param cost the admission's cost, {@code >= 0}
     * @param receipt the admission's receipt, or {@link MutableDecision#NO_RECEIPT}
     * @param dropped {@code true} if the request failed in a way that signals overload
     * @return the permits of {@code cost} that matched nothing the cell held, as
     *     {@link #release(String, long, long, boolean)} returns them
     */
    default long release(String key, Cell held, long cost, long receipt, boolean dropped) {
        return release(key, cost, receipt, dropped);
    }

    /**
     * Undoes one admission of this key space, because another policy refused the same request:
     * gives back the permits that {@code admission} took, and only those. The admission's
     * {@linkplain MutableDecision#receipt() receipt} names where they were taken (window, slot,
     * log entries, schedule); if the key's state has moved on since, only what is provably still
     * the admission's own is given back, possibly nothing (the rules are on
     * {@link Algorithm#refund}). For a concurrency limit this releases the admission's permits.
     * Never waits for a remote store; a refund that is lost leaves the key stricter, never looser.
     *
     * @param key the client key the admission was for
     * @param cost the admission's cost, {@code >= 0}
     * @param admission the decision this key space wrote for that admission (its receipt, and
     *     whether a degraded store took it); a denial or a peek gives nothing back
     */
    void refund(String key, long cost, MutableDecision admission);

    /**
     * Reads the state of {@code key} without consuming anything: writes what a request of cost
     * zero would be told (the limit, the remaining quota, the time until it is fully restored;
     * for a concurrency limit, {@code limit - remaining} permits are in flight). A key that was
     * never seen, or was forgotten, reads as fresh. The default peeks through
     * {@link #acquire(String, long, MutableDecision)} with cost zero; the in-memory store reads
     * without creating an entry.
     *
     * @param key the client key, non-null and already bounded in length
     * @param out where the state is written
     */
    default void inspect(String key, MutableDecision out) {
        acquire(key, 0, out);
    }

    /**
     * Forgets the state of {@code key}, so that its next request finds it fresh (a full bucket, an
     * empty window). Admissions taken before the reset may still be refunded: a refund checks its
     * receipt and gives back nothing to the new state.
     *
     * <p>A concurrency limit is not reset: its state is the count of requests still running, whose
     * permits come back when they end; forgetting them would admit more than the limit and let
     * their releases free permits that later requests hold. This method does nothing for it and
     * returns {@code false}.
     *
     * <p>The default refuses, for stores that cannot reset.
     *
     * @param key the client key, non-null and already bounded in length
     * @return {@code true} if the key had state that is now forgotten, {@code false} if it had
     *     none (or the policy is a concurrency limit)
     * @throws UnsupportedOperationException if this store cannot reset keys
     */
    default boolean reset(String key) {
        throw new UnsupportedOperationException("the store of policy '" + name() + "' cannot reset keys");
    }

    /** @return the number of keys currently held (approximate under concurrent change) */
    long size();
}
