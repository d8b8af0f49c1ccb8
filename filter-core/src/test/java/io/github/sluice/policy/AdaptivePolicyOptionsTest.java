package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.adaptive.Gradient;
import io.github.sluice.key.KeyResolvers;
import org.junit.jupiter.api.Test;

/**
 * The request-level options of adaptive policies: {@code drop=} (the statuses that count as
 * overload), {@code partitions=} (guaranteed shares) and {@code partition=} (how a request's
 * partition is found). The language equals the builder, and every mistake fails at parse time
 * naming the option and the value.
 */
class AdaptivePolicyOptionsTest {

    @Test
    void parse_dropAndPartitions_equalTheBuilder() {
        Policy built = Policy.builder("api")
                .algorithm(Gradient.builder().min(5).max(500).initial(20).partition("paid", 0.7).partition("free", 0.3).build())
                .key(KeyResolvers.global())
                .drop(DropStatuses.of(503, 504, 429))
                .partition(KeyResolvers.header("X-Tier"))
                .build();
        assertEquals(built, Policy.parse("api = adaptive gradient min=5 max=500 initial=20 key=global drop=429,503,504"
                + " partitions=paid:70,free:30 partition=header:X-Tier"));
    }

    @Test
    void defaultDrop_is503And504() {
        Policy p = Policy.parse("api = adaptive aimd key=global");
        assertEquals(DropStatuses.DEFAULT, p.drop());
        assertTrue(p.drop().contains(503) && p.drop().contains(504));
        assertFalse(p.drop().contains(500) || p.drop().contains(200) || p.drop().contains(429));
    }

    @Test
    void dropStatuses_parseClassesListsAndNone() {
        DropStatuses d = DropStatuses.parse("5xx, 429");
        for (int s = 100; s < 600; s++) {
            assertEquals(s == 429 || s >= 500, d.contains(s), "status " + s);
        }
        assertEquals("429,5xx", d.toString());
        assertTrue(DropStatuses.parse("none").isEmpty());
        assertFalse(DropStatuses.NONE.contains(503));
        assertFalse(d.contains(-1) || d.contains(0) || d.contains(600) || d.contains(Integer.MAX_VALUE));
        assertEquals(DropStatuses.parse("503,504"), DropStatuses.DEFAULT);
    }

    @Test
    void parse_badDrop_namesTheOptionAndTheItem() {
        for (String bad : new String[] {"50", "6xx", "abc", "503,,504", "", "99", "5000"}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> Policy.parse("api = adaptive aimd key=global drop=" + bad), bad);
            assertTrue(e.getMessage().contains("drop"), e.getMessage());
        }
    }

    @Test
    void parse_dropOnAFixedPolicy_isRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("slots = concurrency 10 key=global drop=503"));
        assertTrue(e.getMessage().contains("drop applies to adaptive policies only"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Policy.builder("slots")
                .algorithm(io.github.sluice.algorithm.Concurrency.of(10)).key(KeyResolvers.global())
                .drop(DropStatuses.NONE).build());
    }

    @Test
    void parse_partitionsWithoutPartition_isRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("api = adaptive gradient key=global partitions=paid:70,free:30"));
        assertTrue(e.getMessage().contains("partition=attribute:tier"), e.getMessage());
    }

    @Test
    void parse_partitionWithoutPartitions_isRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("api = adaptive gradient key=global partition=header:X-Tier"));
        assertTrue(e.getMessage().contains("partitions=paid:70,free:30"), e.getMessage());
    }

    @Test
    void parse_badPartitions_nameTheOptionAndTheValue() {
        for (String bad : new String[] {"paid", "paid:", ":70", "paid:70,free:40", "paid:x", "paid:70,paid:10"}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> Policy.parse("api = adaptive gradient key=global partition=header:X-Tier partitions=" + bad), bad);
            assertTrue(e.getMessage().contains("partitions"), e.getMessage());
        }
    }
}
