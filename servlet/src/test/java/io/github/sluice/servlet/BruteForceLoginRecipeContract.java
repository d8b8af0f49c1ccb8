package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The recipe "Brute-force login protection that counts only failures, per client address and per
 * user name at once" (docs/recipes.md), run as written: its policy lines and its filter, in front
 * of a login that answers 401 to a wrong password, on a real container. The attacker's moves:
 * one account from many addresses, many accounts from one address, spellings of one account, and
 * twenty wrong passwords at once.
 */
abstract class BruteForceLoginRecipeContract extends ContainerContract {

    /** docs/recipes.md, found above the working directory (the javax module runs in a copied tree). */
    private static final Path RECIPES = above(Path.of("docs", "recipes.md"));
    private static final Path FILTER = Path.of("src", "test", "java", "io", "github", "sluice", "servlet",
            "LoginUserAttribute.java");
    private static final String SECTION = "## Brute-force login protection that counts only failures, per client"
            + " address and per user name at once";
    private static final Map<String, String> PASSWORDS = Map.of("alice", "correct horse", "bob", "battery staple");

    BruteForceLoginRecipeContract(Container container) {
        super(container);
    }

    /** {@code POST /api/login}: 200 for a known user with the right password, 401 otherwise. */
    static final class Login extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
            String user = req.getParameter("username");
            String right = user == null ? null : PASSWORDS.get(user.strip().toLowerCase(java.util.Locale.ROOT));
            res.setStatus(right != null && right.equals(req.getParameter("password")) ? 200 : 401);
            res.getWriter().write(res.getStatus() == 200 ? "welcome" : "wrong user name or password");
        }
    }

    private RunningServer server;

    /** Deploys the recipe: its policies (the test servlet lives under /api), its filter in front. */
    private void deploy() throws Exception {
        String policies = section("```properties\n").replace("match=POST:/login", "match=POST:/api/login");
        Enforcer enforcer = enforcer(Enforcer.builder().policies(policies).trustedProxies("127.0.0.1/32"), false);
        assertEquals(List.of("login-ip", "login-user"), enforcer.policies().stream().map(p -> p.name()).toList());
        server = start(Deployment.of(new SluiceFilter(enforcer), new Login()).behind(new LoginUserAttribute()));
    }

    private HttpRequest login(String address, String user, String password) {
        String form = "username=" + URLEncoder.encode(user, StandardCharsets.UTF_8)
                + "&password=" + URLEncoder.encode(password, StandardCharsets.UTF_8);
        return HttpRequest.newBuilder(server.uri("/api/login")).timeout(java.time.Duration.ofSeconds(20))
                .header("X-Forwarded-For", address).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    }

    private HttpResponse<String> send(String address, String user, String password) throws Exception {
        return Http.CLIENT.send(login(address, user, password), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void recipe_isTheFilterAndThePoliciesTheTestRuns() throws IOException {
        String source = Files.readString(FILTER, StandardCharsets.UTF_8);
        String marked = source.substring(source.indexOf("// recipe (begin)\n") + "// recipe (begin)\n".length(),
                source.indexOf("// recipe (end)"));
        assertEquals(marked.strip(), section("```java\n").strip().replace("public final class", "final class"));
    }

    @Test
    void oneAccountFromManyAddresses_stopsAfterFiveFailures_evenForTheRightPassword() throws Exception {
        deploy();
        for (int i = 1; i <= 5; i++) {
            assertEquals(401, send("198.51.100." + i, "alice", "guess" + i).statusCode(), "guess " + i);
        }
        HttpResponse<String> sixth = send("198.51.100.99", "alice", "correct horse");
        assertEquals(429, sixth.statusCode());
        assertTrue(sixth.body().contains("\"violated-policies\":[\"login-user\"]"), sixth.body());
        assertEquals(200, send("198.51.100.99", "bob", "battery staple").statusCode(), "other accounts are not locked");
    }

    @Test
    void spellingsOfOneAccount_shareItsQuota() throws Exception {
        deploy();
        for (String spelling : List.of("alice", "Alice", " ALICE", "alice ", "aLiCe")) {
            assertEquals(401, send("198.51.100.7", spelling, "guess").statusCode(), spelling);
        }
        assertEquals(429, send("198.51.100.8", "ALICE", "correct horse").statusCode());
    }

    @Test
    void manyAccountsFromOneAddress_stopsAfterTwentyFailures() throws Exception {
        deploy();
        for (int i = 1; i <= 20; i++) {
            assertEquals(401, send("203.0.113.5", "user" + i, "123456").statusCode(), "account " + i);
        }
        HttpResponse<String> next = send("203.0.113.5", "bob", "battery staple");
        assertEquals(429, next.statusCode());
        assertTrue(next.body().contains("\"violated-policies\":[\"login-ip\"]"), next.body());
    }

    @Test
    void rightPasswords_neverSpendEitherQuota() throws Exception {
        deploy();
        for (int i = 0; i < 30; i++) {
            assertEquals(200, send("203.0.113.9", "bob", "battery staple").statusCode(), "login " + i);
        }
        for (int i = 1; i <= 5; i++) {
            assertEquals(401, send("203.0.113.9", "bob", "typo" + i).statusCode(), "typo " + i);
        }
        assertEquals(429, send("203.0.113.9", "bob", "battery staple").statusCode());
    }

    @Test
    void twentyWrongPasswordsAtOnce_getAtMostFiveAnswers() throws Exception {
        deploy();
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            all.add(Http.CLIENT.sendAsync(login("198.51.100." + (i + 1), "alice", "guess" + i),
                    HttpResponse.BodyHandlers.ofString()));
        }
        Map<Integer, Long> statuses = all.stream().map(CompletableFuture::join)
                .collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
        assertTrue(statuses.getOrDefault(401, 0L) <= 5, statuses.toString());
        assertEquals(20, statuses.getOrDefault(401, 0L) + statuses.getOrDefault(429, 0L), statuses.toString());
    }

    private static Path above(Path relative) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        return relative; // reading it fails, naming the path
    }

    /** The fenced block of the recipe that starts with {@code fence}. */
    private static String section(String fence) throws IOException {
        String doc = Files.readString(RECIPES, StandardCharsets.UTF_8);
        int from = doc.indexOf(SECTION);
        assertTrue(from >= 0, "docs/recipes.md has no section '" + SECTION + "'");
        int to = doc.indexOf("\n## ", from + 1);
        String section = doc.substring(from, to < 0 ? doc.length() : to);
        int at = section.indexOf(fence);
        assertTrue(at >= 0, "no " + fence.strip() + " block in the recipe");
        return section.substring(at + fence.length(), section.indexOf("```", at + fence.length()));
    }
}
