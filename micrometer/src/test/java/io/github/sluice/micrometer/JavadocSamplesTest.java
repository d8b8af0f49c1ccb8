package io.github.sluice.micrometer;

import io.github.sluice.testing.JavadocSamples;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every Java sample of the micrometer module's Javadoc compiles against Micrometer. */
class JavadocSamplesTest {

    @Test
    void everyJavadocSample_compiles() {
        JavadocSamples.assertAllCompile(Path.of("src/main/java"), Map.of("SluiceMetrics.java", "Enforcer enforcer = null;"),
                "io.micrometer.core.instrument.*", "io.micrometer.prometheusmetrics.*");
    }
}
