package io.github.sluice.bench.http;

import java.io.BufferedInputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * HTTP overhead measured as the server's CPU time per request, which a shared 2-core machine can
 * measure where throughput cannot: every server configuration runs in its own JVM
 * ({@link HttpServer}), all started at once and warmed up; then, in each round, every
 * configuration in turn (the order rotates from round to round) receives a fixed number of
 * requests at a fixed rate below saturation, and the server's CPU time is read before and after
 * (the sum over its threads, the JIT compilers left out, in nanoseconds: see {@link HttpServer}). The figure is CPU microseconds per request: (CPU after - CPU before) / requests. Because
 * the rate and the count are the same for every configuration, the server's idle work (timers,
 * the collector's background threads) adds the same amount to each; the overhead of a limiter is
 * its server's figure minus the same server's no-filter figure in the same round.
 *
 * <p>The load generator is this JVM: {@code connections} threads, each with one persistent
 * HTTP/1.1 connection, each sending its share of the requests on a fixed schedule (open loop: a
 * request is due at its slot whatever happened to the previous one). Latency is measured from
 * the later of the request's due time and its send, to the end of its response; a send more than
 * a millisecond after its due time is counted as late (the generator or the server fell behind,
 * the rate is too high for the machine).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.http.CpuPerRequest [rate
 * [requests [rounds [warm-up batch [connections]]]]]}, defaults 2,000 requests/s, 10,000
 * requests per measurement, 5 rounds, warm-up batches of 30,000 requests at twice the rate per
 * server (repeated until the server's JIT compilers use less than 2 % of its CPU during a batch,
 * at most 12), 4 connections. Prints a
 * Markdown report; writes the per-round figures to {@code benchmarks/target/http-cpu-<time>.tsv}
 * and, to {@code benchmarks/target/http-cpu.txt}, its rows for {@code report.Summary} (reported as
 * "measured end to end, within noise": on a shared machine the rounds move by more than the 3 %
 * target, and {@link FilterCpu} gives the verdicts by composition) and the no-filter servers' CPU
 * per request ({@code http-none <server> <us>}), which {@link FilterCpu} composes with.
 * Never run by {@code mvn verify}; its figures depend on the machine and are never a test verdict.
 */
public final class CpuPerRequest {

    /** The configurations compared: server and limiter, as {@link HttpServer} takes them. */
    static final List<String[]> CONFIGS = List.of(
            new String[] {"jetty", "none"}, new String[] {"jetty", "sluice"},
            new String[] {"jetty", "qos"}, new String[] {"jetty", "dos"},
            new String[] {"tomcat", "none"}, new String[] {"tomcat", "sluice"},
            new String[] {"tomcat", "ratelimit"});

    /** The largest share of the no-filter server's CPU per request the Sluice filter may add. */
    static final double MAX_SLUICE_SHARE = 0.03;

