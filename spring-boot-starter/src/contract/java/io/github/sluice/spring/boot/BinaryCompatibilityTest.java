package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.testing.Linkage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/**
 * Every Spring method, constructor and field that the starter's classes call exists on the class
 * path this runs on, for every Boot line that compiles this contract (3.3, 3.4, 3.5 and 4.0): the
 * jar is built against 3.5, and a call that changed on another line would fail there with {@code
 * NoSuchMethodError}. Classes that a line does not have (Boot 4.0's health API on 3.x, and the
 * other way round; WebFlux where it is absent) are the starter's conditions' business, not this
 * test's: {@link Linkage} skips owners that do not load.
 */
class BinaryCompatibilityTest {

    @Test
    void everySpringCall_resolvesOnThisClassPath() {
        assertEquals(List.of(), Linkage.missingMembers(Linkage.origin(SluiceAutoConfiguration.class),
                List.of("org.springframework.", "reactor."), getClass().getClassLoader()),
                "calls that do not link on Boot " + SpringBootVersion.getVersion());
    }
}
