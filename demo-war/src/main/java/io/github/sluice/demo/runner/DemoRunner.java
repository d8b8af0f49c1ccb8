package io.github.sluice.demo.runner;

import java.io.PrintStream;
import java.net.BindException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The one command of the README: {@code java -jar demo-war/target/sluice-demo-runner.jar}.
 * Serves the WAR built next to this jar ({@code sluice-demo.war}, or the path given as the only
 * argument) from an embedded Jetty 12 on {@code http://localhost:8080}, prints where to point
 * curl, and stops cleanly on Ctrl-C.
 *
 * <p>Environment: {@code PORT} (default 8080; 0 picks a free port), {@code HOST} (the address to
 * bind, default {@code 127.0.0.1}: the demo trusts loopback as a proxy, so it should not face a
 * network), {@code SLUICE_REDIS_URL} (read by the webapp: every policy in Redis).
 */
public final class DemoRunner {

    /** The WAR's file name in {@code demo-war/target}, next to the runner jar. */
    static final String WAR_NAME = "sluice-demo.war";

    private DemoRunner() {
    }

    /**
     * Starts the demo and waits until the JVM is asked to stop.
     *
     * @param args optionally the path of the WAR to serve
     * @throws Exception never in practice: failures are printed and end the JVM with status 1 or 2
     */
    public static void main(String[] args) throws Exception {
        // Jetty's own start-up lines would bury the banner; warnings and errors still show.
        if (System.getProperty("org.eclipse.jetty.LEVEL") == null) {
            System.setProperty("org.eclipse.jetty.LEVEL", "WARN");
        }
        PrintStream out = System.out;
        int port;
        Path war;
        try {
            port = port(System.getenv());
            war = args.length > 0 ? Path.of(args[0]) : defaultWar();
        } catch (IllegalArgumentException e) {
            System.err.println("sluice-demo: " + e.getMessage());
            System.exit(2);
            return;
        }
        String host = System.getenv().getOrDefault("HOST", "127.0.0.1");
        DemoServer server;
        try {
            server = DemoServer.start(war, host, port);
        } catch (Exception e) {
            if (causedBy(e, BindException.class)) {
                System.err.println("sluice-demo: cannot listen on " + host + ":" + port + " (" + rootMessage(e)
                        + "); set PORT to another port, e.g. PORT=8081");
            } else {
                System.err.println("sluice-demo: the demo failed to start: " + rootMessage(e));
            }
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server, out), "sluice-demo-stop"));
        out.print(banner(server.uri(), System.getenv("SLUICE_REDIS_URL")));
        out.flush();
        server.join();
    }

    private static void stop(DemoServer server, PrintStream out) {
        try {
            server.close();
            out.println("Sluice demo stopped.");
        } catch (RuntimeException e) {
            System.err.println("sluice-demo: error while stopping: " + rootMessage(e));
        }
    }

    /**
     * Reads {@code PORT}.
     *
     * @throws IllegalArgumentException naming the variable and the value if it is not a port
     */
    static int port(Map<String, String> env) {
        String value = env.get("PORT");
        if (value == null || value.isBlank()) {
            return 8080;
        }
        String v = value.strip();
        if (!v.matches("[0-9]{1,5}") || Integer.parseInt(v) > 65_535) {
            throw new IllegalArgumentException("PORT must be a number between 0 and 65535 but was '" + value + "'");
        }
        return Integer.parseInt(v);
    }

    /** The WAR next to this class's jar (or classes directory). */
    private static Path defaultWar() {
        Path here;
        try {
            here = Path.of(DemoRunner.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            here = Path.of("demo-war", "target", "runner.jar");
        }
        Path war = here.resolveSibling(WAR_NAME);
        if (!Files.isRegularFile(war)) {
            throw new IllegalArgumentException("no WAR at " + war + "; build it first with "
                    + "'mvn -q -pl demo-war -am package -DskipTests', or pass a WAR's path as the argument");
        }
        return war;
    }

    static String banner(URI base, String redisUrl) {
        String b = base.toString();
        String store = redisUrl == null || redisUrl.isBlank()
                ? "Limits are kept in memory; set SLUICE_REDIS_URL to share them through Redis."
                : "Limits are kept in Redis at " + redact(redisUrl) + ".";
        return """

                Sluice demo running on %1$s
                %2$s

                  GET %1$sservlet/hello   policy per-ip:    5 requests per 10 s per client IP (servlet filter)
                  GET %1$sapi/hello       policy per-key:   5 requests per 10 s per X-Api-Key, else per IP (JAX-RS)
                  GET %1$sapi/slow?ms=N   policy inflight:  2 requests in flight at once, all clients (JAX-RS)
                  GET %1$sapi/adaptive    policy adaptive:  requests in flight up to a limit that follows latency (JAX-RS)
                  GET %1$shealth          unlimited
                  GET %1$smetrics         the meters, Prometheus text (unlimited)
                  GET %1$sadmin/sluice/top?policy=per-ip&by=denied
                                          the clients per-ip refused most (admin, from this machine only)

                Try, from another terminal:
                  curl -i %1$sservlet/hello
                  for i in 1 2 3 4 5 6; do curl -si %1$sservlet/hello | grep -iE '^(HTTP/|RateLimit|Retry-After)|^\\{'; done

                Press Ctrl-C to stop.
                """.formatted(b, store);
    }

    /** The URL without its password: the banner may end up in a terminal log or a screenshot. */
    static String redact(String url) {
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        return scheme >= 0 && at > scheme ? url.substring(0, scheme + 3) + "***@" + url.substring(at + 1) : url;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** Every message of the cause chain, once each: the useful one may sit at any depth. */
    static String rootMessage(Throwable e) {
        StringBuilder b = new StringBuilder();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && !m.isBlank() && b.indexOf(m) < 0) {
                b.append(b.length() == 0 ? "" : "; caused by: ").append(m);
            }
        }
        return b.length() == 0 ? e.getClass().getName() : b.toString();
    }
}
