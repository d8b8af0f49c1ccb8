package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.config.SluiceConfig;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The recipe "A monthly quota per customer together with a per-second burst limit" of
 * docs/recipes.md: its properties block, read from the file, deployed in each container behind an
 * authentication filter, on a fake clock near the end of January in Paris.
 */
class MonthlyQuotaRecipeTest {

    /**
     * docs/recipes.md, found upwards from the working directory: the servlet module's, or the
     * javax module's copy of the servlet tree (under its target directory).
     */
    private static Path recipes() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path doc = dir.resolve("docs").resolve("recipes.md");
            if (Files.isRegularFile(doc)) {
                return doc;
            }
        }
        throw new AssertionError("no docs/recipes.md above " + Path.of("").toAbsolutePath());
    }
    private static final String SECTION = "## A monthly quota per customer together with a per-second burst limit";

    /** The recipe's properties block. */
    static String recipe() throws IOException {
        String doc = Files.readString(recipes(), StandardCharsets.UTF_8);
        int from = doc.indexOf("\n" + SECTION + "\n");
        assertTrue(from >= 0, "docs/recipes.md has no section '" + SECTION + "'");
        int to = doc.indexOf("\n## ", from + 1);
        String section = doc.substring(from, to < 0 ? doc.length() : to);
        int start = section.indexOf("```properties\n");
        assertTrue(start >= 0, "the recipe has no properties block");
        start += "```properties\n".length();
        return section.substring(start, section.indexOf("```", start));
    }

    /** The application's authentication: a known API key becomes the {@code customer} attribute. */
    static final class ApiKeys implements Filter {
        private static final Map<String, String> CUSTOMERS = Map.of("key-alice", "alice", "key-bob", "bob");

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            String key = ((HttpServletRequest) request).getHeader("X-Api-Key");
            String customer = key == null ? null : CUSTOMERS.get(key);
            if (customer != null) {
                request.setAttribute("customer", customer);
            }
            chain.doFilter(request, response);
        }
    }

    abstract static class Recipe extends ContainerContract {

        Recipe(Container container) {
            super(container);
        }

        private long seconds(String local) {
            return LocalDateTime.parse(local).atZone(ZoneId.of("Europe/Paris")).toEpochSecond();
        }

        private HttpResponse<String> call(RunningServer server, String key) {
            return key == null ? Http.get(server.uri("/api/ok")) : Http.get(server.uri("/api/ok"), "X-Api-Key", key);
        }

        @Test
        void recipe_monthEndInParis_burstSparesTheMonth_monthRenewsOnTheFirst() throws Exception {
            // Given the recipe, at 23:00 on 31 January 2026 in Paris
            clock.set(seconds("2026-01-31T23:00") * 1_000_000_000L);
            RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(
                    SluiceConfig.parseProperties(recipe(), "docs/recipes.md"))), app).behind(new ApiKeys()));

            // When alice sends 11 requests in one second
            for (int i = 0; i < 10; i++) {
                assertEquals(200, call(server, "key-alice").statusCode());
            }
            HttpResponse<String> burst = call(server, "key-alice");

            // Then the 11th is refused by the burst limit for a second, and charged to no month
            assertEquals(429, burst.statusCode());
            assertEquals("1", burst.headers().firstValue("Retry-After").orElse(null));
            assertEquals("\"burst\";q=10;w=1, \"monthly\";q=1000;w=2678400",
                    burst.headers().firstValue("RateLimit-Policy").orElse(null));
            assertTrue(burst.headers().firstValue("RateLimit").orElse("").contains("\"monthly\";r=990;t=3600"),
                    burst.headers().firstValue("RateLimit").orElse(null));

            // When she spends the rest of January's 1,000 within the burst limit (10 per second)
            int spent = 10;
            while (spent < 1000) {
                clock.advanceNanos(1_000_000_000L);
                for (int i = 0; i < 10; i++, spent++) {
                    assertEquals(200, call(server, "key-alice").statusCode(), "call " + spent);
                }
            }
            clock.advanceNanos(1_000_000_000L);
            HttpResponse<String> spentMonth = call(server, "key-alice");

            // Then the 1,001st waits for midnight in Paris: 3600 s less the 100 s she took
            assertEquals(429, spentMonth.statusCode());
            assertEquals("3500", spentMonth.headers().firstValue("Retry-After").orElse(null));
            assertTrue(spentMonth.headers().firstValue("RateLimit").orElse("").contains("\"monthly\";r=0;t=3500"),
                    spentMonth.headers().firstValue("RateLimit").orElse(null));

            // And bob's month is his own; a request without a customer is refused and charged to no one
            assertEquals(200, call(server, "key-bob").statusCode());
            assertEquals(401, call(server, null).statusCode());
            assertEquals(401, call(server, "key-mallory").statusCode());

            // When February begins in Paris (23:00 UTC)
            clock.set(seconds("2026-02-01T00:00") * 1_000_000_000L);
            HttpResponse<String> february = call(server, "key-alice");

            // Then the month is whole again, and t counts February's 28 days
            assertEquals(200, february.statusCode());
            assertTrue(february.headers().firstValue("RateLimit").orElse("")
                    .contains("\"monthly\";r=999;t=" + 28 * 86_400), february.headers().firstValue("RateLimit").orElse(null));
        }
    }

    @Nested
    class OnJetty extends Recipe {
        OnJetty() {
            super(Container.JETTY);
        }
    }

    @Nested
    class OnTomcat extends Recipe {
        OnTomcat() {
            super(Container.TOMCAT);
        }
    }
}
