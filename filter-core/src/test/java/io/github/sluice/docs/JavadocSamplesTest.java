package io.github.sluice.docs;

import io.github.sluice.testing.JavadocSamples;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every Java sample of filter-core's Javadoc compiles against the code it documents (issue 28,
 * item 10: {@code RedisStore}'s showed a {@code TokenBucket.of} overload that no longer existed).
 * The names a sample takes from its prose are declared here, nothing else.
 */
public class JavadocSamplesTest {

    /** What the samples' prose says they are given; also read by the redis module's test. */
    public static final Map<String, String> GIVENS = Map.ofEntries(
            Map.entry("SluiceConfig.java", "Store redisStore = null;"),
            Map.entry("Enforcer.java#1", "Enforcer enforcer = null;"),
            Map.entry("package-info.java", """
                    interface FilterConfig { String getInitParameter(String name); }
                    interface Output { void write(byte[] b) throws java.io.IOException; }
                    interface Response { void setStatus(int s); void addHeader(String n, String v); Output getOutputStream(); }
                    interface Chain { void doFilter(Object request, Response response) throws Exception; }
                    FilterConfig filterConfig = null;
                    RequestView view = null;
                    Object request = null;
                    Response response = null;
                    Chain chain = null;
                    """),
            Map.entry("package-info.java#1:members", "void delay(long nanos) { }"),
            Map.entry("EnforcerMetrics.java", "String policies = \"\"; String url = \"\";"),
            Map.entry("EnforcerMetrics.java#1:module", "redis"), // RedisStore: compiled by redis's test
            Map.entry("EnforcerJmx.java", "String policies = \"\";"),
            Map.entry("Limiter.java#2", "Limiter<?> limiter = null;"),
            Map.entry("Limiter.java#2:members", "boolean otherCheckPasses() { return true; }"),
            Map.entry("Permit.java", "ConcurrencyLimiter limiter = null;"),
            Map.entry("Permit.java#1:returns", "String"),
            Map.entry("Permit.java#1:members", "String tooBusy() { return \"busy\"; } String doWork() { return \"done\"; }"));

    @Test
    void everyJavadocSample_compiles() {
        JavadocSamples.assertAllCompile(Path.of("src/main/java"), GIVENS);
    }
}
