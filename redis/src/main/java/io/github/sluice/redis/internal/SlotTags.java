package io.github.sluice.redis.internal;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;

/**
 * For every Redis Cluster slot, a short hash tag that lands in it: the probe writes one key on
 * each master, and a key reaches the master that serves its slot. The table (16,384 tags of at
 * most four characters) is computed once, on first use, in a few milliseconds.
 *
 * <p>Thread-safe.
 */
public final class SlotTags {

    private static final String[] TAGS = compute();

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
        return TAGS[slot];
    }

    private static String[] compute() {
        String[] tags = new String[SlotHash.SLOT_COUNT];
        int missing = tags.length;
        for (int i = 0; missing > 0; i++) {
            String t = Integer.toString(i, 36);
            int slot = SlotHash.getSlot(t.getBytes(StandardCharsets.US_ASCII));
            if (tags[slot] == null) {
                tags[slot] = t;
                missing--;
            }
        }
        return tags;
    }
}