    private static final byte[] REQUEST =
            "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private CpuPerRequest() {
    }

    /** One server JVM and its control channel. */
    private static final class Server implements AutoCloseable {
        final String name;
        final int port;
        final Process process;
        final BufferedWriter control;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Server(String jar, String server, String limiter) throws IOException, InterruptedException {
            this.name = server + " " + limiter;
            try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                this.port = probe.getLocalPort();
            }
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder(java, "-Xms256m", "-Xmx256m", "-cp", jar,
                    HttpServer.class.getName(), server, limiter, Integer.toString(port))
                    .redirectErrorStream(true).start();
            control = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(),
                    StandardCharsets.US_ASCII));
            Thread reader = new Thread(() -> {
                try (var in = process.inputReader(StandardCharsets.US_ASCII)) {
                    for (String l; (l = in.readLine()) != null; ) {
                        lines.add(l);
                    }
                } catch (IOException e) {
                    lines.add("EOF " + e);
                }
            }, "server-output-" + name);
            reader.setDaemon(true);
            reader.start();
            expect("READY", 60);
        }

        private String expect(String prefix, int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            StringBuilder seen = new StringBuilder();
            while (System.nanoTime() < deadline) {
                String l = lines.poll(100, TimeUnit.MILLISECONDS);
                if (l != null) {
                    if (l.startsWith(prefix)) {
                        return l;
                    }
                    seen.append(l).append('\n');
                }
                if (l == null && !process.isAlive()) {
                    break;
                }
            }
            throw new IllegalStateException("server " + name + " did not answer " + prefix + ":\n" + seen);
        }

        /** @return the server's CPU time so far but its JIT compilers', and theirs, in nanoseconds */
        long[] cpuNanos() throws IOException, InterruptedException {
            control.write("cpu\n");
            control.flush();
            String[] p = expect("CPU ", 10).trim().split(" ");
            return new long[] {Long.parseLong(p[1]), Long.parseLong(p[2])};
        }

        /**
         * Warms the server up in batches of {@code batch} requests at {@code rate} until its JIT
         * compilers used less than 2 % of the server's CPU time during a batch (at most 12 batches).
         *
         * @return the batches run
         */
        int warmUp(int rate, int batch, int connections) throws IOException, InterruptedException {
            for (int b = 1; ; b++) {
                long[] before = cpuNanos();
                drive(port, rate, batch, connections);
                long[] after = cpuNanos();
                double jit = (double) (after[1] - before[1]) / (after[0] - before[0]);
                System.err.printf(Locale.ROOT, "warm-up %s, batch %d: JIT %.1f %% of the server's CPU%n",
                        name, b, 100 * jit);
                if (jit < 0.02 || b == 12) {
                    return b;
                }
            }
        }

        @Override
        public void close() {
            process.destroy();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process.destroyForcibly();
        }
    }

    /** What one measurement saw. */
    record Load(long requests, long errors, long late, long p99Nanos, long p50Nanos) {
    }

    /**
     * @param args rate, requests, rounds, warm-up requests, connections (all optional)
     * @throws Exception if a server cannot start or the load fails
     */
    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? positive("rate", args[0]) : 2_000;
        int requests = args.length > 1 ? positive("requests", args[1]) : 10_000;
        int rounds = args.length > 2 ? positive("rounds", args[2]) : 5;
        int warmUp = args.length > 3 ? positive("warm-up batch", args[3]) : 30_000;
        int connections = args.length > 4 ? positive("connections", args[4]) : 4;
        String jar = Path.of(CpuPerRequest.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        if (!Files.isDirectory(Path.of("benchmarks"))) {
            throw new IllegalStateException("run from the repository root (no benchmarks/ in "
                    + Path.of("").toAbsolutePath() + ")");
        }
        Path target = Path.of("benchmarks", "target");
        Files.createDirectories(target);
        List<Server> servers = new ArrayList<>();
        StringBuilder tsv = new StringBuilder(
                "round\tserver\tlimiter\tcpu_us_per_request\tjit_percent\tp50_us\tp99_us\terrors\tlate\n");
        // per configuration: CPU us/request and p99 us, one per round
        Map<String, double[]> cpu = new LinkedHashMap<>();
        Map<String, double[]> p99 = new LinkedHashMap<>();
        // per configuration: the JIT compilers' CPU during the measurement, in % of the rest
        Map<String, double[]> jitShare = new LinkedHashMap<>();
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
        long errors = 0;
        long late = 0;
        try {
            for (String[] c : CONFIGS) {
                servers.add(new Server(jar, c[0], c[1]));
            }
            for (Server s : servers) {
                s.warmUp(2 * rate, warmUp, connections);
                cpu.put(s.name, new double[rounds]);
                jitShare.put(s.name, new double[rounds]);
                p99.put(s.name, new double[rounds]);
            }
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < servers.size(); k++) {
                    Server s = servers.get((k + round) % servers.size());
                    long[] before = s.cpuNanos();
                    Load load = drive(s.port, rate, requests, connections);
                    long[] after = s.cpuNanos();
                    double us = (after[0] - before[0]) / 1000.0 / requests;
                    double jit = 100.0 * (after[1] - before[1]) / (after[0] - before[0]);
                    cpu.get(s.name)[round] = us;
                    jitShare.get(s.name)[round] = jit;
                    p99.get(s.name)[round] = load.p99Nanos() / 1000.0;
                    errors += load.errors();
                    late += load.late();
                    String[] sl = s.name.split(" ");
                    tsv.append(String.format(Locale.ROOT, "%d\t%s\t%s\t%.2f\t%.1f\t%.0f\t%.0f\t%d\t%d%n", round + 1,
                            sl[0], sl[1], us, jit, load.p50Nanos() / 1000.0, load.p99Nanos() / 1000.0,
                            load.errors(), load.late()));
                    System.err.printf(Locale.ROOT, "round %d %-16s %.2f us CPU/request (JIT %.1f %% more), p99 %.0f us, "
                            + "errors %d, late %d%n", round + 1, s.name, us, jit, load.p99Nanos() / 1000.0,
                            load.errors(), load.late());
                }
            }
        } finally {
            servers.forEach(Server::close);
        }
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).trim();
        String stamp = Instant.now().toString().replace(":", "").replaceAll("\\.\\d+", "");
        Files.writeString(target.resolve("http-cpu-" + stamp + ".tsv"), tsv);
        Report report = new Report(cpu, p99, jitShare, rounds);
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "### HTTP: server CPU time per request (%,d requests/s, %,d requests "
                + "per measurement, %d rounds, %d connections)%n%n", rate, requests, rounds, connections));
        md.append(String.format("Load average before: %s; after: %s. Requests that failed: %d; sent more "
                + "than 1 ms late: %d.%n%n", loadBefore, loadAfter, errors, late));
        report.table(md);
        List<String> targets = report.targets();
        md.append(String.format("%n| target | measured | verdict |%n|---|---|---|%n"));
        targets.forEach(t -> md.append(t).append('\n'));
        System.out.print(md);
        List<String> lines = new ArrayList<>(targets.stream().map(t -> "http-target " + t).toList());
        // The no-filter servers' CPU per request, for FilterCpu's composed verdict.
        for (String server : new String[] {"jetty", "tomcat"}) {
            if (cpu.containsKey(server + " none")) {
                lines.add(String.format(Locale.ROOT, "http-none %s %.2f", server, median(cpu.get(server + " none"))));
            }
        }
        Files.write(target.resolve("http-cpu.txt"), lines);
    }

    /** The figures of a run, per configuration, and their verdicts. */
    static final class Report {
        private final Map<String, double[]> cpu;
        private final Map<String, double[]> p99;
        private final Map<String, double[]> jit;
        private final int rounds;

        Report(Map<String, double[]> cpu, Map<String, double[]> p99, Map<String, double[]> jit, int rounds) {
            this.cpu = cpu;
            this.p99 = p99;
            this.jit = jit;
            this.rounds = rounds;
        }

        /** Per round, a configuration's CPU per request minus its server's no-filter one. */
        double[] overhead(String name) {
            double[] none = cpu.get(name.split(" ")[0] + " none");
            double[] mine = cpu.get(name);
            double[] d = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                d[r] = mine[r] - none[r];
            }
            return d;
        }

        void table(StringBuilder md) {
            md.append("| server | limiter | CPU us/request, median (min-max) | added vs no filter, us, median "
                    + "(min-max) | added, % of no filter | p99 us, median (min-max) | JIT, % more, median |\n");
            md.append("|---|---|---:|---:|---:|---:|---:|\n");
            for (String name : cpu.keySet()) {
                String[] sl = name.split(" ");
                double none = median(cpu.get(sl[0] + " none"));
                String added = sl[1].equals("none") ? "-" : spread(overhead(name), "%.2f");
                String share = sl[1].equals("none") ? "-"
                        : String.format(Locale.ROOT, "%.1f %%", 100 * median(overhead(name)) / none);
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %.1f |%n", sl[0], sl[1],
                        spread(cpu.get(name), "%.2f"), added, share, spread(p99.get(name), "%.0f"),
                        median(jit.get(name))));
            }
        }

        /** One Markdown row per target: Sluice's share, and Sluice against each container limiter. */
        List<String> targets() {
            List<String> out = new ArrayList<>();
            for (String server : new String[] {"jetty", "tomcat"}) {
                String sluice = server + " sluice";
                if (!cpu.containsKey(sluice)) {
                    continue;
                }
                double none = median(cpu.get(server + " none"));
                double added = median(overhead(sluice));
                double share = added / none;
                // End to end, the per-round noise is wider than the target: these rows report, and
                // FilterCpu's composition gives the verdict.
                out.add(String.format(Locale.ROOT, "| HTTP CPU end to end, %s: Sluice's added share of the no-filter "
                        + "CPU per request | %.2f us of %.2f us = %.1f %% (per round %s us) | measured end to end, within "
                        + "noise |", server, added, none, 100 * share, spread(overhead(sluice), "%.2f")));
                for (String name : cpu.keySet()) {
                    String[] sl = name.split(" ");
                    if (!sl[0].equals(server) || sl[1].equals("none") || sl[1].equals("sluice")) {
                        continue;
                    }
                    double theirs = median(overhead(name));
                    out.add(String.format(Locale.ROOT, "| HTTP CPU end to end, %s: Sluice adds less than %s | Sluice "
                            + "%.2f us, %s %.2f us per request (%s) | measured end to end, within noise |", server, sl[1],
                            added, sl[1], theirs, added < theirs ? "lower" : "not lower"));
                }
            }
            return out;
        }
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    private static String spread(double[] v, String format) {
        double min = Arrays.stream(v).min().orElse(Double.NaN);
        double max = Arrays.stream(v).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", median(v), min, max);
    }

    private static int positive(String name, String value) {
        int v = Integer.parseInt(value);
        if (v < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 but was " + value);
        }
        return v;
    }

    /**
     * Sends {@code requests} requests at {@code rate} per second over {@code connections}
     * persistent connections, each thread on its own fixed schedule.
     */
    static Load drive(int port, int rate, int requests, int connections) throws InterruptedException {
        long periodNanos = TimeUnit.SECONDS.toNanos(1) * connections / rate;
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
        Worker[] workers = new Worker[connections];
        for (int i = 0; i < connections; i++) {
            int share = requests / connections + (i < requests % connections ? 1 : 0);
            long first = start + i * periodNanos / connections;
            workers[i] = new Worker(port, share, first, periodNanos);
            workers[i].start();
        }
        long[] all = new long[requests];
        int n = 0;
        long errors = 0;
        long late = 0;
        for (Worker w : workers) {
            w.join();
            if (w.failure != null) {
                throw new IllegalStateException("load on port " + port + " failed", w.failure);
            }
            System.arraycopy(w.latencies, 0, all, n, w.done);
            n += w.done;
            errors += w.errors;
            late += w.late;
        }
        long[] sorted = Arrays.copyOf(all, n);
        Arrays.sort(sorted);
        long p99 = n == 0 ? 0 : sorted[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)];
        long p50 = n == 0 ? 0 : sorted[Math.max(0, (int) Math.ceil(n * 0.5) - 1)];
        return new Load(n, errors, late, p99, p50);
    }

    /** One connection's share of the load. */
    private static final class Worker extends Thread {
        private final int port;
        private final int requests;
        private final long first;
        private final long period;
        final long[] latencies;
        int done;
        long errors;
        long late;
        Throwable failure;
        private Socket socket;
        private InputStream in;
        private OutputStream out;

        Worker(int port, int requests, long first, long period) {
            super("load-" + port);
            setDaemon(true);
            this.port = port;
            this.requests = requests;
            this.first = first;
            this.period = period;
            this.latencies = new long[requests];
        }

        @Override
        public void run() {
            try {
                connect();
                for (int k = 0; k < requests; k++) {
                    long due = first + k * period;
                    long wait;
                    while ((wait = due - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    long sent = System.nanoTime();
                    if (sent - due > LATE_NANOS) {
                        late++;
                    }
                    boolean ok;
                    try {
                        ok = exchange();
                    } catch (IOException e) {
                        ok = false;
                        socket.close();
                        connect();
                    }
                    latencies[done++] = System.nanoTime() - Math.max(due, sent);
                    if (!ok) {
                        errors++;
                    }
                }
                socket.close();
            } catch (Throwable t) {
                failure = t;
            }
        }

        private void connect() throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            in = new BufferedInputStream(socket.getInputStream(), 8192);
            out = socket.getOutputStream();
        }

        /** One request and its whole response; {@code true} if the status was 200. */
        private boolean exchange() throws IOException {
            out.write(REQUEST);
            out.flush();
            String status = line();
            long length = -1;
            boolean close = false;
            for (String h; !(h = line()).isEmpty(); ) {
                int colon = h.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = h.substring(colon + 1).trim();
                if (name.equals("content-length")) {
                    length = Long.parseLong(value);
                } else if (name.equals("connection") && value.equalsIgnoreCase("close")) {
                    close = true;
                } else if (name.equals("transfer-encoding")) {
                    throw new IOException("unexpected transfer-encoding " + value);
                }
            }
            if (length < 0) {
                throw new IOException("response without content-length: " + status);
            }
            for (long left = length; left > 0; left--) {
                if (in.read() < 0) {
                    throw new IOException("end of stream in body");
                }
            }
            if (close) {
                socket.close();
                connect();
            }
            return status.startsWith("HTTP/1.1 200");
        }

        private final StringBuilder line = new StringBuilder();

        private String line() throws IOException {
            line.setLength(0);
            for (int c; (c = in.read()) != '\n'; ) {
                if (c < 0) {
                    throw new IOException("end of stream in headers");
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }
    }
}
