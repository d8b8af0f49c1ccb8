package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MicrosTest {

    @Test
    void ceil_configuredDurations_roundUpSoRedisIsNeverMorePermissive() {
        assertEquals(333_334, Micros.ceil("interval", 333_333_334L));
        assertEquals(600_000, Micros.ceil("interval", 600_000_000L));
        assertEquals(1, Micros.ceil("interval", 1));
        assertEquals(0, Micros.ceil("interval", 0));
    }

    @Test
    void floor_clockReadings_roundDown() {
        assertEquals(1_767_225_600_000_000L, Micros.floor(1_767_225_600_000_000_999L));
        assertEquals(-1, Micros.floor(-1));
    }

    @Test
    void toNanos_saturatesInsteadOfOverflowing() {
        assertEquals(5_000, Micros.toNanos(5));
        assertEquals(0, Micros.toNanos(-3));
        assertEquals(Long.MAX_VALUE, Micros.toNanos(Long.MAX_VALUE / 10));
    }

    @Test
    void checkedAndProduct_beyondExactLuaIntegers_nameTheParameter() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Micros.checked("fixed-window limit", Micros.MAX + 1));
        assertTrue(e.getMessage().startsWith("fixed-window limit must be between 0 and "), e.getMessage());
        IllegalArgumentException p = assertThrows(IllegalArgumentException.class,
                () -> Micros.product("burst * interval", 1L << 30, 1L << 30));
        assertTrue(p.getMessage().startsWith("burst * interval must be at most"), p.getMessage());
        assertEquals(Micros.MAX, Micros.product("x", 1L << 26, 1L << 26));
    }
}
