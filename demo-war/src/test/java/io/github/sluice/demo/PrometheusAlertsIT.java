package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard and the alert rules of {@code docs/observability}, against a real Prometheus
 * (Debian's {@code prometheus} package, which {@code .ci/run} installs) scraping two demo runners
 * every second: one in memory with its policies in a watched file, one on a real Redis.
 *
 * <ol>
 *   <li>{@code promtool check rules} passes on the shipped rules and on the test's copy;
 *   <li>under normal traffic no alert is pending or firing;
 *   <li>a flood (three heavy clients and many distinct addresses), a broken edit of the watched file
 *       and Redis stopped make the four alerts of those scenarios fire;
 *   <li>Redis started again on its port, the store recovers and its decisions' round trips are
 *       timed again: the Redis latency panel's p99 of {@code acquire} is a number;
 *   <li>every query of the dashboard returns data (at least one sample that is a number), and so
 *       does every series the rules read.
 * </ol>
 * The rules are the shipped file with every {@code [Nm]} window made {@code [10s]} and every
 * {@code for:} made {@code 1s}, so that the test runs in well under a minute; thresholds and
 * expressions are the shipped ones.
 *
 * <p>Without {@code prometheus} installed the test fails, unless the system property
 * {@value #SKIP} is {@code true} (never on CI, where {@code CI=true} makes it fail anyway).
 */
class PrometheusAlertsIT {

    /** The system property that lets a machine without Prometheus skip this test, with a message. */
    static final String SKIP = "sluice.prometheus.skip";

    private static final Path OBSERVABILITY = Path.of("..", "docs", "observability");
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Set<String> SCENARIO_ALERTS = Set.of("SluiceDenialRatioSpike", "SluiceStoreDegraded",
            "SluiceRegistryAtKeyBound", "SluiceConfigReloadRefused");

    @TempDir
    Path dir;

    @Test
    void dashboardAndAlerts_onARealPrometheus_answerAndFireInTheirScenarios() throws Exception {
        String prometheus = executable("prometheus");
        String promtool = executable("promtool");
        String redisServer = LocalRedis.find();
        if (redisServer == null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("redis-server is not installed, and CI=true: install it (.ci/run does)");
            }
            Assumptions.abort("redis-server is not installed; the store-degraded scenario needs it");
        }

        // promtool accepts the shipped rules, and the test's copy with short windows
        Path shipped = OBSERVABILITY.resolve("sluice-alerts.yml");
        assertEquals(0, run(promtool, "check", "rules", shipped.toString()), "promtool check rules " + shipped);
        Path rules = dir.resolve("sluice-alerts-test.yml");
        Files.writeString(rules, shortWindows(Files.readString(shipped)));
        assertEquals(0, run(promtool, "check", "rules", rules.toString()), "promtool check rules on the test copy");

        Path config = dir.resolve("sluice.properties");
        String policies = "policy.per-ip = fixed-window 5/10s align=first-request key=ip\n"
                + "policy.pace = shaping 20/1s slack=0 max-delay=2s key=header:X-Pace\n"
                + "max-keys = 50\n";
        Files.writeString(config, policies);
        // closed in the scenario (Redis stopped), started again on its port, and closed at the end
        LocalRedis redis = LocalRedis.start(redisServer);
        try (RunnerProcess memory = RunnerProcess.start(Map.of("PORT", "0", "SLUICE_CONFIG", config.toString()));
                RunnerProcess shared = RunnerProcess.start(Map.of("PORT", "0", "SLUICE_REDIS_URL", redis.url()))) {
            URI baseA = memory.awaitRunning();
            URI baseB = shared.awaitRunning();
            Http a = new Http(baseA);
            Http b = new Http(baseB);
            a.get("metrics"); // the first scrape binds the meters; Prometheus' first scrape then finds them all
            b.get("metrics");
            Process server = startPrometheus(prometheus, rules, List.of(baseA.getPort(), baseB.getPort()));
            try {
                URI api = URI.create("http://127.0.0.1:" + prometheusPort + "/");
                awaitReady(api, server);
                await(api, () -> "up == 1", 2, Duration.ofSeconds(20));

                // Normal traffic for 6 s: under every limit, a few shaped requests, Redis up
                int client = 0;
                for (int second = 0; second < 6; second++) {
                    for (Http h : List.of(a, b)) {
                        h.get("servlet/hello", "X-Forwarded-For", "198.51.100." + (1 + client++ % 200));
                        h.get("api/hello", "X-Api-Key", "normal-" + client);
                        h.get("api/adaptive?ms=1");
                    }
                    pace(a, 3);
                    Thread.sleep(1_000); // the traffic's own pace: one round a second, as clients send it
                }
                String quiet = query(api, "ALERTS");
                assertEquals(List.of(), alertNames(quiet), "no alert may be pending or firing under normal traffic: "
                        + quiet);

                // The scenarios: a flood, a broken edit of the watched file, Redis stopped
                AtomicBoolean flooding = new AtomicBoolean(true);
                Thread flood = new Thread(() -> {
                    int n = 0;
                    try {
                        while (flooding.get()) {
                            a.get("servlet/hello", "X-Forwarded-For", "192.0.2." + (1 + n++ % 3));
                            Thread.sleep(20); // a steady flood, not a busy loop on a shared machine
                        }
                    } catch (IOException | InterruptedException stop) {
                        // the test is over
                    }
                }, "flood");
                flood.start();
                Set<String> fired = new TreeSet<>();
                try {
                    for (int i = 0; i < 60; i++) {
                        a.get("servlet/hello", "X-Forwarded-For", "203.0.113." + (1 + i)); // distinct keys past max-keys
                    }
                    Files.writeString(config, "# broken edit\npolicy.per-ip = fixed-window 0/10s key=ip\n"
                            + "policy.pace = shaping 20/1s slack=0 max-delay=2s key=header:X-Pace\nmax-keys = 50\n");
                    redis.close();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
                    while (!fired.containsAll(SCENARIO_ALERTS) && System.nanoTime() < deadline) {
                        b.get("servlet/hello", "X-Forwarded-For", "198.51.100.250"); // decided while degraded
                        fired.addAll(alertNames(query(api, "ALERTS{alertstate=\"firing\"}")));
                        Thread.sleep(500); // Prometheus evaluates every second
                    }
                } finally {
                    flooding.set(false);
                    flood.join(10_000);
                }
                assertEquals(new TreeSet<>(SCENARIO_ALERTS), new TreeSet<>(fired), "alerts that fired");

                // Redis back on its port: the store recovers, and its round trips are timed again.
                // Traffic on Redis until Prometheus has a rate of answered decisions, the input of the
                // dashboard's Redis latency panel (without it, that panel would be checked on the
                // outage's empty window)
                redis = LocalRedis.start(redisServer, redis.port());
                String answered = "sum by (store) (rate(sluice_store_latency_le_total{operation=\"acquire\","
                        + "le=\"+Inf\"}[10s])) > 0";
                long redisDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!hasNumber(query(api, answered)) && System.nanoTime() < redisDeadline) {
                    b.get("servlet/hello", "X-Forwarded-For", "198.51.100." + (1 + client++ % 200));
                    b.get("api/hello", "X-Api-Key", "normal-" + client);
                    Thread.sleep(250); // the traffic's own pace, while Prometheus scrapes every second
                }
                assertTrue(hasNumber(query(api, "histogram_quantile(0.99, sum by (store, operation, le)"
                        + " (rate(sluice_store_latency_le_total{operation=\"acquire\"}[10s])))")),
                        "a p99 of Redis decisions after traffic on Redis: " + query(api, answered));

                // Every dashboard query, and every series a rule reads, returns data
                pace(a, 6);
                Thread.sleep(2_000); // two scrapes, so that rates over the shaped requests exist
                List<String> empty = new ArrayList<>();
                for (String expr : dashboardQueries()) {
                    if (!hasNumber(query(api, expr))) {
                        empty.add(expr);
                    }
                }
                for (String selector : ruleSelectors(Files.readString(shipped))) {
                    if (!hasNumber(query(api, selector))) {
                        empty.add(selector);
                    }
                }
                assertEquals(List.of(), empty, "queries without data");
            } finally {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        } finally {
            redis.close();
        }
    }

    private int prometheusPort;

    /** The shipped rules with windows and {@code for:} durations short enough for a test. */
    static String shortWindows(String rules) {
        String s = rules.replaceAll("\\[[0-9]+m\\]", "[10s]").replaceAll("for: [0-9]+m", "for: 1s");
        assertNotEquals(rules, s, "the shipped rules have windows to shorten");
        assertFalse(s.matches("(?s).*\\[[0-9]+[mh]\\].*"), s);
        return s;
    }

    private int paced;

    /**
     * Sends {@code n} requests at once that the pace policy delays (20 per second, no slack), each
     * from an address of its own, so that per-ip refuses none of them.
     */
    private void pace(Http a, int n) throws Exception {
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            paced++;
            sent.add(a.getAsync("servlet/hello", "X-Pace", "test", "X-Forwarded-For",
                    "198.51." + (101 + paced / 250) + "." + (1 + paced % 250)));
        }
        for (var f : sent) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    private Process startPrometheus(String prometheus, Path rules, List<Integer> targets) throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            prometheusPort = s.getLocalPort();
        }
        StringBuilder t = new StringBuilder();
        for (int port : targets) {
            t.append(t.length() == 0 ? "" : ", ").append("\"127.0.0.1:").append(port).append('"');
        }
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - "
                + rules + "\nscrape_configs:\n  - job_name: sluice-demo\n    metrics_path: /metrics\n"
                + "    static_configs:\n      - targets: [" + t + "]\n");
        Path data = Files.createDirectories(dir.resolve("data"));
        return new ProcessBuilder(prometheus, "--config.file=" + config, "--storage.tsdb.path=" + data,
                "--web.listen-address=127.0.0.1:" + prometheusPort, "--storage.tsdb.retention.time=1h")
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
    }

    private void awaitReady(URI api, Process server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new AssertionError("prometheus exited: " + Files.readString(dir.resolve("prometheus.log")));
            }
            try {
                if (CLIENT.send(HttpRequest.newBuilder(api.resolve("-/ready")).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(200); // polling a starting server: there is nothing to wait on
        }
        throw new AssertionError("prometheus not ready: " + Files.readString(dir.resolve("prometheus.log")));
    }

    /** Waits until {@code expr} returns at least {@code series} series. */
    private static void await(URI api, java.util.function.Supplier<String> expr, int series, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            last = query(api, expr.get());
            if (count(last, "\"metric\"") >= series) {
                return;
            }
            Thread.sleep(500); // scrapes are a second apart
        }
        throw new AssertionError(expr.get() + " never returned " + series + " series: " + last);
    }

    static String query(URI api, String expr) throws IOException, InterruptedException {
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(api.resolve("api/v1/query?query="
                + URLEncoder.encode(expr, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), expr + ": " + r.body());
        return r.body();
    }

    /** {@code true} if an instant-vector answer holds a sample that is a number (not NaN). */
    static boolean hasNumber(String answer) {
        Matcher m = Pattern.compile("\"value\":\\[[0-9.]+,\"([^\"]+)\"\\]").matcher(answer);
        while (m.find()) {
            if (!m.group(1).equals("NaN")) {
                return true;
            }
        }
        return false;
    }

    static List<String> alertNames(String answer) {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile("\"alertname\":\"([A-Za-z]+)\"").matcher(answer);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    /** Every {@code expr} of the dashboard, with Grafana's variables as a query would have them. */
    static List<String> dashboardQueries() throws IOException {
        String json = Files.readString(OBSERVABILITY.resolve("sluice-dashboard.json"));
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        while (m.find()) {
            out.add(m.group(1).replace("\\\"", "\"").replace("\\\\", "\\")
                    .replace("$__rate_interval", "10s").replace("$policy", ".*"));
        }
        assertTrue(out.size() >= 15, "the dashboard's queries: " + out);
        return out;
    }

    /** Every series selector the rules read, e.g. {@code sluice_decisions_total{outcome="denied"}}. */
    static Set<String> ruleSelectors(String rules) {
        Set<String> out = new TreeSet<>();
        Matcher m = Pattern.compile("(sluice_[a-z_]+)(\\{[^}]*\\})?").matcher(rules);
        while (m.find()) {
            out.add(m.group(0));
        }
        assertTrue(out.size() >= 6, "the rules' selectors: " + out);
        return out;
    }

    /** The path of an executable on the PATH; fails (or, with {@value #SKIP}, skips) if there is none. */
    private static String executable(String name) {
        String path = System.getenv("PATH");
        for (String d : (path == null ? "" : path).split(File.pathSeparator)) {
            File f = new File(d, name);
            if (!d.isEmpty() && f.canExecute()) {
                return f.getPath();
            }
        }
        String message = name + " is not installed: install Debian's prometheus package (apt-get install -y"
                + " prometheus; .ci/run does)";
        if (!"true".equals(System.getenv("CI")) && Boolean.getBoolean(SKIP)) {
            Assumptions.abort(message + "; skipped because -D" + SKIP + "=true");
        }
        throw new AssertionError(message + ", or run with -D" + SKIP + "=true to skip this test locally");
    }

    private int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("promtool.log").toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command));
        if (p.exitValue() != 0) {
            System.err.println(Files.readString(dir.resolve("promtool.log")));
        }
        return p.exitValue();
    }
}
