package io.github.sluice.webflux;

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
 * The adapter uses what filter-core exports and nothing else: not its {@code internal} helpers,
 * not another adapter, not the Redis store.
 */
class LayeringTest {

    private static final SourceDependencies MAIN = SourceDependencies.scan(Path.of("src", "main", "java"),
            Layers.PREFIX);

    @Test
    void adapter_usesOnlyWhatTheCoreExports() {
        List<SourceDependencies.Reference> bad = MAIN.outside(Layers.EXPORTED);
        assertTrue(bad.isEmpty(), "the adapter uses a package the core does not export, or another"
                + " module's:" + SourceDependencies.lines(bad));
    }

    @Test
    void scan_readsTheAdaptersPackageAndItsUses() {
        assertEquals(Set.of("io.github.sluice.webflux"), MAIN.packages());
        Set<String> used = MAIN.references().stream().map(SourceDependencies.Reference::to).collect(Collectors.toSet());
        assertTrue(used.containsAll(Set.of("io.github.sluice.http", "io.github.sluice.request")), used::toString);
    }

    @Test
    void everyPackage_hasAPackageInfo() {
        assertEquals(List.of(), MAIN.undocumented());
    }
}
