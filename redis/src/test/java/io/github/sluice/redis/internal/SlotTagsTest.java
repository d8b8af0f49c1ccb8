package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The probe's per-slot hash tags: a key {@code ...:{<tag>}} must land in the slot the probe means
 * to check, or the probe would check one master twice and another never.
 */
class SlotTagsTest {

    @Test
    void of_everySlot_isATagThatRedisClusterHashesToThatSlot() {
        for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
            String tag = SlotTags.of(slot);
            assertTrue(tag.length() <= 4 && tag.matches("[0-9a-z]+"), tag);
            assertEquals(slot, SlotHash.getSlot(("sluice:~probe:x:{" + tag + "}").getBytes(StandardCharsets.US_ASCII)),
                    "tag " + tag);
        }
    }

    @Test
    void of_outsideTheSlots_isRefusedNamingTheValue() {
        assertEquals("slot must be between 0 and 16383 but was 16384",
                assertThrows(IllegalArgumentException.class, () -> SlotTags.of(16_384)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> SlotTags.of(-1));
    }
}
