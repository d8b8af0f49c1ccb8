package io.github.sluice.jaxrs;

import io.github.sluice.testing.JavadocSamples;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every Java sample of the jaxrs module's Javadoc compiles against the JAX-RS API and Jersey. */
class JavadocSamplesTest {

    @Test
    void everyJavadocSample_compiles() {
        JavadocSamples.assertAllCompile(Path.of("src/main/java"), Map.of(
                        "SluiceFeature.java", "org.glassfish.jersey.server.ResourceConfig resourceConfig = null;",
                        "RateLimited.java", "static class Report { }"),
                "jakarta.ws.rs.*");
    }
}
