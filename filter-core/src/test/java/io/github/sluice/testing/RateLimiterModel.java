package io.github.sluice.testing;

import java.math.BigInteger;

/**
 * golang.org/x/time/rate's {@code Limiter} transcribed function by function ({@code advance},
 * {@code reserveN}, {@code CancelAt}, {@code SetLimitAt}, {@code SetBurstAt}) with its fields
 * ({@code tokens}, {@code last}, {@code lastEvent}), in exact integer arithmetic: the float token
 * count becomes {@code credit}, tokens times the current interval in nanoseconds. Sluice's
 * documented rounding applies where a rate change makes a fraction of a token: down to the
 * nanosecond.
 */
public final class RateLimiterModel {

    /** A reservation: x/time/rate's {@code Reservation} fields. */
    public record Res(boolean ok, long tokens, long timeToAct, long interval) {
    }

    /** Waits longer than this are refused (Sluice's bound; x/time/rate has none). */
    public static final long MAX_WAIT = 1L << 61;

    private long interval;
    private long burst;
    private long credit;
    private long last;
    private long lastEvent;

    /**
     * @param intervalNanos nanoseconds per token
     * @param burst tokens
     * @param now the clock reading at creation: the bucket is full
     */
    public RateLimiterModel(long intervalNanos, long burst, long now) {
        this.interval = intervalNanos;
        this.burst = burst;
        this.credit = intervalNanos * burst;
        this.last = now;
        this.lastEvent = Long.MIN_VALUE / 4;
    }

    private long advance(long now) {
        long from = now < last ? now : last;
        long cap = burst * interval;
        long elapsed = Math.min(now - from, Math.max(0, cap - credit));
        return Math.min(cap, credit + elapsed);
    }

    /** x/time/rate's {@code reserveN}. */
    public Res reserveN(long now, long n, long maxFutureReserve) {
        if (n > burst) {
            return new Res(false, 0, 0, interval);
        }
        long tokens = advance(now) - n * interval;
        long wait = tokens < 0 ? -tokens : 0;
        boolean ok = wait <= Math.min(maxFutureReserve, MAX_WAIT);
        if (!ok) {
            return new Res(false, 0, 0, interval);
        }
        last = now;
        credit = tokens;
        lastEvent = now + wait;
        return new Res(true, n, now + wait, interval);
    }

    /** x/time/rate's {@code AllowN}. */
    public boolean allowN(long now, long n) {
        return reserveN(now, n, 0).ok();
    }

    /** x/time/rate's {@code CancelAt}. */
    public void cancelAt(long now, Res r) {
        if (!r.ok() || r.tokens() == 0 || r.timeToAct() < now) {
            return;
        }
        long restoreAtR = r.tokens() * r.interval() - (lastEvent - r.timeToAct());
        if (restoreAtR <= 0) {
            return;
        }
        long restore = floorScale(restoreAtR, r.interval(), interval);
        long tokens = advance(now) + restore;
        tokens = Math.min(tokens, burst * interval);
        last = now;
        credit = tokens;
        if (r.timeToAct() == lastEvent) {
            long prevEvent = r.timeToAct() - r.tokens() * r.interval();
            if (prevEvent >= now) {
                lastEvent = prevEvent;
            }
        }
    }

    /** x/time/rate's {@code SetLimitAt}. */
    public void setLimitAt(long now, long newInterval) {
        long tokens = advance(now);
        last = now;
        credit = floorScale(tokens, interval, newInterval);
        interval = newInterval;
    }

    /** x/time/rate's {@code SetBurstAt}. */
    public void setBurstAt(long now, long newBurst) {
        long tokens = advance(now);
        last = now;
        credit = tokens;
        burst = newBurst;
    }

    /** @return whole tokens at {@code now}, 0 while in debt */
    public long tokens(long now) {
        long c = advance(now);
        return c <= 0 ? 0 : c / interval;
    }

    /** @return the burst */
    public long burst() {
        return burst;
    }

    private static long floorScale(long value, long from, long to) {
        BigInteger[] qr = BigInteger.valueOf(value).multiply(BigInteger.valueOf(to))
                .divideAndRemainder(BigInteger.valueOf(from));
        BigInteger q = qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
        return q.longValueExact();
    }
}
