package io.github.sluice.core;

/**
 * A reusable holder that algorithms and stores fill instead of allocating a {@link Decision}: the
 * per-request hot path writes into one of these and so allocates nothing.
 *
 * <p>Values have the meaning documented on {@link Decision}. An admission also carries a
 * {@linkplain #receipt() receipt}: what its algorithm needs to undo exactly that admission later
 * (see {@link Algorithm#refund}). Instances are not thread-safe: a holder belongs to one request
 * at a time.
 *
 * <p>A store also records the {@linkplain #nanos() clock reading} it decided at, so that what
 * follows the decision on the same request (the heavy hitters' minute) need not read the clock
 * again.
 *
 * <p>Every method is final. The class is open only so that a holder can be part of a larger
 * per-request object: Sluice's enforcer makes each applied policy's entry its decision, one
 * object per policy and request instead of two.
 */
public class MutableDecision {

    /**
     * The {@link #receipt()} of a decision that took nothing: a denial, a peek, an admission whose
     * algorithm keeps no receipt, or one recorded without a holder. A refund that presents it gives
     * nothing back. No algorithm issues this value as a real receipt.
     */
    public static final long NO_RECEIPT = Long.MIN_VALUE;

    /**
     * The {@link #nanos()} of a decision no store recorded a clock reading for: one written by
     * {@link #allow}, {@link #shape} or {@link #deny} alone (which clear the reading), or by a
     * store that does not record one.
     */
    public static final long NO_READING = Long.MIN_VALUE;

    private Outcome outcome = Outcome.ALLOWED;
    private long limit;
    private long remaining;
    private long resetNanos;
    /*
     * The retry-after of a denial or the delay of a shaped admission: never both, so one field
     * (which keeps an enforcer's entry, a subclass, within 96 bytes with the reading below).
     */
    private long waitNanos;
    private boolean degraded;
    private int denialStatus;
    private long receipt = NO_RECEIPT;
    private long nanos = NO_READING;

    /** Creates a holder; its content is an allowed decision with all values zero. */
    public MutableDecision() {
    }

    /**
     * Records an admission that may proceed now.
     *
     * @param limit the quota, in permits
     * @param remaining permits left
     * @param resetNanos nanoseconds until the quota is fully restored
     * @return this holder
     */
    public final MutableDecision allow(long limit, long remaining, long resetNanos) {
        return set(Outcome.ALLOWED, limit, remaining, resetNanos, 0, 0);
    }

    /**
     * Records an admission that must wait before proceeding.
     *
     * @param limit the quota, in permits
     * @param remaining permits left
     * @param resetNanos nanoseconds until the quota is fully restored
     * @param delayNanos nanoseconds to wait before proceeding, {@code > 0}
     * @return this holder
     */
    public final MutableDecision shape(long limit, long remaining, long resetNanos, long delayNanos) {
        return set(Outcome.SHAPED, limit, remaining, resetNanos, 0, delayNanos);
    }

    /**
     * Records a refusal.
     *
     * @param limit the quota, in permits
     * @param remaining permits left
     * @param resetNanos nanoseconds until the quota is fully restored
     * @param retryAfterNanos nanoseconds after which the same request would be admitted, {@code >
     *     0}, or {@link Decision#NEVER}
     * @return this holder
     */
    public final MutableDecision deny(long limit, long remaining, long resetNanos, long retryAfterNanos) {
        return set(Outcome.DENIED, limit, remaining, resetNanos, Math.max(1, retryAfterNanos), 0);
    }

    /**
     * Copies another holder into this one.
     *
     * @param other the source
     * @return this holder
     */
    public final MutableDecision copyFrom(MutableDecision other) {
        this.outcome = other.outcome;
        this.limit = other.limit;
        this.remaining = other.remaining;
        this.resetNanos = other.resetNanos;
        this.waitNanos = other.waitNanos;
        this.degraded = other.degraded;
        this.denialStatus = other.denialStatus;
        this.receipt = other.receipt;
        this.nanos = other.nanos;
        return this;
    }

