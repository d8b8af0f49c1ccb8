package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's run command, as a newcomer types it: {@code java -jar
 * demo-war/target/sluice-demo-runner.jar}, in a process of its own.
 */
class RunnerIT {

    private static final Pattern RUNNING = Pattern.compile("Sluice demo running on http://localhost:(\\d+)/");
    private static final long STARTUP_SECONDS = 120;

    @Test
    void runner_startsOnPortFromEnvironment_printsCurlHints_andStopsCleanlyOnInterrupt() throws Exception {
        // Given the runner started with PORT=0 (a free port)
        Process process = runner("0");
        try {
            Lines out = new Lines(process);

            // When it has started
            int port = Integer.parseInt(out.await(RUNNING).group(1));

            // Then it serves the WAR there and has told where to point curl
            Http http = new Http(URI.create("http://127.0.0.1:" + port + "/"));
            HttpResponse<String> health = http.get("health");
            assertEquals(200, health.statusCode());
            assertTrue(out.seen().stream().anyMatch(l -> l.contains("curl -i http://localhost:" + port + "/servlet/hello")),
                    () -> "no curl hint in " + out.seen());

            // And when it is interrupted as Ctrl-C does, it stops the server and exits
            interrupt(process);
            out.await(Pattern.compile("Sluice demo stopped\\."));
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the runner must exit after Ctrl-C");
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void runner_badPort_failsWithMessageNamingTheVariableAndValue() throws Exception {
        Process process = runner("eighty");
        try {
            String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);

            assertTrue(process.waitFor(60, TimeUnit.SECONDS));
            assertEquals(2, process.exitValue());
            assertTrue(err.contains("PORT must be a number between 0 and 65535 but was 'eighty'"), err);
        } finally {
            process.destroyForcibly();
        }
    }

    private static Process runner(String port) throws IOException {
        Path war = Path.of(System.getProperty("sluice.demo.war", "target/sluice-demo.war")).toAbsolutePath();
        Path jar = war.resolveSibling("sluice-demo-runner.jar");
        assertTrue(Files.isRegularFile(jar), "the runner jar must be built before the integration tests: " + jar);
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-jar", jar.toString());
        pb.environment().put("PORT", port);
        pb.environment().remove("SLUICE_REDIS_URL");
        pb.redirectInput(ProcessBuilder.Redirect.PIPE);
        return pb.start();
    }

    /** Sends SIGINT, what Ctrl-C in a terminal sends; where there is no kill(1), a plain stop. */
    private static void interrupt(Process process) throws Exception {
        if (System.getProperty("os.name").toLowerCase().contains("win")) {
            process.destroy();
            return;
        }
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor());
    }

    /** The process's standard output, read line by line on a thread of its own. */
    private static final class Lines {
        private final BlockingQueue<String> queue = new LinkedBlockingQueue<>();
        private final List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

        Lines(Process process) {
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        seen.add(line);
                        queue.add(line);
                    }
                } catch (IOException e) {
                    queue.add("<stdout closed: " + e + ">");
                }
            }, "runner-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        /** Waits for a line that contains a match, or fails after {@link #STARTUP_SECONDS}. */
        Matcher await(Pattern pattern) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_SECONDS);
            while (true) {
                String line = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("no line matching " + pattern + " in " + seen);
                }
                Matcher m = pattern.matcher(line);
                if (m.find()) {
                    return m;
                }
            }
        }

        List<String> seen() {
            return seen;
        }
    }
}
