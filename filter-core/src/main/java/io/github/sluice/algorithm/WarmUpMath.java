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

    /** {@code floor(a * b / 2^shift)} for {@code a, b >= 0}, {@code 1 <= shift <= 63}, when it fits. */
    static long mulShiftFloor(long a, long b, int shift) {
        return (Math.multiplyHigh(a, b) << (64 - shift)) | ((a * b) >>> shift);
    }

    /**
     * {@code ceil(a * b / 2^shift)} for {@code a, b >= 0}, {@code 1 <= shift <= 63}, when the
     * result fits in 63 bits: the rounding that makes a cost never smaller than the exact one.
     */
    static long mulShiftCeil(long a, long b, int shift) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        long rounded = lo + ((1L << shift) - 1);
        if (Long.compareUnsigned(rounded, lo) < 0) {
            hi++;
        }
        return (hi << (64 - shift)) | (rounded >>> shift);
    }

    /**
     * {@code floor(P * (1 + c) / (c + 5))}: the threshold credit below which permits are stable,
     * rounded down so that the costly part above it is never smaller than Guava's.
     */
    static long threshold(long warmUpNanos, double coldFactor) {
        BigDecimal c = new BigDecimal(coldFactor);
        return BigDecimal.valueOf(warmUpNanos).multiply(c.add(BigDecimal.ONE))
                .divide(c.add(BigDecimal.valueOf(5)), EXACT_ENOUGH)
                .setScale(0, RoundingMode.FLOOR).longValueExact();
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

    /**
     * {@code ceil(C * 2^shift)}: the credit per permit in fixed point, rounded up so that a request
     * spends at least the credit Guava's would (leaving the key no warmer than Guava's).
     */
    static long creditPerPermit(long period, long permits, double coldFactor, int shift) {
        BigDecimal[] f = credit(period, permits, coldFactor);
        return ceil(f[0].multiply(BigDecimal.valueOf(2).pow(shift)).divide(f[1], EXACT_ENOUGH));
    }

    /**
     * {@code ceil(2^(shift + 50) * K / W)} with {@code K = (c - 1)(c + 5) / (4 (1 + c))} and Guava's
     * exact width {@code W = 4 P / (c + 5)} (not the rounded {@code width}, which can only be
     * larger): the slope of the extra cost above the threshold, rounded up, scaled so that the
     * product with a credit below {@code 2^shift} fits.
     */
    static long slope(double coldFactor, long warmUpNanos, long width, int shift) {
        if (width == 0 || coldFactor == 1.0) {
            return 0;
        }
        BigDecimal c = new BigDecimal(coldFactor);
        BigDecimal cPlusFive = c.add(BigDecimal.valueOf(5));
        BigDecimal num = c.subtract(BigDecimal.ONE).multiply(cPlusFive).multiply(cPlusFive);
        BigDecimal den = c.add(BigDecimal.ONE).multiply(BigDecimal.valueOf(16))
                .multiply(BigDecimal.valueOf(warmUpNanos));
        return ceil(BigDecimal.valueOf(2).pow(shift + 50).multiply(num).divide(den, EXACT_ENOUGH));
    }

    private static long ceil(BigDecimal value) {
        return value.setScale(0, RoundingMode.CEILING).longValueExact();
    }
}