    private MutableDecision set(Outcome outcome, long limit, long remaining, long resetNanos,
            long retryAfterNanos, long delayNanos) {
        this.outcome = outcome;
        this.limit = limit;
        this.remaining = Math.max(0, remaining);
        this.resetNanos = Math.max(0, resetNanos);
        this.waitNanos = outcome == Outcome.DENIED ? retryAfterNanos : Math.max(0, delayNanos);
        this.degraded = false;
        this.denialStatus = 0;
        this.receipt = NO_RECEIPT;
        this.nanos = NO_READING;
        return this;
    }

    /**
     * Records the clock reading the decision just written was taken at. Stores call it after
     * their algorithm decided (with the reading they passed it as {@code now}); {@link #allow},
     * {@link #shape} and {@link #deny} clear it, so a holder never carries the reading of an
     * earlier decision.
     *
     * @param nanos the reading, on the deciding store's clock
     * @return this holder
     */
    public final MutableDecision at(long nanos) {
        this.nanos = nanos;
        return this;
    }

    /**
     * Returns the clock reading the deciding store took this decision at (the {@code now} it
     * passed its algorithm: for a request that waited for a permit, the reading before the wait),
     * on that store's clock. Sluice's in-memory store records it; a reading of another store's
     * clock is only comparable with that clock's readings.
     *
     * @return the reading, or {@link #NO_READING} if none was recorded
     */
    public final long nanos() {
        return nanos;
    }

    /**
     * Attaches the receipt of the admission just recorded. Algorithms call it after
     * {@link #allow} or {@link #shape}, which (like {@link #deny}) clear it.
     *
     * @param receipt an opaque value only the algorithm (or store) that issued it interprets
     * @return this holder
     */
    public final MutableDecision receipt(long receipt) {
        this.receipt = receipt;
        return this;
    }

    /**
     * Returns what identifies this admission to a later refund: which window, slot, schedule or
     * log entries it took its permits from. Pass it, with the cost, to {@link Algorithm#refund}
     * (or hand this holder to {@code KeySpace.refund}) to give back exactly those permits and
     * nothing that belongs to later requests. Opaque: its meaning is the issuing algorithm's (and
     * store's) own.
     *
     * @return the receipt, or {@link #NO_RECEIPT} if nothing was taken
     */
    public final long receipt() {
        return receipt;
    }

    /**
     * Marks the decision as taken without the authoritative store (a shared store is down and its
     * failure policy decided: fail-open, fail-closed or a local fallback). Call after
     * {@link #allow}, {@link #shape} or {@link #deny}, which clear the mark.
     *
     * @param denialStatus the HTTP status to use if this decision is a denial, or {@code 0} for the
     *     policy's own status
     * @return this holder
     */
    public final MutableDecision degrade(int denialStatus) {
        this.degraded = true;
        this.denialStatus = denialStatus;
        return this;
    }

    /** @return {@code true} if the authoritative store was not consulted (see {@link #degrade}) */
    public final boolean degraded() {
        return degraded;
    }

    /** @return the HTTP status a degraded denial asks for, or {@code 0} for the policy's own */
    public final int denialStatus() {
        return denialStatus;
    }

    /** @return what was decided */
    public final Outcome outcome() {
        return outcome;
    }

    /** @return {@code true} if the request proceeds, now or after {@link #delayNanos()} */
    public final boolean allowed() {
        return outcome != Outcome.DENIED;
    }

    /** @return the quota, in permits */
    public final long limit() {
        return limit;
    }

    /** @return permits left */
    public final long remaining() {
        return remaining;
    }

    /** @return nanoseconds until the quota is fully restored */
    public final long resetNanos() {
        return resetNanos;
    }

    /** @return nanoseconds after which a denied request would be admitted; 0 unless denied */
    public final long retryAfterNanos() {
        return outcome == Outcome.DENIED ? waitNanos : 0;
    }

    /** @return nanoseconds to wait before proceeding; 0 unless shaped */
    public final long delayNanos() {
        return outcome == Outcome.SHAPED ? waitNanos : 0;
    }

    /** @return an immutable copy of the current content */
    public final Decision toDecision() {
        return new Decision(outcome, limit, remaining, resetNanos, retryAfterNanos(), delayNanos());
    }

    @Override
    public String toString() {
        return toDecision().toString();
    }
}
