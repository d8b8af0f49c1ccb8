package io.github.sluice.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.testing.Linkage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.SpringVersion;

/**
 * Every Spring and Reactor method, constructor and field that the adapter's classes call exists on
 * the class path this runs on: Spring Framework 6.2 here, 7.0 in webflux/boot4-tests (the same
 * source, the same jar). A call that links against one generation only fails here, before a
 * request reaches it (as {@code HttpHeaders.get(Object)} did on Spring 7).
 */
class BinaryCompatibilityTest {

    @Test
    void everySpringAndReactorCall_resolvesOnThisClassPath() {
        assertEquals(List.of(), Linkage.missingMembers(Linkage.origin(SluiceWebFilter.class),
                List.of("org.springframework.", "reactor.", "io.netty."), getClass().getClassLoader()),
                "calls that do not link on Spring " + SpringVersion.getVersion());
    }
}
