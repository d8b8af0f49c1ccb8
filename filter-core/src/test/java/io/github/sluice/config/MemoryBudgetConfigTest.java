package io.github.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import org.junit.jupiter.api.Test;

/** {@code max-keys} and {@code memory-budget}: a configuration whose worst case does not fit fails at start-up. */
class MemoryBudgetConfigTest {

    private static final String POLICY = "policy.login = sliding-log 100/1m key=ip\n";

    @Test
    void maxKeysOverTheBudget_enforcerFailsAtStartUp_namingThePolicyItsBytesPerKeyAndTheBudget() {
        Enforcer.Builder config = SluiceConfig.parseProperties("max-keys = 1000000\n" + POLICY, "t");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, config::build);

        assertEquals("policy 'login' (sliding-log) takes up to 1,226 bytes (1.2 KiB) per key (856 for its"
                + " state, 74 for the registry's entry, 296 for a key of up to 128 characters);"
                + " 1,000,000 keys (maxKeys) need up to 1,226,000,000 bytes (1.1 GiB), more than the"
                + " memory budget of 268,435,456 bytes (256 MiB); lower maxKeys or raise memoryBudget",
                e.getMessage());
    }

    @Test
    void memoryBudget_raised_takesTheSameConfiguration() {
        Enforcer.Builder config = SluiceConfig.parseProperties(
                "max-keys = 1000000\nmemory-budget = 2g\n" + POLICY, "t");

        Enforcer enforcer = config.build();

        assertEquals(1_000_000, ((ShardedRegistry) enforcer.store()).maxKeys("login"));
    }

    @Test
    void maxKeyLength_countsInTheWorstCase() {
        Enforcer.Builder config = SluiceConfig.parseProperties(
                "max-key-length = 4096\nmemory-budget = 1g\n" + POLICY, "t");

        ShardedRegistry registry = (ShardedRegistry) config.build().store();

        // 856 of state + 74 of entry + 24 + 16 + 2 * 4096 of key, in the whole 1 GiB
        assertEquals(4096, registry.maxKeyLength());
        assertEquals(1_073_741_824L / (856 + 74 + 24 + 16 + 8192), registry.maxKeys("login"));
    }
}
