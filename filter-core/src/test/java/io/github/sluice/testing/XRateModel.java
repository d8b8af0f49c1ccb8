package io.github.sluice.testing;

import java.math.BigInteger;

/**
 * golang.org/x/time/rate's {@code Limiter} transcribed with exact fractions instead of float64:
 * tokens are a rational number, the limit is {@code permits} per {@code period} nanoseconds
 * exactly (or Inf, or 0). The reference for the exact schedule of {@code TokenBucketLimiter}.
 * Two documented choices of Sluice are modelled: a wait is rounded up to the nanosecond (never
 * early), and the tokens carried over by a cancellation or a change of rate are rounded down to
 * a {@code 1/period} of a token (a tick of the exact schedule). Not thread-safe.
 */
public final class XRateModel {

    /** A reservation: its tokens, time to act and the limit in force ({@code permits == 0}: none). */
    public record Res(boolean ok, long tokens, long timeToAct, long period, long permits) {
    }

    /** The longest wait accepted when none is given. */
    public static final long MAX_WAIT = 1L << 61;

    private boolean inf;
    private long period;
    private long permits;
    private long burst;
    private BigInteger num;
    private BigInteger den = BigInteger.ONE;
    private long last;
    private long lastEvent;

    /**
     * @param period the limit's period in ns (reduced); ignored when {@code permits} is 0
     * @param permits tokens per period; 0 for a limit of 0
     * @param inf x/time/rate's Inf
     * @param burst the burst
     * @param now the creation time; the bucket starts full
     */
    public XRateModel(long period, long permits, boolean inf, long burst, long now) {
        this.period = period;
        this.permits = permits;
        this.inf = inf;
        this.burst = burst;
        this.num = BigInteger.valueOf(burst);
        this.last = now;
        this.lastEvent = Long.MIN_VALUE / 4;
    }

    private BigInteger[] advance(long now) {
        if (inf) {
            return new BigInteger[] {BigInteger.valueOf(burst), BigInteger.ONE};
        }
        long from = Math.min(now, last);
        BigInteger n = num;
        BigInteger d = den;
        if (permits > 0) {
            // tokens + elapsed * permits / period
            BigInteger p = BigInteger.valueOf(period);
            n = n.multiply(p).add(BigInteger.valueOf(now - from).multiply(BigInteger.valueOf(permits)).multiply(d));
            d = d.multiply(p);
        }
        BigInteger b = BigInteger.valueOf(burst);
        if (n.compareTo(b.multiply(d)) > 0) {
            return new BigInteger[] {b, BigInteger.ONE};
        }
        return new BigInteger[] {n, d};
    }

    /**
     * ReserveN with a maximum wait.
     *
     * @param now the time
     * @param n tokens
     * @param maxFutureReserve the longest wait
     * @return the reservation
     */
    public Res reserveN(long now, long n, long maxFutureReserve) {
        if (inf) {
            return new Res(true, n, now, 1, 0);
        }
        if (n > burst) {
            return new Res(false, 0, 0, 1, 0);
        }
        BigInteger[] t = advance(now);
        BigInteger left = t[0].subtract(BigInteger.valueOf(n).multiply(t[1]));
        long wait = 0;
        if (left.signum() < 0) {
            if (permits == 0) {
                return new Res(false, 0, 0, 1, 0);
            }
            // ceil(-left / den * period / permits)
            BigInteger a = left.negate().multiply(BigInteger.valueOf(period));
            BigInteger b = t[1].multiply(BigInteger.valueOf(permits));
            wait = a.add(b).subtract(BigInteger.ONE).divide(b).longValueExact();
        }
        if (wait > Math.min(maxFutureReserve, MAX_WAIT)) {
            return new Res(false, 0, 0, 1, 0);
        }
        last = Math.max(now, last);
        num = left;
        den = t[1];
        lastEvent = now + wait;
        return permits == 0 ? new Res(true, n, now + wait, 1, 0) : new Res(true, n, now + wait, period, permits);
    }

    /**
     * AllowN.
     *
     * @param now the time
     * @param n tokens
     * @return whether allowed
     */
    public boolean allowN(long now, long n) {
        return reserveN(now, n, 0).ok();
    }

    /**
     * CancelAt.
     *
     * @param now the time
     * @param r a reservation made by this model
     */
    public void cancelAt(long now, Res r) {
        if (inf || !r.ok() || r.tokens() == 0 || r.timeToAct() < now) {
            return;
        }
        // restore = tokens - (lastEvent - act) * permits_r / period_r
        BigInteger pr = BigInteger.valueOf(r.period());
        BigInteger rn = BigInteger.valueOf(r.tokens()).multiply(pr)
                .subtract(BigInteger.valueOf(lastEvent - r.timeToAct()).multiply(BigInteger.valueOf(r.permits())));
        if (rn.signum() <= 0) {
            return;
        }
        BigInteger[] t = advance(now);
        BigInteger n = t[0].multiply(pr).add(rn.multiply(t[1]));
        BigInteger d = t[1].multiply(pr);
        BigInteger b = BigInteger.valueOf(burst);
        if (n.compareTo(b.multiply(d)) > 0) {
            n = b;
            d = BigInteger.ONE;
        }
        last = Math.max(now, last);
        setTokensRoundedDown(n, d);
        if (r.timeToAct() == lastEvent && r.permits() > 0) {
            long prev = r.timeToAct() - BigInteger.valueOf(r.tokens()).multiply(pr)
                    .divide(BigInteger.valueOf(r.permits())).longValueExact();
            if (prev >= now) {
                lastEvent = prev;
            }
        }
    }

    /**
     * SetLimitAt.
     *
     * @param now the time
     * @param newPeriod the new period (reduced), ns
     * @param newPermits tokens per period; 0 for a limit of 0
     * @param newInf Inf
     */
    public void setLimitAt(long now, long newPeriod, long newPermits, boolean newInf) {
        BigInteger[] t = advance(now);
        last = Math.max(now, last);
        inf = newInf;
        period = newPeriod;
        permits = newPermits;
        setTokensRoundedDown(t[0], t[1]);
    }

    /**
     * SetBurstAt.
     *
     * @param now the time
     * @param newBurst the burst
     */
    public void setBurstAt(long now, long newBurst) {
        BigInteger[] t = advance(now);
        last = Math.max(now, last);
        burst = newBurst;
        BigInteger b = BigInteger.valueOf(burst);
        if (t[0].compareTo(b.multiply(t[1])) > 0) {
            t = new BigInteger[] {b, BigInteger.ONE};
        }
        setTokensRoundedDown(t[0], t[1]);
    }

    private void setTokensRoundedDown(BigInteger n, BigInteger d) {
        if (inf || permits == 0 && period == 0) {
            num = n;
            den = d;
            return;
        }
        // floor(n / d * period) / period
        BigInteger p = BigInteger.valueOf(period);
        BigInteger[] qr = n.multiply(p).divideAndRemainder(d);
        BigInteger q = qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
        num = q;
        den = p;
    }

    /**
     * @param now the time
     * @return TokensAt, as a double
     */
    public double tokensAt(long now) {
        BigInteger[] t = advance(now);
        return new java.math.BigDecimal(t[0]).divide(new java.math.BigDecimal(t[1]),
                java.math.MathContext.DECIMAL64).doubleValue();
    }

    /**
     * @param now the time
     * @return whole tokens, never negative
     */
    public long tokens(long now) {
        BigInteger[] t = advance(now);
        return t[0].signum() <= 0 ? 0 : t[0].divide(t[1]).longValueExact();
    }

    /** @return the burst */
    public long burst() {
        return burst;
    }
}
