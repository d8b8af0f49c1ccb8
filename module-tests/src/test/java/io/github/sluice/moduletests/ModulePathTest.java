package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.http.Enforcer;
import io.github.sluice.limiter.TokenBucketLimiter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.module.ModuleDescriptor;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Sluice as a modular application sees it: these tests are patched into the module
 * {@code io.github.sluice.moduletests}, and the Sluice jars are on the module path, so every
 * {@code module-info} is read and resolved by the JVM itself. A missing {@code requires}, an export
 * dropped or added, or an internal package made visible fails here, where the class-path tests
 * of the other modules cannot see it.
 */
class ModulePathTest {

    private static final String CORE = "io.github.sluice.core";

    /** The packages the core exports: its layers, bottom to top, without {@code internal}. */
    private static final Set<String> CORE_EXPORTS = Set.of("core", "algorithm", "adaptive", "limiter", "store", "request",
            "key", "policy", "http", "config").stream().map(p -> "io.github.sluice." + p).collect(Collectors.toSet());

    private static Module module(String name) {
        Optional<Module> m = ModuleLayer.boot().findModule(name);
        assertTrue(m.isPresent(), name + " is not in the boot layer: " + ModuleLayer.boot().modules());
        return m.get();
    }

    private static Set<String> unqualifiedExports(Module m) {
        return m.getDescriptor().exports().stream().filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
    }

    @Test
    void tests_runOnTheModulePath_notTheClassPath() {
        // Were surefire to fall back to the class path, every other check here would be vacuous
        assertEquals("io.github.sluice.moduletests", ModulePathTest.class.getModule().getName());
        assertEquals(CORE, Enforcer.class.getModule().getName());
    }

    @Test
    void core_exportsItsLayers_andNothingElse() {
        Module core = module(CORE);
        assertFalse(core.getDescriptor().isAutomatic(), "filter-core lost its module-info");
        assertEquals(CORE_EXPORTS, unqualifiedExports(core));
        assertTrue(core.getDescriptor().exports().stream().noneMatch(ModuleDescriptor.Exports::isQualified),
                "no qualified exports: " + core.getDescriptor().exports());
        // The JDK only: java.base, and java.management for the adaptive limits' CPU gauge
        Set<String> requires = core.getDescriptor().requires().stream()
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
        assertTrue(requires.contains("java.base"), requires::toString);
        assertTrue(requires.stream().allMatch(name -> ModuleLayer.boot().findModule(name)
                .filter(m -> m.getClassLoader() == null || m.getClassLoader() == ClassLoader.getPlatformClassLoader())
                .isPresent()), () -> "the core depends on the JDK only: " + requires);
    }

    @Test
    void core_internal_isInTheModule_butNotExported() {
        Module core = module(CORE);
        assertTrue(core.getPackages().contains("io.github.sluice.internal"), core.getPackages()::toString);
        assertFalse(core.isExported("io.github.sluice.internal"));
        assertFalse(core.isOpen("io.github.sluice.internal", ModulePathTest.class.getModule()));
    }

    @Test
    void core_internal_isUnreachable_fromAUserModule() throws Exception {
        // The class loads (it is in a module we read), but its public members are not accessible
        Class<?> names = Class.forName("io.github.sluice.internal.Names");
        assertEquals(CORE, names.getModule().getName());
        assertThrows(IllegalAccessException.class, () -> MethodHandles.lookup().findStatic(names, "token",
                MethodType.methodType(String.class, String.class, String.class)));
        assertThrows(IllegalAccessException.class, () -> names.getMethod("token", String.class, String.class)
                .invoke(null, "name", "x"));
    }

    @Test
    void adapters_andRedis_exportTheirOnePackage_andHideTheirInternals() {
        assertEquals(Set.of("io.github.sluice.servlet"), unqualifiedExports(module("io.github.sluice.servlet")));
        assertEquals(Set.of("io.github.sluice.jaxrs"), unqualifiedExports(module("io.github.sluice.jaxrs")));
        Module redis = module("io.github.sluice.redis");
        assertEquals(Set.of("io.github.sluice.redis"), unqualifiedExports(redis));
        assertTrue(redis.getPackages().contains("io.github.sluice.redis.internal"), redis.getPackages()::toString);
    }

    @Test
    void everyRequires_ofEverySluiceModule_resolves() {
        // The JVM refused to start had one failed; this also says what each module reads
        for (String name : Set.of(CORE, "io.github.sluice.servlet", "io.github.sluice.jaxrs", "io.github.sluice.redis")) {
            Module m = module(name);
            for (ModuleDescriptor.Requires r : m.getDescriptor().requires()) {
                if (r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)) {
                    continue;
                }
                Module required = module(r.name());
                assertTrue(m.canRead(required), name + " does not read " + r.name());
            }
        }
        // requires transitive: a user of an adapter reads the core and the container's API
        Module self = ModulePathTest.class.getModule();
        for (String name : Set.of(CORE, "jakarta.servlet", "jakarta.ws.rs")) {
            assertTrue(self.canRead(module(name)), "an adapter's user does not read " + name);
        }
        assertFalse(self.canRead(module("lettuce.core")), "redis must not expose Lettuce transitively");
    }

    @Test
    void core_works_onTheModulePath() {
        // A limiter built and used through the exported API only: no reflection into a
        // non-exported package, no resource the module cannot see
        TokenBucketLimiter limiter = TokenBucketLimiter.of(TokenBucket.of(Rate.of(2, Duration.ofHours(1))));
        assertTrue(limiter.allow());
        assertTrue(limiter.allow());
        assertFalse(limiter.allow());
    }
}
