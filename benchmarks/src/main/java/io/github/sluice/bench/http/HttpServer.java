package io.github.sluice.bench.http;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts one server of the HTTP overhead comparison and keeps it running until killed; prints
 * {@code READY <port>} once it accepts connections. Used by {@code benchmarks/http.sh}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.http.HttpServer jetty|tomcat
 * <limiter> <port>}, limiters: Jetty {@code none|sluice|qos|dos}, Tomcat
 * {@code none|sluice|ratelimit}.
 *
 * <p>While it runs, each line {@code cpu} on its standard input is answered with
 * {@code CPU <nanoseconds> <JIT nanoseconds>}: the process's CPU time so far, from
 * {@code /proc/self/task/<tid>/schedstat} (nanoseconds, every native thread: the container's,
 * the collector's) but the JIT compiler threads, whose compilations are warm-up rather than the
 * cost of a request, then the compiler threads' own. The figures only grow: each answer adds,
 * per thread, the time since the thread was last seen (all of it for a new thread), so a pool
 * thread that ends between two answers takes away only its time since the last one; read by
 * {@link CpuPerRequest} before and after a fixed number of requests. Without {@code /proc} it
 * answers the process CPU time of {@code OperatingSystemMXBean} (in the kernel's ticks, often
 * 10 ms) and 0. Without a standard input (end of stream) the server just runs.
 */
public final class HttpServer {

    private HttpServer() {
    }

    /**
     * @param args server, limiter, port
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: HttpServer jetty|tomcat <limiter> <port>");
        }
        // Quiet containers: per-request logging would dominate a hello-world servlet.
        Logger.getLogger("").setLevel(Level.WARNING);
        int port = Integer.parseInt(args[2]);
        switch (args[0]) {
            case "jetty" -> JettyServer.start(args[1], port);
            case "tomcat" -> TomcatServer.start(args[1], port);
            default -> throw new IllegalArgumentException("server must be jetty or tomcat but was " + args[0]);
        }
        System.out.println("READY " + port);
        System.out.flush();
        com.sun.management.OperatingSystemMXBean os = ManagementFactory.getPlatformMXBean(
                com.sun.management.OperatingSystemMXBean.class);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("cpu")) {
                long[] tasks = tasksCpuNanos();
                System.out.println(tasks != null ? "CPU " + tasks[0] + " " + tasks[1]
                        : "CPU " + os.getProcessCpuTime() + " 0");
                System.out.flush();
            }
        }
        Thread.currentThread().join();
    }

    /** Per thread id, its CPU time when last read. Only the control thread reads and writes it. */
    private static final Map<String, Long> LAST = new HashMap<>();
    /** The CPU time counted so far: threads but the JIT compilers, and the JIT compilers. */
    private static final long[] TOTAL = new long[2];

    /**
     * @return the CPU time counted so far of the threads but the JIT compilers, and of the JIT
     *     compilers, in nanoseconds; null without /proc
     */
    static long[] tasksCpuNanos() {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return null;
        }
        long[] sum = TOTAL;
        Map<String, Long> seen = new HashMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
            for (Path t : ds) {
                try {
                    String comm = Files.readString(t.resolve("comm")).trim();
                    boolean jit = comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler");
                    String stat = Files.readString(t.resolve("schedstat")).trim();
                    long now = Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                    String tid = t.getFileName().toString();
                    long last = LAST.getOrDefault(tid, 0L);
                    sum[jit ? 1 : 0] += now >= last ? now - last : now; // less: a new thread, reused id
                    seen.put(tid, now);
                } catch (IOException | RuntimeException e) {
                    // the thread ended while being read: its time is lost either way
                }
            }
        } catch (IOException e) {
            return null;
        }
        LAST.clear();
        LAST.putAll(seen);
        return sum.clone();
    }
}
