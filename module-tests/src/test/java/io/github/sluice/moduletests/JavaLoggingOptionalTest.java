package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core reads {@code java.logging} only where the runtime has it ({@code requires static}):
 * its logging listener then asks java.util.logging directly for the level of its per-request lines,
 * and without the module it logs through the {@code System.Logger} alone. Both in a JVM of their
 * own, the core on the module path: the read the core adds at run time, or a missing class, fails
 * there and nowhere in process (the test JVM has java.logging).
 */
class JavaLoggingOptionalTest {

    /** Logs one admission and one release through the default listener; with "jul", at FINER first. */
    private static final String MAIN = """
            import io.github.sluice.core.MutableDecision;
            import io.github.sluice.http.LoggingListener;
            import io.github.sluice.policy.Policy;

            public class Main {
                public static void main(String[] args) throws Exception {
                    if (args[0].equals("jul")) {
                        Jul.traceToStandardOutput(); // a class of its own: loaded only here
                    }
                    LoggingListener listener = new LoggingListener();
                    Policy policy = Policy.parse("slots = concurrency 2 key=global");
                    listener.allowed(policy, "global", new MutableDecision().allow(1, 0, 1));
                    listener.released(policy, "global", 1);
                    System.out.println("done " + System.getLogger("io.github.sluice").getClass().getSimpleName());
                }
            }

            class Jul {
                static void traceToStandardOutput() {
                    java.util.logging.Logger jul = java.util.logging.Logger.getLogger("io.github.sluice");
                    jul.setLevel(java.util.logging.Level.FINER);
                    jul.setUseParentHandlers(false);
                    jul.addHandler(new java.util.logging.Handler() {
                        @Override public void publish(java.util.logging.LogRecord r) {
                            System.out.println(r.getLevel() + " " + r.getMessage());
                        }
                        @Override public void flush() { }
                        @Override public void close() { }
                    });
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void withJavaLogging_theCoreAsksItDirectly_andTracesAtFiner() throws Exception {
        List<String> out = run("jul");

        assertEquals(List.of("FINER policy ''{0}'' allowed key ''{1}'': {2}",
                "FINER policy ''{0}'' released {1} permit(s) of key ''{2}''", "done JULWrapper"), out);
    }

    @Test
    void withoutJavaLogging_theCoreStillLoadsAndLogs_throughTheSystemLogger() throws Exception {
        List<String> out = run("none", "--limit-modules", "java.base,java.management");

        assertEquals(1, out.size(), out::toString);
        assertTrue(out.get(0).startsWith("done ") && !out.get(0).equals("done JULWrapper"), out::toString);
    }

    /** Compiles {@link #MAIN} against the core and runs it, the core on the module path; its output lines. */
    private List<String> run(String mode, String... jvmOptions) throws IOException, InterruptedException,
            URISyntaxException {
        Path core = Path.of(Enforcer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path source = dir.resolve("Main.java");
        Files.writeString(source, MAIN, StandardCharsets.UTF_8);
        Path bin = Path.of(System.getProperty("java.home"), "bin");
        exec(List.of(bin.resolve("javac").toString(), "--module-path", core.toString(), "--add-modules",
                "io.github.sluice.core", "-d", dir.toString(), source.toString()));
        List<String> command = new ArrayList<>(List.of(bin.resolve("java").toString()));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("--module-path", core.toString(), "--add-modules", "io.github.sluice.core",
                "-cp", dir.toString(), "Main", mode));
        return exec(command);
    }

    private List<String> exec(List<String> command) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "out", ".txt");
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).redirectOutput(log.toFile())
                .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "did not end: " + command);
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> command + " -> " + lines);
        return lines;
    }
}
