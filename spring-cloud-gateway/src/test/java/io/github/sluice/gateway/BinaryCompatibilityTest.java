package io.github.sluice.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.testing.Linkage;
import io.github.sluice.webflux.SluiceWebFilter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/**
 * Every Spring, Spring Cloud and Reactor member that the gateway's and the WebFlux adapter's
 * classes call exists on the class path this runs on: Boot 3.5 with Gateway 4.3 here, Boot 4.0
 * with Gateway 5.0 in spring-cloud-gateway/boot4-tests (the same source, the same jars).
 */
class BinaryCompatibilityTest {

    @Test
    void everySpringAndReactorCall_resolvesOnThisClassPath() {
        for (Class<?> jar : List.of(SluiceRateLimiter.class, SluiceWebFilter.class)) {
            assertEquals(List.of(), Linkage.missingMembers(Linkage.origin(jar),
                    List.of("org.springframework.", "reactor."), getClass().getClassLoader()),
                    "calls of " + Linkage.origin(jar).getFileName() + " that do not link on Boot "
                            + SpringBootVersion.getVersion());
        }
    }
}
