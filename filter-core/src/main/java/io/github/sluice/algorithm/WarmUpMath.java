package io.github.sluice.algorithm;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Fixed-point arithmetic for {@link WarmUp}: exact 128-bit products of non-negative {@code long}s
 * rounded back to 64 bits, and the build-time constants, computed once in exact decimal arithmetic
 * from the configuration so that the decision path never touches floating point.
 */
final class WarmUpMath {

    private static final MathContext EXACT_ENOUGH = new MathContext(60, RoundingMode.HALF_EVEN);

    private WarmUpMath() {
    }

    /**
     * {@code round(a * b / 2^shift)}, halves rounded up, for {@code a, b >= 0}, {@code 1 <= shift
     * <= 63}, when the result fits in 63 bits (the caller's bounds guarantee it).
     */
    static long mulShiftRound(long a, long b, int shift) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        long rounded = lo + (1L << (shift - 1));
        if (Long.compareUnsigned(rounded, lo) < 0) {
            hi++;
        }
        return (hi << (64 - shift)) | (rounded >>> shift);
    }

    /** {@code round(P * (1 + c) / (c + 5))}: the threshold credit below which permits are stable. */
    static long threshold(long warmUpNanos, double coldFactor) {
        BigDecimal c = new BigDecimal(coldFactor);
        return round(BigDecimal.valueOf(warmUpNanos).multiply(c.add(BigDecimal.ONE))
                .divide(c.add(BigDecimal.valueOf(5)), EXACT_ENOUGH));
    }

    /**
     * Nanoseconds of credit one stored permit is worth (Guava's {@code coolDownInterval}),
     * {@code C = 2 (1 + c) period / ((c + 5) permits)}, as the exact fraction
     * {@code [numerator, denominator]}.
     */
    private static BigDecimal[] credit(long period, long permits, double coldFactor) {
        BigDecimal c = new BigDecimal(coldFactor);
        return new BigDecimal[] {
            BigDecimal.valueOf(2).multiply(c.add(BigDecimal.ONE)).multiply(BigDecimal.valueOf(period)),
            c.add(BigDecimal.valueOf(5)).multiply(BigDecimal.valueOf(permits))};
    }

    /**
     * The scale {@code q} of {@link #creditPerPermit}: as many fractional bits as keep
     * {@code C * 2^q} below {@code 2^61}, between 1 and 40.
     */
    static int creditShift(long period, long permits, double coldFactor) {
        BigDecimal[] f = credit(period, permits, coldFactor);
        long whole = f[0].divide(f[1], 0, RoundingMode.CEILING).longValueExact();
        int bits = 64 - Long.numberOfLeadingZeros(whole);
        return Math.max(1, Math.min(40, 61 - bits));
    }

    /** {@code round(C * 2^shift)}: the credit per permit in fixed point. */
    static long creditPerPermit(long period, long permits, double coldFactor, int shift) {
        BigDecimal[] f = credit(period, permits, coldFactor);
        return round(f[0].multiply(BigDecimal.valueOf(2).pow(shift)).divide(f[1], EXACT_ENOUGH));
    }

    /**
     * {@code round(2^(shift + 50) * K / width)} with {@code K = (c - 1)(c + 5) / (4 (1 + c))}: the
     * slope of the extra cost above the threshold, scaled so that the product with a credit below
     * {@code 2^shift} fits.
     */
    static long slope(double coldFactor, long width, int shift) {
        if (width == 0) {
            return 0;
        }
        BigDecimal c = new BigDecimal(coldFactor);
        BigDecimal k = c.subtract(BigDecimal.ONE).multiply(c.add(BigDecimal.valueOf(5)))
                .divide(c.add(BigDecimal.ONE).multiply(BigDecimal.valueOf(4)), EXACT_ENOUGH);
        return round(BigDecimal.valueOf(2).pow(shift + 50).multiply(k)
                .divide(BigDecimal.valueOf(width), EXACT_ENOUGH));
    }

    private static long round(BigDecimal value) {
        return value.setScale(0, RoundingMode.HALF_UP).longValueExact();
    }
}
