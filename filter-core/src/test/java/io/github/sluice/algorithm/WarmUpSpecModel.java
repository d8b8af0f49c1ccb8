package io.github.sluice.algorithm;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Reference model of {@link WarmUp}'s integer specification (its class documentation), computed
 * with unbounded integers and exact fractions: no 128-bit tricks, no shortcuts. The constants are
 * derived here from the configuration independently of {@link WarmUpMath}.
 */
final class WarmUpSpecModel {

    private static final BigInteger TWO = BigInteger.TWO;
    private static final long MAX_NANOS = 1L << 61;
    private static final long TICKET = (1L << 62) - 1;

    final long permits;
    final long interval;
    final long warmUp;
    final long threshold;
    final long creditPerPermit;
    final int creditShift;
    final int widthBits;
    final long slope;

    private long next;
    private long credit;

    WarmUpSpecModel(long permits, long periodNanos, long warmUpNanos, double coldFactor, long now) {
        this.permits = permits;
        this.interval = (periodNanos + permits - 1) / permits;
        this.warmUp = warmUpNanos;
        BigDecimal exact = new BigDecimal(coldFactor);
        // c = cn / cd exactly
        BigInteger cn = exact.unscaledValue();
        BigInteger cd = BigInteger.TEN.pow(Math.max(0, exact.scale()));
        if (exact.scale() < 0) {
            cn = cn.multiply(BigInteger.TEN.pow(-exact.scale()));
        }
        BigInteger onePlusC = cn.add(cd);
        BigInteger cPlusFive = cn.add(cd.multiply(BigInteger.valueOf(5)));
        this.threshold = BigInteger.valueOf(warmUp).multiply(onePlusC).divide(cPlusFive).longValueExact(); // floor
        // C = 2 (1 + c) period / ((c + 5) permits), kept as a fraction
        BigInteger creditNum = TWO.multiply(onePlusC).multiply(BigInteger.valueOf(periodNanos));
        BigInteger creditDen = cPlusFive.multiply(BigInteger.valueOf(permits));
        BigInteger ceil = creditNum.add(creditDen).subtract(BigInteger.ONE).divide(creditDen);
        this.creditShift = Math.max(1, Math.min(40, 61 - ceil.bitLength()));
        this.creditPerPermit = ceilDiv(creditNum.multiply(TWO.pow(creditShift)), creditDen);
        long width = warmUp - threshold;
        this.widthBits = Math.max(1, BigInteger.valueOf(width).bitLength());
        if (width == 0) {
            this.slope = 0;
        } else {
            // K = (c - 1)(c + 5) / (4 (1 + c)), Guava's exact width W = 4 P / (c + 5);
            // slope = ceil(2^(s + 50) K / W) = ceil(2^(s + 50) (c - 1)(c + 5)^2 / (16 (1 + c) P))
            BigInteger num = cn.subtract(cd).multiply(cPlusFive).multiply(cPlusFive).multiply(TWO.pow(widthBits + 50));
            BigInteger den = cd.multiply(cd).multiply(onePlusC).multiply(BigInteger.valueOf(16))
                    .multiply(BigInteger.valueOf(warmUp));
            this.slope = ceilDiv(num, den);
        }
        this.next = Math.max(0, now);
        this.credit = warmUp;
    }

    private static long roundHalfUp(BigInteger num, BigInteger den) {
        return num.multiply(TWO).add(den).divide(den.multiply(TWO)).longValueExact();
    }

    private static long ceilDiv(BigInteger num, BigInteger den) {
        return num.add(den).subtract(BigInteger.ONE).divide(den).longValueExact();
    }

    private static long shiftCeil(BigInteger value, int shift) {
        return ceilDiv(value, TWO.pow(shift));
    }

    /** The credit taken from the state: rounded down with the constant less one (below exact). */
    private long spentAtMost(long cost) {
        return BigInteger.valueOf(cost).multiply(BigInteger.valueOf(creditPerPermit - 1))
                .shiftRight(creditShift).longValueExact();
    }

    /** The credit the extra cost is charged on: rounded up. */
    private long spentAtLeast(long cost) {
        return shiftCeil(BigInteger.valueOf(cost).multiply(BigInteger.valueOf(creditPerPermit)), creditShift);
    }

    private long extra(long from, long to) {
        long b = Math.max(0, from - threshold);
        long a = Math.max(0, to - threshold);
        long mean = shiftCeil(BigInteger.valueOf(b + a).multiply(BigInteger.valueOf(slope)), widthBits);
        return shiftCeil(BigInteger.valueOf(b - a).multiply(BigInteger.valueOf(mean)), 50);
    }

    private long remaining(long now) {
        if (next <= now) {
            return permits;
        }
        long owed = (next - now + interval - 1) / interval;
        return Math.max(0, permits - owed);
    }

    private Decision deny(long now, long retryAfter) {
        return new Decision(Outcome.DENIED, permits, remaining(now), Math.max(0, next - now),
                retryAfter, 0);
    }

    Decision acquire(long cost, long now) {
        if (cost == 0) {
            return new Decision(Outcome.ALLOWED, permits, remaining(now), Math.max(0, next - now), 0, 0);
        }
        if (cost > MAX_NANOS / interval) {
            return deny(now, Decision.NEVER);
        }
        if (next > now) {
            return deny(now, next - now);
        }
        long uEff = Math.min(warmUp, credit + (now - next));
        long after = Math.max(0, uEff - spentAtMost(cost));
        long wait = cost * interval + extra(uEff, Math.max(0, uEff - spentAtLeast(cost)));
        if (wait > TICKET - now) {
            return deny(now, Decision.NEVER);
        }
        next = now + wait;
        credit = after;
        return new Decision(Outcome.ALLOWED, permits, remaining(now), wait, 0, 0);
    }

    /** @return the next free ticket */
    long next() {
        return next;
    }

    /**
     * Refunds an admission of {@code cost} that left the ticket {@code ticket}: only while that
     * is still the next free ticket (a later admission's schedule is its own). The ticket moves
     * back by what the admission added (the stable intervals, plus the extra cost of the credit it
     * spent, known only when some credit is left), and the credit it spent comes back.
     */
    void refund(long cost, long ticket) {
        if (cost <= 0 || cost > MAX_NANOS / interval || credit >= warmUp || next != ticket) {
            return;
        }
        long restored = Math.min(warmUp, credit + spentAtMost(cost));
        next = Math.max(0, next - cost * interval - (credit > 0 ? extra(restored, Math.max(0, restored - spentAtLeast(cost))) : 0));
        credit = restored;
    }
}
