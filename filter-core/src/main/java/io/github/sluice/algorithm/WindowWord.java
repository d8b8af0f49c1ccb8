package io.github.sluice.algorithm;

import io.github.sluice.internal.Units;

/**
 * The one-word layout shared by the window algorithms: {@code (index << countBits) | count}, where
 * {@code index} numbers time units (windows, slots or ticks) since the key's origin and
 * {@code count} is in {@code [0, limit]}.
 *
 * <p>The word stays positive (so it can never equal {@code Cell.RETIRED}) and the index has
 * {@code 63 - countBits} bits. Requiring {@code unit >= 2^(countBits - 1)} nanoseconds makes the
 * index last {@link #HORIZON_NANOS} (about 146 years) from the key's creation; the only limit
 * this imposes is about two permits per nanosecond of unit.
 */
final class WindowWord {

    /** How long a key's index must last without wrapping: 2^62 ns, about 146 years. */
    static final long HORIZON_NANOS = 1L << 62;

    final int countBits;
    final long countMask;
    final long maxIndex;

    /**
     * @param limit the largest count, {@code >= 1}
     * @param unitNanos the length of one index step
     * @param unitName the parameter that sets the unit, for the message
     * @throws IllegalArgumentException if the index could not last the horizon
     */
    WindowWord(long limit, long unitNanos, String unitName) {
        this.countBits = 64 - Long.numberOfLeadingZeros(limit);
        this.countMask = (1L << countBits) - 1;
        this.maxIndex = (1L << (63 - countBits)) - 1;
        if (countBits > 62 || unitNanos < (1L << (countBits - 1))) {
            long maxLimit = maxLimit(unitNanos);
            throw new IllegalArgumentException("limit must be at most " + maxLimit + " for a "
                    + unitName + " of " + Units.duration(unitNanos) + " but was " + limit
                    + " (one word per key holds the count and 146 years of " + unitName + "s)");
        }
    }

    /** The largest limit whose count fits beside an index of units of {@code unitNanos}. */
    static long maxLimit(long unitNanos) {
        int bits = 64 - Long.numberOfLeadingZeros(unitNanos);
        return bits >= 63 ? (1L << 62) - 1 : (1L << bits) - 1;
    }

    long pack(long index, long count) {
        return (index << countBits) | count;
    }

    long index(long word) {
        return word >>> countBits;
    }

    long count(long word) {
        return word & countMask;
    }

    /** {@code index} clamped to the representable range; a stale reading before the origin is 0. */
    long clamp(long index) {
        return index < 0 ? 0 : Math.min(index, maxIndex);
    }
}
