package io.github.sluice.store;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.ShardedRegistry.Space;

/**
 * The key space of a changed rate limit while its previous generation is retained (see
 * {@link ShardedRegistry#rebind}): a key that this generation does not hold yet is given, before
 * its first decision here, what the strategy carries from its state in the previous generation.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li><b>Lazy.</b> A key is carried on its first request (or read) after the change: its old cell
 *       is peeked at that moment under the old algorithm (advanced to now by the old parameters),
 *       and a fresh cell of the new algorithm is charged with what {@link Inheritance#carried}
 *       keeps. An old state that has its whole quota by then (nothing used) carries nothing,
 *       whatever the strategy: the key starts as a key never seen.
 *   <li><b>One generation back, folded at the next change.</b> Only the generation just before
 *       this one is retained. When this generation is itself superseded while its predecessor is
 *       still retained, {@link #fold} first carries every key of the predecessor that this
 *       generation does not hold, at the moment of the change, exactly as a request of cost zero
 *       from each would have. A key idle across several changes therefore inherits through every
 *       generation it skipped, each step at the moment of the change that ended it (with
 *       {@link Inheritance#KEEP_CONSUMED}: the least of what it had used and every limit in
 *       between), and the memory held is never more than two generations of the policy.
 *   <li><b>Retained while it can hand anything on.</b> The previous generation is consulted for
 *       twice its algorithm's {@linkplain Algorithm#windowNanos() window} plus a second after the
 *       change (by then each of its cells has its whole quota back, for requests of at most the
 *       policy's limit as the policy language ensures, and carries nothing) and then let go, at the
 *       first request, read, change or {@linkplain ShardedRegistry#sweep sweep} after that. Until
 *       then this generation keeps its fresh cells instead of dropping them as idle, so a key that
 *       was carried is never carried a second time.
 *   <li><b>Reset and inspect.</b> {@link #reset} forgets the key in both generations, so the old
 *       state cannot be handed on after the reset. {@link #inspect} computes what the key would
 *       carry without keeping it: it creates and changes nothing.
 * </ul>
 *
 * <p>Thread-safe. The request path reads one volatile field once the previous generation is let
 * go; before that, a key carried allocates its new cell once.
 *
 * @param <S> the new generation's state type
 * @param <T> the previous generation's state type
 */
final class CarriedKeySpace<S extends Cell, T extends Cell> implements KeySpace {

    /** How long after the change a previous generation can hand state on, beyond twice its window. */
    static final long GRACE_NANOS = 1_000_000_000L;

    final Space<S> target;
    final Inheritance inheritance;
    /** The previous generation; {@code null} once let go. */
    private volatile Space<T> previous;
    private final long since;
    private final long horizon;

    CarriedKeySpace(Space<S> target, Space<T> previous, Inheritance inheritance, long since) {
        this.target = target;
        this.previous = previous;
        this.inheritance = inheritance;
        this.since = since;
        this.horizon = horizon(previous.algorithm);
        long until = since + horizon;
        target.keepFreshUntil = until < since ? Long.MAX_VALUE : until;
    }

    /** Twice the algorithm's window plus a second, saturating: how long its cells can hand state on. */
    static long horizon(Algorithm<?> algorithm) {
        long w = Math.max(0, algorithm.windowNanos());
        long twice = w > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * w;
        return twice > Long.MAX_VALUE - GRACE_NANOS ? Long.MAX_VALUE : twice + GRACE_NANOS;
    }

    /** The previous generation if it can still hand state on at {@code now}; lets it go otherwise. */
    Space<T> previous(long now) {
        Space<T> from = previous;
        if (from != null && now - since > horizon) {
            previous = null;
            return null;
        }
        return from;
    }

    /** The previous generation if it can still hand state on at {@code now}; changes nothing. */
    private Space<T> peekPrevious(long now) {
        Space<T> from = previous;
        return from != null && now - since > horizon ? null : from;
    }

    /** @return the keys the previous generation holds, or 0 once let go (for tests of the memory held) */
    long previousSize() {
        Space<T> from = previous;
        return from == null ? 0 : from.size();
    }

    /**
     * A cell of this generation charged with what the key's old {@code cell} of {@code from}
     * carries at {@code now}, not kept anywhere; {@code null} if it carries nothing (no old cell,
     * a retired one, an old cell with its whole quota by now, or nothing kept by the strategy).
     */
    private S carried(Space<T> from, T cell, long now, MutableDecision d) {
        return carry(from.algorithm, cell, target.algorithm, inheritance, now, d);
    }

