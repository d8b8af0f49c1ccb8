package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's run command in a process of its own: {@code java -jar
 * target/sluice-demo-runner.jar}, with the given environment, its standard output read line by
 * line. Closing it kills the process if it is still running.
 */
final class RunnerProcess implements AutoCloseable {

    /** The banner line that says the demo is up, with its port. */
    static final Pattern RUNNING = Pattern.compile("Sluice demo running on http://localhost:(\\d+)/");
    private static final long WAIT_SECONDS = 120;

    private final Process process;
    private final BlockingQueue<String> queue = new LinkedBlockingQueue<>();
    private final List<String> seen = new CopyOnWriteArrayList<>();

    private RunnerProcess(Process process) {
        this.process = process;
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
        }, "runner-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the runner jar built next to the WAR. The test JVM's {@code SLUICE_REDIS_URL} is not
     * passed on; {@code env} sets the runner's variables ({@code PORT}, {@code SLUICE_REDIS_URL}).
     */
    static RunnerProcess start(Map<String, String> env) throws IOException {
        Path war = Path.of(System.getProperty("sluice.demo.war", "target/sluice-demo.war")).toAbsolutePath();
        Path jar = war.resolveSibling("sluice-demo-runner.jar");
        assertTrue(Files.isRegularFile(jar), "the runner jar must be built before the integration tests: " + jar);
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-jar", jar.toString());
        pb.environment().remove("SLUICE_REDIS_URL");
        pb.environment().putAll(env);
        pb.redirectErrorStream(false);
        return new RunnerProcess(pb.start());
    }

    /** Waits for the banner. @return the demo's base URI, on 127.0.0.1 */
    URI awaitRunning() throws InterruptedException {
        int port = Integer.parseInt(await(RUNNING).group(1));
        return URI.create("http://127.0.0.1:" + port + "/");
    }

    /** Waits for a line that contains a match, or fails after two minutes. */
    Matcher await(Pattern pattern) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            String line = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("no line matching " + pattern + " in " + seen + (process.isAlive() ? ""
                        : "; exited with " + process.exitValue() + ", stderr: " + stderr()));
            }
            Matcher m = pattern.matcher(line);
            if (m.find()) {
                return m;
            }
        }
    }

    /** @return every line of standard output so far */
    List<String> seen() {
        return seen;
    }

    Process process() {
        return process;
    }

    /** @return standard error, read to its end (call once the process has ended) */
    String stderr() {
        try {
            return new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<" + e + ">";
        }
    }

    /** Sends SIGINT, what Ctrl-C in a terminal sends; where there is no kill(1), a plain stop. */
    void interrupt() throws Exception {
        if (System.getProperty("os.name").toLowerCase().contains("win")) {
            process.destroy();
            return;
        }
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor());
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
