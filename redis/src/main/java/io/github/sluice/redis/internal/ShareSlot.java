package io.github.sluice.redis.internal;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One client key's share of one policy's quota in this instance (the Redis store's lease mode):
 * the {@linkplain Grant grant} the last refill brought from Redis, and the refill in flight, if
 * any. A request takes its permits from the grant with one compare-and-set on the grant's counter,
 * without a lock, a round trip or an allocation; once the grant is spent or ends, the next refill
 * replaces it (at most one in flight per slot: {@link #claimRefill}).
 *
 * <p>A grant is either a <em>share</em> (permits to spend until {@link Grant#ends}) or a
 * <em>denial</em> (Redis could not grant even the least cost asked: every request is refused
 * locally, with Redis's retry-after, until {@link Grant#deniedUntil}). Every instant is a reading
 * of the instance's local clock, nanoseconds.
 *
 * <p>Thread-safe and lock-free.
 */
public final class ShareSlot {

    /** What {@link #take} did. */
    public enum Taken {
        /** Admitted from the grant: the decision is written. */
        ADMITTED,
        /** Refused by a denial grant: the decision is written. */
        DENIED,
        /** The grant is spent, ends, or cannot cover the cost: nothing written; a refill is needed. */
        SPENT
    }

    /** The tag of a locally decided admission's receipt: set bit 62, then the grant's number. */
    public static final long LOCAL = 1L << 62;
    private static final long SEQ_MASK = LOCAL - 1;
    /** A grant's counter once drained: no permit can be taken or given back. */
    static final long CLOSED = Long.MIN_VALUE;

    private static final VarHandle LEFT;
    private static final VarHandle REFILL;

    static {
        try {
            LEFT = MethodHandles.lookup().findVarHandle(Grant.class, "left", long.class);
            REFILL = MethodHandles.lookup().findVarHandle(ShareSlot.class, "refill", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A slot's refill marker once the slot is retired (removed from its map): look it up again. */
    public static final Object RETIRED = new Object() {
        @Override
        public String toString() {
            return "RETIRED";
        }
    };

    /**
     * What one refill brought. Immutable but for the counter of permits left.
     */
    public static final class Grant {
        /** The grant's number in its slot, which tags its admissions' receipts. */
        final long seq;
        /** Permits Redis granted. */
        public final long granted;
        /** When the share ends (local clock): its maximum age, or its window's end. */
        public final long ends;
        /** Until when every request is refused (a denial), or {@link Long#MIN_VALUE} for a share. */
        public final long deniedUntil;
        /** Redis's remaining permits right after the take. */
        final long redisRemaining;
        /** When Redis said the quota would be full again (local clock). */
        final long resetAt;
        /** A denial's retry-after, nanoseconds from {@link #at}, or {@link Decision#NEVER}. */
        final long retry;
        /** The receipt Redis returned for the take, which a give-back to Redis carries. */
        public final long receipt;
        /** When the refill's call was made (local clock): what the take's clock argument was. */
        public final long at;
        /** Permits left; {@link #CLOSED} once drained. Through {@code LEFT}. */
        @SuppressWarnings("unused")
        private volatile long left;

        private Grant(long seq, long granted, long ends, long deniedUntil, long redisRemaining, long resetAt,
                long retry, long receipt, long at) {
            this.seq = seq;
            this.granted = granted;
            this.ends = ends;
            this.deniedUntil = deniedUntil;
            this.redisRemaining = redisRemaining;
            this.resetAt = resetAt;
            this.retry = retry;
            this.receipt = receipt;
            this.at = at;
            this.left = granted;
        }

        /** @return the permits left, or a negative number once drained */
        public long left() {
            return (long) LEFT.getVolatile(this);
        }

        /** @return whether this grant is a denial */
        public boolean denial() {
            return deniedUntil != Long.MIN_VALUE;
        }

        /**
         * Drains the grant: no permit can be taken from it or given back to it from now on.
         *
         * @return the permits that were left (to give back to Redis or drop), {@code >= 0}
         */
        public long close() {
            long v = (long) LEFT.getAndSet(this, CLOSED);
            return Math.max(0, v);
        }

        @Override
        public String toString() {
            return denial() ? "Grant{denied until " + deniedUntil + '}'
                    : "Grant{" + granted + " permits, " + left() + " left, ends " + ends + '}';
        }
    }

    private final long limit;
    private volatile Grant grant;
    /** The refill in flight, {@link #RETIRED}, or {@code null}. Through {@code REFILL}. */
    @SuppressWarnings("unused")
    private volatile Object refill;
    private long seq;

    /** @param limit the policy's limit, the RateLimit fields' {@code limit} */
    public ShareSlot(long limit) {
        this.limit = limit;
        this.grant = new Grant(0, 0, Long.MIN_VALUE, Long.MIN_VALUE, 0, 0, 0, 0, 0);
    }

    /** @return the current grant */
    public Grant grant() {
        return grant;
    }

    /**
     * Takes {@code cost} permits from the current grant, deciding locally: admitted, with {@code
     * remaining} = Redis's remaining when the share was taken plus the permits left in the share,
     * {@code reset} = the time until the instant Redis named for a full quota at the take, and a
     * receipt that tags the admission as this grant's ({@link #LOCAL}); or refused by a denial
     * grant, with the time left until it ends as the retry-after. The clock is read after the
     * grant, so a decision's reading ({@link MutableDecision#nanos()}) is never before its grant's
     * call was made.
     *
     * @param cost the permits, {@code >= 1}
     * @param clock the local clock
     * @param out written unless {@link Taken#SPENT}
     * @return what was decided
     */
    public Taken take(long cost, io.github.sluice.core.Clock clock, MutableDecision out) {
        Grant g = grant;
        long now = clock.nanos();
        if (g.denial()) {
            if (now - g.deniedUntil < 0) {
                long retry = g.retry == Decision.NEVER ? Decision.NEVER : g.deniedUntil - now;
                out.deny(limit, g.redisRemaining, g.resetAt - now, retry).at(now);
                return Taken.DENIED;
            }
            return Taken.SPENT;
        }
        if (now - g.ends >= 0) {
            return Taken.SPENT;
        }
        while (true) {
            long v = (long) LEFT.getVolatile(g);
            if (v < cost) {
                return Taken.SPENT;
            }
            if (LEFT.compareAndSet(g, v, v - cost)) {
                out.allow(limit, saturatedAdd(g.redisRemaining, v - cost), g.resetAt - now)
                        .receipt(LOCAL | g.seq).at(now);
                return Taken.ADMITTED;
            }
        }
    }

    /**
     * Gives back permits of a local admission (another policy refused the request, or its
     * outcome refunded it) to the grant its receipt names, if that grant is still the current one
     * and not drained; otherwise they are dropped (the grant has ended: its unspent permits went
     * back to Redis, or were dropped, already).
     *
     * @param cost the permits
     * @param receipt the admission's receipt, tagged {@link #LOCAL}
     * @return whether the permits went back to the grant
     */
    public boolean giveBack(long cost, long receipt) {
        Grant g = grant;
        if (!local(receipt) || g.seq != (receipt & SEQ_MASK) || cost <= 0) {
            return false;
        }
        while (true) {
            long v = (long) LEFT.getVolatile(g);
            if (v < 0) {
                return false;
            }
            long back = Math.min(g.granted, v + cost);
            if (LEFT.compareAndSet(g, v, back)) {
                return true;
            }
        }
    }

    /**
     * Claims the right to refill this slot, once {@code seen} (the grant a request found spent)
     * is still the current grant and no refill is in flight.
     *
     * @param seen the grant found spent
     * @param refill the caller's refill
     * @return {@code refill} if the caller must now send it; the refill in flight to join;
     *     {@code null} if the grant changed meanwhile (take again); or {@link #RETIRED}
     */
    public Object claimRefill(Grant seen, Object refill) {
        while (true) {
            Object f = REFILL.getVolatile(this);
            if (f != null) {
                return f;
            }
            if (grant != seen) {
                return null;
            }
            if (REFILL.compareAndSet(this, null, refill)) {
                if (grant != seen) {
                    REFILL.setVolatile(this, null); // a refill installed a grant just before
                    return null;
                }
                return refill;
            }
        }
    }

    /** @return the refill in flight, {@link #RETIRED}, or {@code null} */
    public Object refill() {
        return REFILL.getVolatile(this);
    }

    /**
     * Installs a refill's share (by the refill that {@linkplain #claimRefill claimed} the slot)
     * and ends the refill.
     *
     * @param granted permits taken from Redis, {@code >= 1}
     * @param ends when the share ends (local clock)
     * @param redisRemaining Redis's remaining after the take
     * @param resetAt when Redis's quota is full again (local clock)
     * @param receipt the take's receipt
     * @param at when the call was made (local clock)
     * @return the grant installed
     */
    public Grant installShare(long granted, long ends, long redisRemaining, long resetAt, long receipt, long at) {
        Grant g = new Grant(++seq, granted, ends, Long.MIN_VALUE, redisRemaining, resetAt, 0, receipt, at);
        grant = g;
        REFILL.setVolatile(this, null);
        return g;
    }

    /**
     * Installs a refill's denial and ends the refill.
     *
     * @param deniedUntil until when requests are refused (local clock)
     * @param retry the retry-after Redis gave, or {@link Decision#NEVER}
     * @param redisRemaining Redis's remaining
     * @param resetAt when Redis's quota is full again (local clock)
     * @param at when the call was made (local clock)
     * @return the grant installed
     */
    public Grant installDenial(long deniedUntil, long retry, long redisRemaining, long resetAt, long at) {
        Grant g = new Grant(++seq, 0, deniedUntil, deniedUntil, redisRemaining, resetAt, retry, 0, at);
        grant = g;
        REFILL.setVolatile(this, null);
        return g;
    }

    /** Ends a refill that brought nothing (it failed or timed out): the next request tries again. */
    public void refillFailed() {
        REFILL.setVolatile(this, null);
    }

    /**
     * Retires an idle slot: no refill in flight and its grant over at {@code now}.
     *
     * @param now the local clock's reading
     * @return the drained grant (its unspent permits to give back), or {@code null} if the slot is
     *     in use and stays
     */
    public Grant retire(long now) {
        Grant g = grant;
        if (now - g.ends < 0 || !REFILL.compareAndSet(this, null, RETIRED)) {
            return null;
        }
        return g;
    }

    /**
     * @param receipt an admission's receipt
     * @return whether it is a local admission's (tagged {@link #LOCAL})
     */
    public static boolean local(long receipt) {
        return receipt > 0 && (receipt & LOCAL) != 0;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
