package io.github.sluice.limiter;

import io.github.sluice.core.Decision;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Tokens reserved from a {@link TokenBucketLimiter}, to be used after a delay: x/time/rate's
 * {@code Reservation}.
 *
 * <p>A reservation is either {@linkplain #ok() granted}, with a {@linkplain #timeToActNanos()
 * time to act} (a clock reading, now or in the future), or refused ({@code n > burst}, or the
 * wait would exceed the allowed maximum), in which case it holds nothing, its delay is
 * {@link Decision#NEVER} and {@link #cancel()} does nothing.
 *
 * <p>{@link #cancel()} tells the limiter that the holder will not act, and gives back as many
 * tokens as x/time/rate's {@code CancelAt} would: the reserved tokens minus those reserved by later
 * reservations (which were scheduled behind this one), capped at the burst; nothing if the time
 * to act has already passed. Unlike x/time/rate, cancelling twice does nothing the second time.
 *
 * <p>Thread-safe.
 */
public final class Reservation {

    private static final VarHandle CANCELLED;

    static {
        try {
            CANCELLED = MethodHandles.lookup().findVarHandle(Reservation.class, "cancelled", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TokenBucketLimiter limiter;
    private final boolean ok;
    private final long tokens;
    private final long timeToAct;
    private final long period;
    private final long permits;
    private volatile int cancelled;

    Reservation(TokenBucketLimiter limiter, boolean ok, long tokens, long timeToAct, long period, long permits) {
        this.limiter = limiter;
        this.ok = ok;
        this.tokens = tokens;
        this.timeToAct = timeToAct;
        this.period = period;
        this.permits = permits;
    }

    /** @return {@code true} if the tokens were reserved; {@code false} if the reservation was refused */
    public boolean ok() {
        return ok;
    }

    /** @return the tokens reserved; 0 when refused */
    public long tokens() {
        return ok ? tokens : 0;
    }

    /**
     * @return the clock reading, in nanoseconds, at which the holder may act; {@link Decision#NEVER}
     *     when refused
     */
    public long timeToActNanos() {
        return ok ? timeToAct : Decision.NEVER;
    }

    /**
     * @return nanoseconds from the limiter's clock reading now until the holder may act: 0 to act
     *     at once, {@link Decision#NEVER} when refused
     */
    public long delayNanos() {
        return delayNanosFrom(limiter.clock().nanos());
    }

    /**
     * @param now a clock reading, nanoseconds
     * @return nanoseconds from {@code now} until the holder may act: 0 to act at once,
     *     {@link Decision#NEVER} when refused
     */
    public long delayNanosFrom(long now) {
        if (!ok) {
            return Decision.NEVER;
        }
        return Math.max(0, timeToAct - now);
    }

    /** @return {@code true} if {@link #cancel()} was called on this granted reservation */
    public boolean cancelled() {
        return cancelled != 0;
    }

    /**
     * Gives the reservation up at the limiter's clock reading now (x/time/rate's
     * {@code CancelAt(now)}), read once the limiter's state is locked, so that it is never older
     * than a reading the state already reflects. This reservation's own fields are the receipt:
     * never more than its tokens come back, less those reserved behind it. Does nothing if refused
     * or already cancelled.
     */
    public void cancel() {
        if (ok && CANCELLED.compareAndSet(this, 0, 1)) {
            limiter.cancel(this);
        }
    }

    long rawTokens() {
        return tokens;
    }

    long rawTimeToAct() {
        return timeToAct;
    }

    /** The reservation's rate: {@code permits} tokens per {@code period} ns; 0 permits for none. */
    long period() {
        return period;
    }

    long permits() {
        return permits;
    }

    @Override
    public String toString() {
        if (!ok) {
            return "Reservation{refused}";
        }
        return "Reservation{tokens=" + tokens + ", timeToAct=" + timeToAct
                + (cancelled() ? ", cancelled}" : "}");
    }
}
