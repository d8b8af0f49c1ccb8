package io.github.sluice.redis.internal;

import io.lettuce.core.cluster.SlotHash;

/**
 * For every Redis Cluster slot, a short hash tag that lands in it: the probe writes one key on
 * each master, and a key reaches the master that serves its slot. The table (16,384 tags of at
 * most four characters: base-36 numbers) is computed on first use, in a few milliseconds, and
 * only by a store connected to a cluster.
 *
 * <p>Thread-safe.
 */
public final class SlotTags {

    private SlotTags() {
    }

    /**
     * @param slot a slot, {@code 0 <= slot < 16384}
     * @return a tag {@code t} such that a key containing {@code {t}} is in that slot
     * @throws IllegalArgumentException if the slot is out of range
     */
    public static String of(int slot) {
        if (slot < 0 || slot >= SlotHash.SLOT_COUNT) {
            throw new IllegalArgumentException("slot must be between 0 and "
                    + (SlotHash.SLOT_COUNT - 1) + " but was " + slot);
        }
        return Integer.toString(Table.NUMBERS[slot], 36);
    }

    /** The table, built when first needed. */
    private static final class Table {
        static final int[] NUMBERS = compute();

        private static int[] compute() {
            int[] numbers = new int[SlotHash.SLOT_COUNT];
            java.util.Arrays.fill(numbers, -1);
            int missing = numbers.length;
            for (int i = 0; missing > 0; i++) {
                int slot = crc16(i) & (SlotHash.SLOT_COUNT - 1);
                if (numbers[slot] < 0) {
                    numbers[slot] = i;
                    missing--;
                }
            }
            return numbers;
        }

        /** CRC16-CCITT (XMODEM), as Redis Cluster hashes keys, of {@code i} written in base 36. */
        private static int crc16(int i) {
            int digits = 1;
            for (int v = i; v >= 36; v /= 36) {
                digits++;
            }
            int crc = 0;
            for (int d = digits - 1; d >= 0; d--) {
                int v = i;
                for (int k = 0; k < d; k++) {
                    v /= 36;
                }
                int digit = v % 36;
                int c = digit < 10 ? '0' + digit : 'a' + digit - 10;
                crc ^= c << 8;
                for (int b = 0; b < 8; b++) {
                    crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
                }
                crc &= 0xFFFF;
            }
            return crc;
        }
    }
}
