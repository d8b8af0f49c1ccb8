package io.github.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderOptions;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The code of docs/configuration.md "4.3 In code" is this class's code between its "docs:"
 * markers, and its properties file of "4.2" is the test resource {@code sluice.properties}.
 */
class ConfigurationDocTest {

    private static final Path DOC = Path.of("..", "docs", "configuration.md");
    private static final Path SELF = Path.of("src", "test", "java", "io", "github", "sluice", "config",
            "ConfigurationDocTest.java");

    @Test
    void inCode_buildsWhatTheDocSays() {
        // docs: in code (begin)
        Policy perIp = Policy.parse("per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*");
        // the same policy, built:
        Policy same = Policy.builder("per-ip")
                .algorithm(TokenBucket.builder().rate(Rate.perMinute(100)).burst(20).build())
                .key(KeyResolvers.ip())
                .match("/api/*")
                .build();

        Enforcer enforcer = Enforcer.builder()
                .policy(perIp)
                .policies("login = fixed-window 5/1m key=ip match=POST:/login")
                .trustedProxies("10.0.0.0/8")
                .headers(new HeaderOptions(HeaderStyle.DRAFT, false, true, null))
                .build();
        // docs: in code (end)

        assertEquals(perIp, same);
        ClientAddress proxied = ClientAddress.builder().trustedProxies("10.0.0.0/8").build();
        assertEquals(proxied, enforcer.clientAddress());
        for (Policy p : enforcer.policies()) {
            assertEquals(proxied, p.key(), "the ip key of '" + p.name() + "'");
        }
        enforcer.close();
    }

    @Test
    void fromFile_takesTheFile_andTheStoreGivenInCode() {
        try (ShardedRegistry store = ShardedRegistry.builder().build()) {
            // docs: from a file (begin)
            Enforcer fromFile = SluiceConfig.fromProperties("classpath:sluice.properties")
                    .store(store)   // e.g. a RedisStore, instead of a new in-memory store
                    .build();
            // docs: from a file (end)

            assertSame(store, fromFile.store());
            assertEquals(List.of("per-ip", "login"), fromFile.policies().stream().map(Policy::name).toList());
            assertEquals(ClientAddress.builder().trustedProxies("10.0.0.0/8", "fd00::/8").build(),
                    fromFile.clientAddress());
        }
    }

    @Test
    void doc_javaBlocksOf43_areThisCode() throws IOException {
        List<String> blocks = blocks(section("### 4.3 In code"), "```java\n");

        assertEquals(2, blocks.size(), "Java blocks in 4.3");
        assertEquals(normalised(marked("in code")), normalised(blocks.get(0)));
        assertEquals(normalised(marked("from a file")), normalised(blocks.get(1)));
    }

    @Test
    void doc_propertiesFileOf42_isTheTestResource() throws IOException {
        List<String> blocks = blocks(section("### 4.2 A properties file"), "```properties\n");
        String resource = Files.readString(Path.of("src", "test", "resources", "sluice.properties"),
                StandardCharsets.UTF_8);

        assertEquals(1, blocks.size());
        assertEquals(blocks.get(0), resource);
        assertTrue(resource.contains("trusted-proxies"));
    }

    private static String section(String heading) throws IOException {
        String text = Files.readString(DOC, StandardCharsets.UTF_8);
        int from = text.indexOf("\n" + heading + "\n");
        assertTrue(from >= 0, DOC + " has no '" + heading + "' section");
        int to = text.indexOf("\n##", from + heading.length() + 2);
        return text.substring(from, to < 0 ? text.length() : to);
    }

    private static List<String> blocks(String section, String fence) {
        List<String> found = new ArrayList<>();
        int at = 0;
        while ((at = section.indexOf(fence, at)) >= 0) {
            int end = section.indexOf("```", at + fence.length());
            found.add(section.substring(at + fence.length(), end));
            at = end + 3;
        }
        return found;
    }

    private static String marked(String name) throws IOException {
        String text = Files.readString(SELF, StandardCharsets.UTF_8);
        String begin = "// docs: " + name + " (begin)\n";
        int from = text.indexOf(begin);
        int to = text.indexOf("// docs: " + name + " (end)");
        assertTrue(from >= 0 && to > from, "markers of '" + name + "' in " + SELF);
        return text.substring(from + begin.length(), to);
    }

    /** Lines without indentation or blank lines: a document and a method indent differently. */
    private static List<String> normalised(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.toList());
    }
}
