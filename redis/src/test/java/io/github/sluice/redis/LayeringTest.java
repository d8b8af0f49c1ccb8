package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.Layers;
import io.github.sluice.testing.SourceDependencies;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Redis store is a store: it uses filter-core's {@code core}, {@code algorithm} and
 * {@code store} layers and nothing above them (no request, key, policy, HTTP or configuration
 * type), so that it can serve any user of the store SPI. Inside the module, {@code internal} is
 * below the public package and never uses it.
 */
class LayeringTest {

    private static final String PUBLIC = "io.github.sluice.redis";
    private static final String INTERNAL = "io.github.sluice.redis.internal";
    private static final SourceDependencies MAIN = SourceDependencies.scan(Path.of("src", "main", "java"),
            Layers.PREFIX);

    @Test
    void redis_usesOnlyCoreAlgorithmAndStore() {
        List<SourceDependencies.Reference> bad = MAIN.outside(List.of("core", "algorithm", "store"));
        assertTrue(bad.isEmpty(), "the Redis store uses a layer above the store:" + SourceDependencies.lines(bad));
    }

    @Test
    void internal_neverUsesThePublicPackage() {
        List<SourceDependencies.Reference> bad = MAIN.upwardOrUnknown(List.of(
                "core", "algorithm", "store", INTERNAL, PUBLIC));
        assertTrue(bad.isEmpty(), "order core < algorithm < store < redis.internal < redis:"
                + SourceDependencies.lines(bad));
    }

    @Test
    void scan_readsTheModulesPackagesAndTheirUses() {
        assertEquals(Set.of(PUBLIC, INTERNAL), MAIN.packages());
        Set<String> used = MAIN.references().stream().map(SourceDependencies.Reference::to).collect(Collectors.toSet());
        assertTrue(used.containsAll(Set.of("io.github.sluice.store", INTERNAL)), used::toString);
    }

    @Test
    void everyPackage_hasAPackageInfo() {
        // Each says which of its types are API and which SPI, its layer and its thread safety
        assertEquals(List.of(), MAIN.undocumented());
    }
}
