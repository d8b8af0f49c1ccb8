package io.github.sluice;

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
 * filter-core's packages are layers: each uses only the packages below it (imports, static
 * imports and qualified names in code; Javadoc may mention any). A cycle between packages, or a
 * dependency that reaches up (the store needing the enforcer, say), fails here with the file and
 * the line that wrote it. The order and the reasons are in docs/architecture.md.
 */
class LayeringTest {

    private static final List<String> LAYERS = Layers.BOTTOM_TO_TOP;

    private static final SourceDependencies MAIN = SourceDependencies.scan(Path.of("src", "main", "java"),
            Layers.PREFIX);

    @Test
    void everyPackage_isALayer_andEveryLayerExists() {
        // A new package must be given its place in the order, and the order lists nothing gone
        Set<String> layers = LAYERS.stream().map(Layers::qualified).collect(Collectors.toSet());
        assertEquals(layers, MAIN.packages(), "the packages of filter-core and LAYERS differ");
        assertTrue(MAIN.files() > 50, "read only " + MAIN.files() + " files");
    }

    @Test
    void noPackage_usesOneAboveIt() {
        List<SourceDependencies.Reference> bad = MAIN.upwardOrUnknown(LAYERS);
        assertTrue(bad.isEmpty(), "uses that go up a layer (order " + LAYERS + "):" + SourceDependencies.lines(bad));
    }

    @Test
    void noTwoPackages_useEachOther() {
        List<SourceDependencies.Reference> bad = MAIN.mutual();
        assertTrue(bad.isEmpty(), "packages that use each other:" + SourceDependencies.lines(bad));
    }

    @Test
    void internal_usesNothingOfSluice() {
        List<SourceDependencies.Reference> bad = MAIN.references().stream()
                .filter(r -> r.from().equals(Layers.qualified(Layers.INTERNAL))).collect(Collectors.toList());
        assertTrue(bad.isEmpty(), "internal is the bottom layer:" + SourceDependencies.lines(bad));
    }

    @Test
    void layers_areUsed_soTheTestReadsRealDependencies() {
        // The reader finds what is known to be there: the enforcer uses the store, the
        // algorithms use core; were it blind, the rules above would pass on anything.
        assertTrue(MAIN.graph().get("io.github.sluice.http").contains("io.github.sluice.store"), MAIN.graph()::toString);
        assertTrue(MAIN.graph().get("io.github.sluice.algorithm").contains("io.github.sluice.core"), MAIN.graph()::toString);
    }

    @Test
    void everyPackage_hasAPackageInfo() {
        // Each says which of its types are API and which SPI, its layer and its thread safety
        assertEquals(List.of(), MAIN.undocumented());
    }
}
