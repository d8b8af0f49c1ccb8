package io.github.sluice.spring.boot;

import io.github.sluice.testing.JavadocSamples;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every Java sample of the starter's Javadoc compiles against Spring. */
class JavadocSamplesTest {

    @Test
    void everyJavadocSample_compiles() {
        JavadocSamples.assertAllCompile(Path.of("src/main/java"), Map.of("RateLimited.java", "static class Report { }"),
                "org.springframework.web.bind.annotation.*",
                // Two annotations of that name are on the class path (the WebFlux one too): this module's.
                "io.github.sluice.spring.boot.web.RateLimited");
    }
}