    /**
     * A cell of {@code to} charged with what {@code cell} of {@code from} carries at {@code now}
     * by {@code inheritance}, not kept anywhere; {@code null} if it carries nothing (no old cell, a
     * retired one, an old cell with its whole quota by now, or nothing kept by the strategy). The
     * old cell is only peeked (cost zero): nothing is written to it. Shared by a changed policy
     * ({@link CarriedKeySpace}) and a key whose plan changed ({@link PlanAlgorithm}).
     */
    static <S extends Cell, T extends Cell> S carry(Algorithm<T> from, T cell, Algorithm<S> to,
            Inheritance inheritance, long now, MutableDecision d) {
        if (cell == null) {
            return null;
        }
        if (from instanceof PlanAlgorithm old && to instanceof PlanAlgorithm plans) {
            // Plan by plan: a key stays on its plan, with what it used and its debt.
            @SuppressWarnings("unchecked")
            S carried = (S) plans.carriedFrom(old, (PlanAlgorithm.PlanCell) cell, now, d);
            return carried;
        }
        // Advance under the old parameters: the peek reports what the key has left now.
        if (from.acquire(cell, now, 0, d) == Algorithm.RETIRED || from.isFresh(cell, now)) {
            return null;
        }
        long oldLimit = Math.max(1, d.limit());
        long left = d.remaining();
        if (left >= oldLimit) {
            // Nothing used: the key starts as a key never seen, whatever the strategy (a raise under
            // KEEP_REMAINING would otherwise hold back a rested key that a new one is not). Every
            // old state has its whole quota back within the retention horizon, so a generation let
            // go hands on exactly what it would have.
            return null;
        }
        S fresh = to.newCell(now);
        to.acquire(fresh, now, 0, d);
        long carried = inheritance.carried(oldLimit, left, Math.max(1, d.limit()));
        if (carried <= 0) {
            return null;
        }
        if (to.acquire(fresh, now, carried, d) != Algorithm.ADMITTED) {
            // A fresh state that cannot give that many at once gives all it has: stricter, never looser.
            long all = Math.min(carried, d.remaining());
            if (all <= 0 || to.acquire(fresh, now, all, d) != Algorithm.ADMITTED) {
                return null;
            }
        }
        return to.isFresh(fresh, now) ? null : fresh;
    }

    /** Seeds {@code key}'s cell here from the previous generation, if it has state there and none here. */
    private void carry(String key) {
        if (previous == null) {
            return;
        }
        long now = target.clock.nanos();
        Space<T> from = previous(now);
        if (from == null || target.map.get(key) != null) {
            return;
        }
        T old = from.map.get(key);
        S cell = carried(from, old, now, new MutableDecision());
        if (cell != null) {
            keep(key, old, cell, now);
        }
    }

    /**
     * Keeps the cell carried from {@code old}. If {@code old} was retired after it was read (an
     * operator's {@link #reset}, which retires the old cell before it clears this generation), the
     * carried cell is taken out again: what a reset forgot is never handed on by a request that
     * read it a moment before.
     */
    private void keep(String key, T old, S cell, long now) {
        if (target.keep(key, cell, now) == cell && old.retired()) {
            target.reset(key);
        }
    }

    /**
     * Carries, at {@code now}, every key of the previous generation that this one does not hold,
     * as a request of cost zero from each would, then lets the previous generation go. Called when
     * this generation is superseded, so that at most two generations are ever held. Costs one peek
     * per key of the previous generation; the change that calls it is an operator's, never a
     * request's.
     *
     * @param now the moment of the change
     */
    void fold(long now) {
        Space<T> from = previous(now);
        if (from == null) {
            return;
        }
        MutableDecision d = new MutableDecision();
        for (String key : from.map.keySet()) {
            if (target.map.get(key) == null) {
                T old = from.map.get(key);
                S cell = carried(from, old, now, d);
                if (cell != null) {
                    keep(key, old, cell, now);
                }
            }
        }
        previous = null;
    }

    @Override
    public String name() {
        return target.name;
    }

    @Override
    public Algorithm<?> algorithm() {
        return target.algorithm;
    }

    @Override
    public boolean acquire(String key, long cost, MutableDecision out) {
        carry(key);
        return target.acquire(key, cost, out);
    }

    @Override
    public boolean acquire(String key, int partition, long cost, MutableDecision out) {
        carry(key);
        return target.acquire(key, partition, cost, out);
    }

    @Override
    public void release(String key, long cost) {
        target.release(key, cost);
    }

    @Override
    public long release(String key, long cost, long receipt, boolean dropped) {
        return target.release(key, cost, receipt, dropped);
    }

    @Override
    public void refund(String key, long cost, MutableDecision admission) {
        target.refund(key, cost, admission);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A key not carried yet reads as it would be carried now: its old state, advanced under the
     * old parameters and charged into a cell of the new algorithm that is then thrown away.
     */
    @Override
    public void inspect(String key, MutableDecision out) {
        long now = target.clock.nanos();
        Space<T> from = peekPrevious(now);
        if (from != null && target.map.get(key) == null) {
            S cell = carried(from, from.map.get(key), now, out);
            if (cell != null) {
                target.algorithm.acquire(cell, now, 0, out);
                return;
            }
        }
        target.inspect(key, out);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Forgets the key in the previous generation first, then in this one, so that no state of
     * it is left to be carried after the reset.
     */
    @Override
    public boolean reset(String key) {
        Space<T> from = previous;
        boolean had = from != null && from.reset(key);
        return target.reset(key) | had;
    }

    @Override
    public long size() {
        return target.size();
    }

    @Override
    public String toString() {
        return target + (previous == null ? "" : "{inheriting " + inheritance + '}');
    }
}
