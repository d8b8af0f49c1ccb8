package io.github.sluice.bench.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The global concurrency policy against Jetty's {@code QoSHandler}, over many JVMs: both have
 * modes that a JVM draws at start (which code shape the JIT settles on), so a handful of JVMs
 * says more about the draw than about the code. Runs the alone lines of
 * {@code FilterCpuGroup concurrency 15} (about 1.5 s) in a JVM of its own per run, stopping it
 * there, the given jars in turn; then prints, per jar, Sluice's CPU ns per request over its
 * reference and {@code QoSHandler}'s over its own (the median of rounds 3-15 per JVM; their
 * median and range over the JVMs), the per-JVM ratio (the median of its per-round ratios) and how
 * many JVMs were at or under 1.3x, and Sluice against {@code QoSHandler}'s figures pooled over
 * every JVM of every jar (the same code in each): their median, and the median of their faster
 * half (its fast mode, the stricter comparison).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.http.QosRatio <jvms> <jar>...},
 * e.g. a jar built on main and one built on a change, 20 JVMs each (about a minute per 20).
 */
public final class QosRatio {

    private static final String SLUICE = "sluice concurrency, no header fields";
    private static final String QOS = "jetty QoSHandler";
    /** The warm-up rounds of each JVM, left out. */
    private static final int WARM = 2;

    private QosRatio() {
    }

    /** One JVM's figures: Sluice and QoSHandler over their references, and their ratio. */
    record Jvm(double sluice, double qos, double ratio) {
    }

    /**
     * @param args the JVMs per jar, then the jars
     * @throws Exception if a JVM cannot be started or prints no alone lines
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: QosRatio <jvms> <jar>...");
        }
        int jvms = Integer.parseInt(args[0]);
        List<String> jars = Arrays.asList(args).subList(1, args.length);
        Map<String, List<Jvm>> byJar = new LinkedHashMap<>();
        for (int i = 0; i < jvms; i++) {
            for (String jar : jars) {
                byJar.computeIfAbsent(jar, j -> new ArrayList<>()).add(run(jar));
            }
        }
        List<Double> pooled = new ArrayList<>();
        byJar.values().forEach(list -> list.forEach(j -> pooled.add(j.qos())));
        double qosMedian = median(pooled);
        double qosFast = median(pooled.stream().sorted().toList().subList(0, Math.max(1, pooled.size() / 2)));
        for (Map.Entry<String, List<Jvm>> e : byJar.entrySet()) {
            List<Jvm> list = e.getValue();
            List<Double> s = list.stream().map(Jvm::sluice).toList();
            List<Double> q = list.stream().map(Jvm::qos).toList();
            List<Double> r = list.stream().map(Jvm::ratio).toList();
            long under = r.stream().filter(x -> x <= 1.3).count();
            System.out.printf(Locale.ROOT, "%s: %d JVMs; sluice %.2f (%.1f-%.1f) ns, QoSHandler %.2f (%.1f-%.1f) ns; "
                    + "per-JVM ratio %.2f (%.2f-%.2f), %d of %d at or under 1.3x; against QoSHandler pooled: "
                    + "%.2fx its median, %.2fx its fast half%n", Path.of(e.getKey()).getFileName(), list.size(),
                    median(s), min(s), max(s), median(q), min(q), max(q), median(r), min(r), max(r), under, list.size(),
                    median(s) / qosMedian, median(s) / qosFast);
        }
        System.out.printf(Locale.ROOT, "QoSHandler pooled over %d JVMs: median %.2f ns, fast half %.2f ns%n",
                pooled.size(), qosMedian, qosFast);
    }

    /** Runs the alone lines in a JVM of its own from {@code jar}, stopped after the QoSHandler's line. */
    private static Jvm run(String jar) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", jar, FilterCpuGroup.class.getName(), "concurrency", "15")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Map<String, double[]> lines = new HashMap<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                String[] f = line.split("\t");
                if (f.length > 2 && f[0].equals("alone")) {
                    lines.put(f[1], Arrays.stream(f, 2, f.length).mapToDouble(Double::parseDouble).toArray());
                    if (f[1].equals(QOS)) {
                        break;
                    }
                }
            }
        } finally {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        double[] chain = lines.get("chain only");
        double[] handler = lines.get("handler only");
        double[] sluice = lines.get(SLUICE);
        double[] qos = lines.get(QOS);
        if (chain == null || handler == null || sluice == null || qos == null) {
            throw new IllegalStateException("no alone lines from " + jar + ": " + lines.keySet());
        }
        List<Double> s = new ArrayList<>();
        List<Double> q = new ArrayList<>();
        List<Double> r = new ArrayList<>();
        for (int i = WARM; i < sluice.length; i++) {
            s.add(sluice[i] - chain[i]);
            q.add(qos[i] - handler[i]);
            r.add((sluice[i] - chain[i]) / (qos[i] - handler[i]));
        }
        return new Jvm(median(s), median(q), median(r));
    }

    private static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static double min(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
