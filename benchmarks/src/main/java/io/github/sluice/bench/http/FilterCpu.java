package io.github.sluice.bench.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The HTTP overhead by composition, for a machine whose noise is wider than the target: the
 * limiters' own CPU per request measured in-process, and composed with the no-filter server's CPU
 * per request measured end to end ({@link CpuPerRequest}); and the comparisons with the
 * containers' own limiters, on the work the target names and on equal work.
 *
 * <p>Two methods, both in thread CPU time, in rounds whose order rotates (details in
 * {@link FilterCpuGroup}):
 * <ul>
 *   <li><b>Alone</b>: each limiter's real code ({@code SluiceFilter.doFilter} with the request
 *       view, the key, the decision, the header fields and the permit release; Tomcat's
 *       {@code RateLimitFilter}; Jetty's {@code QoSHandler} and {@code DoSHandler},
 *       {@link HandlersAlone}) over a minimal in-process request and response, minus the same
 *       call without a limiter. Fine-grained (a few ns between rounds), but without the container
 *       around: what the container spends on the fields Sluice adds, or on one more step of its
 *       chain, is not in it.
 *   <li><b>Inside Jetty</b> ({@link LocalJetty}: a real Jetty 12 in-process, requests and responses
 *       as bytes in memory, no socket): the CPU clock of the request's thread read right before
 *       and right after the limiter, minus the same readings with nothing between them. The whole
 *       cost in a real container (chain step, the container's request and response objects), but
 *       noisy: a few hundred ns between rounds. What Jetty spends writing the two header fields
 *       happens later, when the servlet commits the response, and is measured apart
 *       ({@link HeaderFields}).
 * </ul>
 *
 * <p>The comparisons run in four groups, each in a JVM of its own ({@link FilterCpuGroup#GROUPS}),
 * so that one Sluice configuration never shares the JIT compiler's profile with another:
 * {@code headers} (Sluice's per-IP token bucket with and without its two fields, against every
 * container limiter: the target as written, and the 3 % composition), and one group per
 * container limiter's job, where Sluice does that job with that limiter's configuration and, like
 * it, adds no field ({@link Setups#equalWork}): {@code window} (Tomcat's {@code RateLimitFilter}),
 * {@code leaky} (Jetty's {@code DoSHandler} and {@code DoSFilter}), {@code concurrency} (Jetty's
 * {@code QoSHandler} and {@code QoSFilter}). A comparison's verdict comes from the per-round
 * differences ({@link #lessThan}).
 *
 * <p>The composed overheads are: on Jetty, Sluice's cost inside that Jetty plus Jetty writing its
 * fields, over the no-filter Jetty's CPU per request end to end; on Tomcat, Sluice's filter alone
 * plus the {@code fields} configuration's cost (measured on Jetty, the nearest stand-in for
 * Tomcat's own cost of a filter step and two fields) plus the writing, over the no-filter Tomcat's.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.http.FilterCpu [rounds
 * [no-filter CPU us per request, e.g. jetty=78.91,tomcat=86.87]]}. Without the second argument
 * the no-filter figures are read from {@code benchmarks/target/http-cpu.txt} ({@code http-none}
 * lines, written by {@link CpuPerRequest}); without either, the composed targets print as not
 * run. Prints a Markdown report and {@code http-target} rows, which it also writes to
 * {@code benchmarks/target/filter-cpu.txt} for {@code report.Summary}.
 */
public final class FilterCpu {

    private FilterCpu() {
    }

    /** What one group's JVM measured. */
    private static final class Measured {
        final Map<String, double[]> alone = new LinkedHashMap<>();
        final Map<String, double[]> jetty = new LinkedHashMap<>();
        final Map<String, double[]> block = new LinkedHashMap<>();
        final List<String> info = new ArrayList<>();

        /** @return the CPU ns per request {@code name} adds inside Jetty, per round, over its reference */
        double[] added(String name) {
            return minus(jetty.get(name), jetty.get(name.endsWith("-handler") || name.equals("qos") || name.equals("dos")
                    ? "none-handler" : "none"));
        }

        /** @return the CPU ns per request the alone candidate {@code name} adds, per round, over its reference */
        double[] alone(String name) {
            return minus(alone.get(name), alone.get(name.startsWith("jetty ") ? "handler only" : "chain only"));
        }
    }

    /**
     * @param args rounds (default 15), then optionally the no-filter servers' CPU per request
     * @throws Exception if a group's JVM fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        Map<String, Double> none = args.length > 1 ? parseBase(args[1]) : readBase(Path.of("benchmarks/target/http-cpu.txt"));

        Map<String, Measured> groups = new LinkedHashMap<>();
        for (String group : FilterCpuGroup.GROUPS.keySet()) {
            Measured m = measure(group, rounds);
            groups.put(group, m);
            print(group, m, rounds);
        }
        Measured h = groups.get("headers");
        double serializeNs = median(minus(h.block.get("with"), h.block.get("without")));
        double sluiceNs = median(h.alone("sluice"));
        double addFieldsNs = median(h.added("fields"));
        double[] sluiceWritten = plus(h.added("sluice"), serializeNs);
        double jettySluiceNs = median(sluiceWritten);
        double fieldsNs = addFieldsNs + serializeNs;

        List<String> targets = new ArrayList<>();
        for (String server : List.of("jetty", "tomcat")) {
            Double base = none.get(server);
            boolean isJetty = server.equals("jetty");
            String what = "HTTP CPU, " + server + ": Sluice adds <= 3 % of the no-filter CPU per request (by composition: "
                    + (isJetty ? "the Sluice filter inside an in-process Jetty, chain step included, + Jetty writing its two "
                            + "header fields"
                            : "the filter alone in-process + a Jetty filter step that adds the same two fields + Jetty "
                            + "writing them, the nearest stand-in for Tomcat's own")
                    + ", over the no-filter server's CPU per request measured end to end)";
            double addedNs = isJetty ? jettySluiceNs : sluiceNs + fieldsNs;
            String parts = isJetty ? String.format(Locale.ROOT, "(%.2f + %.2f) us (filter per round %s ns)",
                    (jettySluiceNs - serializeNs) / 1000, serializeNs / 1000, spread(h.added("sluice"), "%.0f"))
                    : String.format(Locale.ROOT, "(%.2f + %.2f + %.2f) us", sluiceNs / 1000, addFieldsNs / 1000,
                    serializeNs / 1000);
            if (base == null) {
                targets.add("| " + what + " | " + parts + "; no no-filter figure (run benchmarks/http-cpu.sh first, "
                        + "or pass it) | not run |");
                continue;
            }
            double share = addedNs / 1000 / base;
            targets.add(String.format(Locale.ROOT, "| %s | %s of %.2f us = %.2f %% | %s |", what, parts, base,
                    100 * share, share <= CpuPerRequest.MAX_SLUICE_SHARE ? "met" : "missed"));
        }
        // As the target is written: Sluice with its two fields (Jetty's writing of them included)
        // against limiters that add none, whatever their job.
        for (String theirs : List.of("ratelimit", "qos", "dos")) {
            targets.add(compare("HTTP CPU: Sluice, one per-IP token bucket with its two header fields written, adds less "
                    + "than " + theirs + " (inside the same in-process Jetty, the request thread's CPU)", "Sluice",
                    sluiceWritten, theirs, h.added(theirs)));
        }
        // Equal work: Sluice doing each container limiter's job, with its configuration. The
        // RateLimitFilter can add the same two fields (exposeHeaders): both add them, and neither's
        // writing of them is counted (the values are of the same length).
        targets.add(compare("HTTP CPU, equal work: Sluice with its two fields adds less than ratelimit with its own "
                + "RateLimit-Policy and RateLimit fields (exposeHeaders=true; both servlet filters in the same Jetty)",
                "sluice", h.added("sluice"), "ratelimit-fields", h.added("ratelimit-fields")));
        for (String[] g : new String[][] {{"window", "sluice-window", "ratelimit"},
                {"concurrency", "sluice-concurrency", "qosfilter"}, {"leaky", "sluice-leaky", "dosfilter"}}) {
            Measured m = groups.get(g[0]);
            targets.add(compare("HTTP CPU, equal work: Sluice doing the job of " + g[2] + " adds less than it (both "
                    + "servlet filters in the same Jetty, no header field)", g[1], m.added(g[1]), g[2], m.added(g[2])));
        }
        for (String[] g : new String[][] {{"concurrency", "sluice-concurrency", "qos"}, {"leaky", "sluice-leaky", "dos"}}) {
            Measured m = groups.get(g[0]);
            targets.add(compare("HTTP CPU, equal work across layers: Sluice's servlet filter doing the job of Jetty's " + g[2]
                    + " handler adds less than it (each with its own chain step: here a filter step costs "
                    + String.format(Locale.ROOT, "%.0f ns, a handler step %.0f ns", median(m.added("noop")),
                            median(m.added("noop-handler"))) + ")", g[1], m.added(g[1]), g[2], m.added(g[2])));
        }
        // The limiters' own work, alone over a minimal request: the resolution the container lacks.
        for (String[] g : new String[][] {{"headers", "sluice", "tomcat RateLimitFilter"},
                {"window", "sluice window, no header fields", "tomcat RateLimitFilter"},
                {"concurrency", "sluice concurrency, no header fields", "jetty QoSHandler"},
                {"leaky", "sluice leaky, no header fields", "jetty DoSHandler"}}) {
            Measured m = groups.get(g[0]);
            targets.add(compare("HTTP CPU, the limiter's own work alone (in-process, a minimal request): " + g[1]
                    + " adds less than " + g[2], g[1], m.alone(g[1]), g[2], m.alone(g[2])));
        }
        System.out.println();
        System.out.println("A comparison is met when the rounds agree that Sluice costs less (a sign test on the per-round "
                + "differences, two-sided 5 %), missed when they agree it costs more, and not resolved otherwise.");
        System.out.println();
        System.out.println("| target | measured | verdict |");
        System.out.println("|---|---|---|");
        targets.forEach(System.out::println);
        List<String> lines = new ArrayList<>();
        targets.forEach(t -> lines.add("http-target " + t));
        Path out = Path.of("benchmarks/target");
        if (Files.isDirectory(out)) {
            Files.write(out.resolve("filter-cpu.txt"), lines, StandardCharsets.UTF_8);
        }
    }

    /** Runs one group in a JVM of its own, with this JVM's class path, and reads what it printed. */
    private static Measured measure(String group, int rounds) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                FilterCpuGroup.class.getName(), group, Integer.toString(rounds))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Measured m = new Measured();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] f = line.split("\t");
                switch (f[0]) {
                    case "alone", "jetty", "block" -> {
                        double[] v = Arrays.stream(f, 2, f.length).mapToDouble(Double::parseDouble).toArray();
                        (f[0].equals("alone") ? m.alone : f[0].equals("jetty") ? m.jetty : m.block).put(f[1], v);
                    }
                    default -> m.info.add(line.startsWith("info ") ? line.substring(5) : line);
                }
            }
        }
        int exit = p.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("the JVM of group " + group + " exited with " + exit);
        }
        return m;
    }

    private static void print(String group, Measured m, int rounds) {
        System.out.printf(Locale.ROOT, "%n### Group %s (a JVM of its own; %d rounds)%n%n", group, rounds);
        m.info.forEach(i -> System.out.println("- " + i));
        System.out.printf(Locale.ROOT, "%nAlone (%,d requests per candidate and round, thread CPU time):%n%n",
                FilterCpuGroup.BATCH);
        System.out.println("| candidate | CPU ns per request, median (min-max) | added vs its reference, ns, median (min-max) |");
        System.out.println("|---|---:|---:|");
        m.alone.forEach((name, v) -> System.out.println("| " + name + " | " + spread(v, "%.0f") + " | "
                + (name.equals("chain only") || name.equals("handler only") ? "-" : spread(m.alone(name), "%.0f")) + " |"));
        System.out.printf(Locale.ROOT, "%nInside an in-process Jetty (LocalConnector, one persistent connection; the "
                + "request thread's CPU time read right before and right after each limiter; %,d requests per "
                + "configuration and round):%n%n", LocalJetties.BATCH);
        System.out.println("| jetty limiter | CPU ns per request between the readings, median (min-max) | added vs its "
                + "reference, ns, median (min-max) |");
        System.out.println("|---|---:|---:|");
        m.jetty.forEach((name, v) -> System.out.println("| " + name + " | " + spread(v, "%.0f") + " | "
                + (name.equals("none") || name.equals("none-handler") ? "-" : spread(m.added(name), "%.0f")) + " |"));
        if (!m.block.isEmpty()) {
            System.out.printf(Locale.ROOT, "%nJetty's HttpGenerator writing the response's header block (%,d responses per "
                    + "round, thread CPU): %s ns without the two fields, %s ns with them: %s ns per response for the "
                    + "fields%n", HeaderFields.BATCH, spread(m.block.get("without"), "%.0f"),
                    spread(m.block.get("with"), "%.0f"), spread(minus(m.block.get("with"), m.block.get("without")), "%.0f"));
        }
    }

    /**
     * One comparison as a target row: the medians, the per-round differences and the verdict of
     * {@link #lessThan}.
     *
     * @param ours CPU ns per request added by Sluice, per round
     * @param theirs the same for the other limiter, from the same rounds
     */
    static String compare(String what, String ourName, double[] ours, String theirName, double[] theirs) {
        double[] d = minus(ours, theirs);
        return String.format(Locale.ROOT, "| %s | %s %.0f ns, %s %.0f ns per request; difference per round %s ns, "
                + "Sluice cheaper in %d of %d rounds | %s |", what, ourName, median(ours), theirName, median(theirs),
                spread(d, "%.0f"), below(d), d.length, lessThan(ours, theirs));
    }

    /**
     * Whether the first limiter costs less than the second, from their per-round figures: a sign
     * test on the per-round differences, since rounds are paired (each round measures both) and a
     * shared machine's disturbances shift whole rounds.
     *
     * @return {@code met} when significantly more rounds than chance (two-sided 5 %) found the
     *     first cheaper, {@code missed} when as many found it dearer, {@code not resolved} otherwise
     */
    static String lessThan(double[] first, double[] second) {
        double[] d = minus(first, second);
        int cheaper = below(d);
        int dearer = (int) Arrays.stream(d).filter(x -> x > 0).count();
        int needed = signTestCount(cheaper + dearer);
        return cheaper >= needed ? "met" : dearer >= needed ? "missed" : "not resolved";
    }

    private static int below(double[] d) {
        return (int) Arrays.stream(d).filter(x -> x < 0).count();
    }

    /**
     * @return the least k such that k or more of n fair coin tosses coming up the same given side
     *     has probability at most 2.5 % (n + 1 if no k does)
     */
    static int signTestCount(int n) {
        double tail = 0;
        double p = Math.pow(0.5, n);
        double choose = 1; // C(n, k), from k = n down
        for (int k = n; k >= 0; k--) {
            tail += choose * p;
            if (tail > 0.025) {
                return k + 1;
            }
            choose = choose * k / (n - k + 1);
        }
        return n + 1;
    }

    static double[] plus(double[] a, double b) {
        double[] d = new double[a.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = a[i] + b;
        }
        return d;
    }

    static Map<String, Double> parseBase(String text) {
        Map<String, Double> m = new HashMap<>();
        for (String part : text.split(",")) {
            String[] kv = part.split("=");
            if (kv.length != 2) {
                throw new IllegalArgumentException("no-filter figures must be server=microseconds, e.g. "
                        + "jetty=78.91,tomcat=86.87, but were '" + text + "'");
            }
            m.put(kv[0].trim(), Double.parseDouble(kv[1].trim()));
        }
        return m;
    }

    private static Map<String, Double> readBase(Path file) throws IOException {
        Map<String, Double> m = new HashMap<>();
        if (Files.isRegularFile(file)) {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] f = l.split(" ");
                if (f.length == 3 && f[0].equals("http-none")) {
                    m.put(f[1], Double.parseDouble(f[2]));
                }
            }
        }
        return m;
    }

    static double[] minus(double[] a, double[] b) {
        double[] d = new double[a.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = a[i] - b[i];
        }
        return d;
    }

    static double median(double[] v) {
        double[] a = v.clone();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static String spread(double[] v, String format) {
        double[] a = v.clone();
        Arrays.sort(a);
        return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", median(v), a[0], a[a.length - 1]);
    }

    static String load() {
        return String.format(Locale.ROOT, "%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
