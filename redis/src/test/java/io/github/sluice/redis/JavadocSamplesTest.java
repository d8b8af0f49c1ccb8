package io.github.sluice.redis;

import io.github.sluice.testing.JavadocSamples;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every Java sample of the redis module's Javadoc compiles (issue 28, item 10: {@code RedisStore}'s
 * showed {@code TokenBucket.of(100, Duration.ofMinutes(1), 20)}, which no longer existed), and so
 * do filter-core's samples that show the Redis store.
 */
class JavadocSamplesTest {

    @Test
    void everyJavadocSample_compiles() {
        JavadocSamples.assertAllCompile(Path.of("src/main/java"), Map.of());
    }

    @Test
    void filterCoresSamplesShowingTheRedisStore_compile() {
        JavadocSamples.assertCompile(Path.of("../filter-core/src/main/java"), "redis",
                io.github.sluice.docs.JavadocSamplesTest.GIVENS);
    }
}
