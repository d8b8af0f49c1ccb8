package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The demo's contract (issue 7 and the README), checked against the built WAR deployed into a
 * real container. Each subclass deploys {@code target/sluice-demo.war} into one container on a
 * free loopback port.
 *
 * <p>The container serves every test of a class and the policies keep their state between tests,
 * so every burst comes from a client of its own: an address sent as {@code X-Forwarded-For} from
 * loopback (which the demo trusts as a proxy) or an API key, numbered by {@link #nextClient}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DemoContract {

    /** The problem document of a per-client denial after the fifth request (t = 10 s). */
    static String problem429(String policy) {
        return "{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\",\"title\":\"Request cannot be satisfied as assigned quota has been exceeded\",\"status\":429,"
                + "\"detail\":\"Rate limit exceeded for policy '" + policy + "'; retry after 10 seconds.\","
                + "\"violated-policies\":[\"" + policy + "\"]}";
    }

    private final AtomicInteger clients = new AtomicInteger();
    private Http http;

    /**
     * Deploys the WAR at the root context on a free loopback port.
     *
     * @return the base URI, e.g. {@code http://127.0.0.1:41234/}
     */
    abstract URI deploy(Path war) throws Exception;

    /** Stops the container. */
    abstract void undeploy() throws Exception;

    @BeforeAll
    final void start() throws Exception {
        Path war = Path.of(System.getProperty("sluice.demo.war", "target/sluice-demo.war"));
        assertTrue(Files.isRegularFile(war), "the WAR must be built before the integration tests: " + war);
        http = new Http(deploy(war));
        // The first request of each endpoint initialises the application (Jersey, class loading):
        // make them here, from a client no test uses, so that the tests' bursts are timed warm.
        for (String path : List.of("health", "servlet/hello", "api/hello", "api/slow?ms=0")) {
            http.get(path, "X-Forwarded-For", "192.0.2.254");
        }
    }

    @AfterAll
    final void stop() throws Exception {
        undeploy();
    }

    /** @return a client number no test has used yet */
    private int nextClient() {
        return clients.incrementAndGet();
    }

    /** @return an address of a client no test has used yet */
    private String nextAddress() {
        return address(nextClient());
    }

    /** A client's address: 198.51.100.1 (TEST-NET-2) onwards. */
    private static String address(int client) {
        return "198.51." + (100 + client / 250) + "." + (1 + client % 250);
    }

    @Test
    void adminTop_listsTheClientsAFloodMadeExceedTheLimit_heaviestFirst_andIgnoresForwardedFor() throws Exception {
        // Given three clients that flood the servlet (5 per 10 s each): 45, 25 and 15 requests
        String[] clients = {nextAddress(), nextAddress(), nextAddress()};
        int[] sent = {45, 25, 15};
        for (int c = 0; c < clients.length; c++) {
            for (int i = 0; i < sent[c]; i++) {
                http.get("servlet/hello", "X-Forwarded-For", clients[c]);
            }
        }
        // When the operator asks, from this machine, with a forwarding header naming another host
        // (the container's remote address is the socket's peer: the header changes nothing)
        HttpResponse<String> top = http.get("admin/sluice/top?policy=per-ip&by=denied", "X-Forwarded-For",
                "203.0.113.77");

        // Then the three are listed heaviest first, each count bracketing its true refusals
        assertEquals(200, top.statusCode(), top.body());
        assertTrue(top.body().startsWith("{\"policy\":\"per-ip\",\"by\":\"denied\",\"period\":\"5m\""), top.body());
        int last = -1;
        for (int c = 0; c < clients.length; c++) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{\"key\":\"" + java.util.regex.Pattern.quote(clients[c])
                    + "\",\"count\":([0-9]+),\"error\":([0-9]+)}").matcher(top.body());
            assertTrue(m.find(), clients[c] + " in " + top.body());
            long count = Long.parseLong(m.group(1));
            long error = Long.parseLong(m.group(2));
            long refused = sent[c] - 5;
            assertTrue(count >= refused && count - error <= refused, clients[c] + ": " + m.group() + " vs " + refused);
            assertTrue(m.start() > last, "heaviest first: " + top.body());
            last = m.start();
        }
    }

    @Test
    void servletHello_perIp_fiveAllowedThenDeniedWithRetryAfterAndProblem() throws Exception {
        // Given a client that has not called yet, when it sends six requests in a row
        Burst burst = Burst.fast(c -> http.get("servlet/hello", "X-Forwarded-For", address(c)), this::nextClient);

        // Then the first five pass and count down, and the sixth is refused until the window ends
        assertLimited(burst, "per-ip", "Hello from a servlet behind the Sluice filter.\n");
    }

    @Test
    void apiHello_perKey_fiveAllowedPerApiKeyThenDenied() throws Exception {
        Burst burst = Burst.fast(c -> http.get("api/hello", "X-Api-Key", "demo-key-" + c,
                "X-Forwarded-For", "192.0.2.1"), this::nextClient);

        assertLimited(burst, "per-key", "Hello from a JAX-RS resource behind the Sluice feature.\n");
    }

    @Test
    void apiPlan_freeProAndPartner_eachAnnouncesAndKeepsItsOwnQuota() throws Exception {
        int c = nextClient();
        // Keys of the free and pro plans, and the partner with a contract: each RateLimit-Policy says its quota.
        String[][] cases = {{"free-" + c, "\"per-plan.free\";q=5;w=60", "5"},
            {"pro-" + c, "\"per-plan.pro\";q=20;w=60", "20"},
            {"partner-1", "\"per-plan.override\";q=50;w=60", "50"}};
        for (String[] k : cases) {
            int quota = Integer.parseInt(k[2]);
            for (int i = 1; i <= quota; i++) {
                HttpResponse<String> r = http.get("api/plan", "X-Api-Key", k[0]);
                assertEquals(200, r.statusCode(), k[0] + " request " + i);
                assertEquals(k[1], Http.header(r, "RateLimit-Policy"), k[0]);
            }
            HttpResponse<String> refused = http.get("api/plan", "X-Api-Key", k[0]);
            assertEquals(429, refused.statusCode(), k[0] + ": one over its quota");
            assertEquals(k[1], Http.header(refused, "RateLimit-Policy"));
        }
        assertEquals(401, http.get("api/plan").statusCode(), "no key: refused, never a free pass");
    }

    @Test
    void apiHello_withoutApiKey_isLimitedPerClientAddress() throws Exception {
        Burst burst = Burst.fast(c -> http.get("api/hello", "X-Forwarded-For", address(c)), this::nextClient);

        assertLimited(burst, "per-key", "Hello from a JAX-RS resource behind the Sluice feature.\n");
    }

    @Test
    void apiHello_keysAreIndependent_anotherKeyOrAddressStillPasses() throws Exception {
        // Given an API key and an address that used up their quota
        int key = nextClient();
        int ip = nextClient();
        for (int i = 0; i < Burst.SIZE; i++) {
            http.get("api/hello", "X-Api-Key", "demo-key-" + key);
            http.get("api/hello", "X-Forwarded-For", address(ip));
        }
        assertEquals(429, http.get("api/hello", "X-Api-Key", "demo-key-" + key).statusCode());
        assertEquals(429, http.get("api/hello", "X-Forwarded-For", address(ip)).statusCode());

        // When the exhausted address sends a fresh key, or another address sends none
        HttpResponse<String> freshKey = http.get("api/hello", "X-Api-Key", "demo-key-" + nextClient(),
                "X-Forwarded-For", address(ip));
        HttpResponse<String> freshAddress = http.get("api/hello", "X-Forwarded-For", address(nextClient()));

        // Then each is a client of its own with a whole quota
        for (HttpResponse<String> r : List.of(freshKey, freshAddress)) {
            assertEquals(200, r.statusCode());
            assertEquals("\"per-key\";r=4;t=10", Http.header(r, "RateLimit"));
        }
    }

    @Test
    void forwardedFor_fromLoopback_selectsTheKey_andTheLeftmostEntryCannotChangeIt() throws Exception {
        // Given a client behind the (trusted) loopback proxy that used up its quota
        String client = nextAddress();
        for (int i = 0; i < 5; i++) {
            assertEquals(200, http.get("servlet/hello", "X-Forwarded-For", client).statusCode());
        }
        assertEquals(429, http.get("servlet/hello", "X-Forwarded-For", client).statusCode());

        // When it prepends addresses of its choosing, or comes through one more trusted proxy
        List<HttpResponse<String>> spoofed = List.of(
                http.get("servlet/hello", "X-Forwarded-For", "203.0.113.7, " + client),
                http.get("servlet/hello", "X-Forwarded-For", "192.0.2.99, " + client),
                http.get("servlet/hello", "X-Forwarded-For", "unknown, " + client),
                http.get("servlet/hello", "X-Forwarded-For", client + ", 127.0.0.1"));

        // Then it is still the same client: only the rightmost untrusted entry is the key
        for (HttpResponse<String> r : spoofed) {
            assertEquals(429, r.statusCode(), () -> "X-Forwarded-For " + r.request().headers().allValues("X-Forwarded-For"));
        }

        // And a different rightmost entry is a different client, with a whole quota
        HttpResponse<String> other = http.get("servlet/hello", "X-Forwarded-For", client + ", " + nextAddress());
        assertEquals(200, other.statusCode());
        assertEquals("\"per-ip\";r=4;t=10", Http.header(other, "RateLimit"));
    }

    @Test
    void apiSlow_fourConcurrent_exactlyTwoRefused_andPermitsComeBack() throws Exception {
        // Given the global limit of 2 requests in flight, when 4 slow requests arrive together
        List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            inFlight.add(http.getAsync("api/slow?ms=" + SLOW_MS, "X-Forwarded-For", nextAddress()));
        }
        List<HttpResponse<String>> done = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : inFlight) {
            done.add(f.get(Http.TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }

        // Then two are answered after the delay and two are refused at once
        List<HttpResponse<String>> ok = done.stream().filter(r -> r.statusCode() == 200).toList();
        List<HttpResponse<String>> refused = done.stream().filter(r -> r.statusCode() != 200).toList();
        assertEquals(2, ok.size(), () -> "statuses " + done.stream().map(HttpResponse::statusCode).toList());
        assertEquals(2, refused.size());
        for (HttpResponse<String> r : ok) {
            assertEquals("Answered after " + SLOW_MS + " ms.\n", r.body());
            assertEquals("\"inflight\";q=2;qu=\"concurrent-requests\"", Http.header(r, "RateLimit-Policy"));
        }
        for (HttpResponse<String> r : refused) {
            assertInflightRefusal(r);
        }

        // And once they have completed, both permits are free again
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> again = http.get("api/slow?ms=0");
            assertEquals(200, again.statusCode());
            assertEquals("\"inflight\";r=1", Http.header(again, "RateLimit"));
        }
    }

    @Test
    void apiAdaptive_reportsItsCurrentLimit_andGivesThePermitBack() throws Exception {
        // A request alone: the gradient policy announces its current limit as q (initial 8, it
        // moves with latency), and the permit comes back once the answer is sent
        HttpResponse<String> r = http.get("api/adaptive?ms=0");
        assertEquals(200, r.statusCode(), r::body);
        assertTrue(Http.header(r, "RateLimit-Policy").matches("\"adaptive\";q=[0-9]+;qu=\"concurrent-requests\""),
                () -> Http.header(r, "RateLimit-Policy"));
        assertTrue(r.body().startsWith("Answered after "), r::body);
        assertEquals(400, http.get("api/adaptive?ms=x").statusCode());
    }

    /** Clients of the adaptive flood: three times the policy's initial limit of 8. */
    private static final int FLOOD_CLIENTS = 24;
    /** Requests each flood client sends, one after the other (a closed loop, as {@code xargs -P} runs). */
    private static final int FLOOD_ROUNDS = 2;
    /**
     * The work of a flood request: 1 s of one of the 4 modelled workers. An admitted request holds
     * its permit at least that long, so every client's first request arrives while the first
     * admitted ones are still in flight, however slow the machine: the server's capacity, not the
     * machine's speed, is the bottleneck.
     */
    private static final int FLOOD_MS = 1_000;

    /**
     * The README's adaptive flood, smaller (docs/adaptive.md, "In the demo"): more clients than
     * the limit, each sending its requests in turn. It sheds (503 at once, the policy's refusal),
     * every request gets 200 or 503, and the demo's counters moved by exactly those numbers.
     */
    @Test
    void apiAdaptive_aFloodFromMoreClientsThanTheLimit_shedsAndEveryRequestIsAnswered() throws Exception {
        // Given the limit now (the initial 8, or where earlier requests moved it): below the clients
        String allowed = "sluice_decisions_total{filter=\"jaxrs\",outcome=\"allowed\",policy=\"adaptive\",status=\"none\"}";
        String denied = "sluice_decisions_total{filter=\"jaxrs\",outcome=\"denied\",policy=\"adaptive\",status=\"503\"}";
        String policy = Http.header(http.get("api/adaptive?ms=0"), "RateLimit-Policy");
        int limit = Integer.parseInt(policy.replaceAll(".*;q=([0-9]+);.*", "$1"));
        assertTrue(limit < FLOOD_CLIENTS, "the flood needs more clients than the limit: " + policy);
        String before = http.get("metrics").body();

        // When the clients start together, each sending its requests one after the other
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger shed = new AtomicInteger();
        java.util.Queue<String> other = new java.util.concurrent.ConcurrentLinkedQueue<>();
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (int c = 0; c < FLOOD_CLIENTS; c++) {
            CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            for (int i = 0; i < FLOOD_ROUNDS; i++) {
                chain = chain.thenCompose(x -> http.getAsync("api/adaptive?ms=" + FLOOD_MS)).thenAccept(r -> {
                    switch (r.statusCode()) {
                        case 200 -> ok.incrementAndGet();
                        case 503 -> shed.incrementAndGet();
                        default -> other.add(r.statusCode() + " " + r.body());
                    }
                });
            }
            clients.add(chain);
        }
        CompletableFuture.allOf(clients.toArray(new CompletableFuture<?>[0])).get(2, TimeUnit.MINUTES);
        String after = http.get("metrics").body();

        // Then some were shed, every request was answered, and the counts add up, here and in /metrics
        assertTrue(other.isEmpty(), () -> "neither 200 nor 503: " + other);
        assertTrue(shed.get() > 0, "the flood shed nothing: " + ok + " answered");
        assertTrue(ok.get() > 0, "the flood was refused whole: " + shed + " refused");
        assertEquals(FLOOD_CLIENTS * FLOOD_ROUNDS, ok.get() + shed.get());
        assertEquals(ok.get(), sample(after, allowed) - sample(before, allowed), "allowed, counted");
        assertEquals(shed.get(), sample(after, denied) - sample(before, denied), "denied, counted");
    }

    /** Long enough that the four requests overlap even on a busy machine. */
    private static final long SLOW_MS = 2_000;

    private static void assertInflightRefusal(HttpResponse<String> r) {
        assertAll(
                () -> assertEquals(503, r.statusCode()),
                () -> assertEquals("1", Http.header(r, "Retry-After")),
                () -> assertEquals("\"inflight\";q=2;qu=\"concurrent-requests\"", Http.header(r, "RateLimit-Policy")),
                () -> assertEquals("\"inflight\";r=0", Http.header(r, "RateLimit")),
                () -> assertEquals("application/problem+json", Http.header(r, "Content-Type")),
                () -> assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity\",\"title\":\"Request cannot be satisfied due to temporary server capacity constraints\",\"status\":503,"
                        + "\"detail\":\"Too many concurrent requests for policy 'inflight'; retry after 1 second.\","
                        + "\"violated-policies\":[\"inflight\"]}", r.body()));
    }

    @Test
    void metrics_afterABurst_countItExactlyInPrometheusText() throws Exception {
        // Given the counts before (the filter's meters exist from the first scrape on)
        HttpResponse<String> before = http.get("metrics");
        String allowed = "sluice_decisions_total{filter=\"sluice\",outcome=\"allowed\",policy=\"per-ip\",status=\"none\"}";
        String denied = "sluice_decisions_total{filter=\"sluice\",outcome=\"denied\",policy=\"per-ip\",status=\"429\"}";

        // When a new client sends six requests: five pass, the sixth is refused
        Burst.fast(c -> http.get("servlet/hello", "X-Forwarded-For", address(c)), this::nextClient);
        HttpResponse<String> after = http.get("metrics", "X-Forwarded-For", "192.0.2.1");

        // Then the scrape is Prometheus text, every sample is a sluice_ meter with a policy (but the
        // enforcer's count of configuration reloads), and the burst moved the per-ip counters by
        // exactly five and one
        assertEquals(200, after.statusCode());
        assertTrue(Http.header(after, "Content-Type").startsWith("text/plain"), Http.header(after, "Content-Type"));
        assertEquals(5.0, sample(after.body(), allowed) - sample(before.body(), allowed), after.body());
        assertEquals(1.0, sample(after.body(), denied) - sample(before.body(), denied), after.body());
        assertTrue(sample(after.body(), "sluice_registry_keys{filter=\"sluice\",policy=\"per-ip\"}") >= 1, after.body());
        // the adaptive policy's current limit can be graphed (issue 28, item 7): between its min and max
        String adaptive = after.body().lines().filter(l -> l.startsWith("sluice_adaptive_limit{")
                && l.contains("policy=\"adaptive\"")).findFirst().orElse("");
        assertFalse(adaptive.isEmpty(), after.body());
        double limit = Double.parseDouble(adaptive.substring(adaptive.lastIndexOf(' ') + 1));
        assertTrue(limit >= 2 && limit <= 200, adaptive);
        for (String line : after.body().split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                assertTrue(line.startsWith("sluice_") && (line.contains("policy=\"")
                        || line.startsWith("sluice_config_reloads_total{")), line);
            }
        }
        // and /metrics itself is never limited
        for (int i = 0; i < 10; i++) {
            assertEquals(200, http.get("metrics", "X-Forwarded-For", "192.0.2.1").statusCode());
        }
    }

    /**
     * The {@code /metrics} snippets of the README and docs/operations.md are what the demo serves:
     * each shows the output of its own command ({@code curl ... | grep '^prefix'}) after the
     * README's six requests on a fresh demo. Here the same requests run on the deployed WAR and
     * the same command's lines are compared with the documented ones: the same series (names and
     * labels, in the same order, none missing and none extra), and each documented value is what
     * the six requests added (a fresh demo starts every counter at 0).
     */
    @Test
    void metrics_documentedSnippets_listEverySeriesTheDemoServes_withTheSixRequestsCounts() throws Exception {
        List<Snippet> snippets = List.of(Snippet.of(Path.of("..", "README.md"), "### Metrics"),
                Snippet.of(Path.of("..", "docs", "operations.md"), "### In a web application"));
        String before = http.get("metrics").body();

        // The README's six requests, from a client of their own: five pass, the sixth is refused
        String client = nextAddress();
        for (int i = 0; i < Burst.SIZE; i++) {
            http.get("servlet/hello", "X-Forwarded-For", client);
        }
        String after = http.get("metrics").body();

        for (Snippet doc : snippets) {
            List<String> served = after.lines().filter(l -> l.startsWith(doc.prefix())).toList();
            assertEquals(series(doc.lines()), series(served), () -> doc.where() + ": the documented series of `grep '^"
                    + doc.prefix() + "'` drifted from the demo's; it serves:\n" + String.join("\n", served));
            for (String line : doc.lines()) {
                String name = line.substring(0, line.lastIndexOf(' '));
                double documented = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                assertEquals(documented, sample(after, name) - sample(before, name),
                        () -> doc.where() + ": what the six requests add to " + name);
            }
        }
    }

    /** A scrape's lines without their values: the series, in order. */
    private static List<String> series(List<String> lines) {
        return lines.stream().map(l -> l.substring(0, l.lastIndexOf(' '))).toList();
    }

    /**
     * A documented {@code /metrics} command and its output: the code block of a document's section
     * that starts {@code $ curl -s ...metrics | grep '^prefix'}, its other lines the output.
     */
    private record Snippet(String where, String prefix, List<String> lines) {

        static Snippet of(Path doc, String heading) throws java.io.IOException {
            String text = Files.readString(doc);
            int from = text.indexOf("\n" + heading + "\n");
            assertTrue(from >= 0, doc + " has no section '" + heading + "'");
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("```\n\\$ curl -s \\S*/metrics \\| grep '\\^([^'\\\\\\[*.$]+)'\n((?:[^`].*\n)*)```")
                    .matcher(text);
            assertTrue(m.find(from), doc + ", " + heading + ": no block `$ curl -s .../metrics | grep '^prefix'`"
                    + " with a literal prefix, followed by its output");
            List<String> lines = m.group(2).lines().filter(l -> !l.isBlank()).toList();
            assertFalse(lines.isEmpty(), doc + ", " + heading + ": the block shows no output");
            return new Snippet(doc + ", " + heading, m.group(1), lines);
        }
    }

    /** The value of one sample line of a Prometheus scrape, {@code 0} if absent (nothing counted yet). */
    private static double sample(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).strip());
            }
        }
        return 0;
    }

    @Test
    void root_servesTheIndexPage_listingEveryEndpoint_notADirectoryListing() throws Exception {
        // When a newcomer opens the demo's root
        HttpResponse<String> r = http.get("");

        // Then it is the index page, with a link to every endpoint, not the container's listing
        assertEquals(200, r.statusCode());
        assertTrue(Http.header(r, "Content-Type").startsWith("text/html"), Http.header(r, "Content-Type"));
        assertTrue(r.body().contains("<title>Sluice demo</title>"), r.body());
        for (String endpoint : List.of("servlet/hello", "api/hello", "api/slow?ms=1000", "health", "metrics")) {
            assertTrue(r.body().contains("<a href=\"" + endpoint + "\">"), () -> "no link to " + endpoint);
        }
        assertFalse(r.body().contains("WEB-INF"), "a directory listing");
        // and every endpoint it links to answers (the limited ones from a client of their own)
        for (String endpoint : List.of("servlet/hello", "api/hello", "api/slow?ms=0", "health", "metrics")) {
            assertEquals(200, http.get(endpoint, "X-Forwarded-For", nextAddress()).statusCode(), endpoint);
        }
    }

    @Test
    void health_isNeverLimited() throws Exception {
        // Given a client far over every limit's quota
        for (int i = 0; i < 20; i++) {
            // When it calls /health
            HttpResponse<String> r = http.get("health", "X-Forwarded-For", "192.0.2.1");

            // Then it is answered, and no policy is announced
            assertEquals(200, r.statusCode());
            assertEquals("ok\n", r.body());
            assertNull(Http.header(r, "RateLimit"));
            assertNull(Http.header(r, "RateLimit-Policy"));
        }
    }

    /**
     * The exact answers to a fast burst of six against a policy of 5 per 10 s whose window the
     * first request opened: {@code r} counts down from 4 to 0 with {@code t=10}, then a 429.
     */
    private static void assertLimited(Burst burst, String policy, String body) {
        String quota = "\"" + policy + "\";q=5;w=10";
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = burst.get(i);
            int remaining = 4 - i;
            assertAll("request " + (i + 1),
                    () -> assertEquals(200, r.statusCode()),
                    () -> assertEquals(body, r.body()),
                    () -> assertEquals(quota, Http.header(r, "RateLimit-Policy")),
                    () -> assertEquals("\"" + policy + "\";r=" + remaining + ";t=10", Http.header(r, "RateLimit")),
                    () -> assertNull(Http.header(r, "Retry-After")));
        }
        HttpResponse<String> denied = burst.get(5);
        assertAll("request 6",
                () -> assertEquals(429, denied.statusCode()),
                () -> assertEquals("10", Http.header(denied, "Retry-After")),
                () -> assertEquals(quota, Http.header(denied, "RateLimit-Policy")),
                () -> assertEquals("\"" + policy + "\";r=0;t=10", Http.header(denied, "RateLimit")),
                () -> assertEquals("application/problem+json", Http.header(denied, "Content-Type")),
                () -> assertEquals(problem429(policy), denied.body()));
    }
}
