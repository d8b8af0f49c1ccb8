package io.github.sluice.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Prints ratios taken within each of several rounds (one JMH run per round, every benchmark of
 * the round in its own fork, the rounds one after another): per benchmark, the median and the
 * min-max over the rounds of its cost against its group's reference (the floor for the
 * single-key groups, the same limiter in Caffeine for {@code ManyKeys}), and of a denied
 * benchmark's throughput against the same algorithm's allowed one. On a shared machine whose
 * load moves from minute to minute, the ratio within a round is steady where absolute scores are
 * not; the spread over rounds shows how steady.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.report.Rounds round1.json
 * round2.json ...} (what {@code benchmarks/rounds.sh} runs). Ends with the targets these rounds
 * decide, each met or missed on its median.
 */
public final class Rounds {

    private Rounds() {
    }

    /**
     * @param args one JMH JSON result file per round
     * @throws IOException if a file cannot be read
     */
    public static void main(String[] args) throws IOException {
        List<List<Result>> rounds = new ArrayList<>();
        for (String a : args) {
            String text = Files.readString(Path.of(a));
            if (!text.isBlank()) {
                rounds.add(Result.from(Json.parse(text)));
            }
        }
        // key: group.method@threads -> per-round ratios
        Map<String, List<Double>> cost = new TreeMap<>();
        Map<String, List<Double>> speedup = new TreeMap<>();
        Map<String, List<Double>> denied = new TreeMap<>();
        for (List<Result> round : rounds) {
            for (Result r : round) {
                String key = r.group() + "." + r.method() + " @" + r.threads();
                reference(r.group()).flatMap(ref -> find(round, r.group(), ref, r.threads()))
                        .filter(ref -> ref != r)
                        .ifPresent(ref -> {
                            cost.computeIfAbsent(key, k -> new ArrayList<>()).add(ref.score() / r.score());
                            speedup.computeIfAbsent(key, k -> new ArrayList<>()).add(r.score() / ref.score());
                        });
                if (r.group().equals("SingleKeyDenied") && !r.method().equals("floor")) {
                    find(round, "SingleKeyAllowed", r.method(), r.threads()).ifPresent(a ->
                            denied.computeIfAbsent(r.method() + " @" + r.threads(),
                                    k -> new ArrayList<>()).add(r.score() / a.score()));
                }
            }
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d rounds%n%n", rounds.size()));
        out.append("| benchmark | reference | cost vs reference, median (min-max) "
                + "| throughput vs reference, median (min-max) |\n|---|---|---:|---:|\n");
        cost.forEach((k, v) -> out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", k,
                reference(k.substring(0, k.indexOf('.'))).orElse("-"), spread(v),
                spread(speedup.get(k)))));
        if (!denied.isEmpty()) {
            out.append("\n| algorithm | denied / allowed throughput, median (min-max) |\n|---|---:|\n");
            denied.forEach((k, v) -> out.append(String.format(Locale.ROOT, "| %s | %s |%n", k, spread(v))));
        }
        out.append("\n| target (median of the rounds) | measured | verdict |\n|---|---:|---|\n");
        cost.forEach((k, v) -> {
            if (k.startsWith("SingleKeyAllowed.sluice") && k.endsWith(" @1")) {
                target(out, "allowed, 1 thread: cost <= 1.3x floor, " + name(k), v, median(v) <= 1.3);
            }
        });
        speedup.forEach((k, v) -> {
            if (k.startsWith("ManyKeys.sluiceRegistry")) {
                target(out, "1M keys, " + k.substring(k.indexOf('@') + 1)
                        + " thread(s): >= 2x the same limiter in Caffeine", v, median(v) >= 2);
            }
        });
        denied.forEach((k, v) -> target(out, "denied no slower than allowed, " + k, v, median(v) >= 1));
        System.out.print(out);
    }

    private static String name(String key) {
        return key.substring(key.indexOf('.') + 1, key.indexOf(' '));
    }

    private static void target(StringBuilder out, String what, List<Double> v, boolean met) {
        out.append(String.format(Locale.ROOT, "| %s | %s | %s |%n", what, spread(v), met ? "met" : "missed"));
    }

    /** The benchmark a group's ratios are taken against, if the group has one. */
    private static Optional<String> reference(String group) {
        return switch (group) {
            case "SingleKeyAllowed", "SingleKeyDenied" -> Optional.of("floor");
            case "ManyKeys" -> Optional.of("caffeineLimiters");
            default -> Optional.empty();
        };
    }

    private static Optional<Result> find(List<Result> round, String group, String method, int threads) {
        return round.stream().filter(r -> r.group().equals(group) && r.method().equals(method)
                && r.threads() == threads).findFirst();
    }

    private static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static String spread(List<Double> v) {
        if (v == null || v.isEmpty()) {
            return "-";
        }
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return String.format(Locale.ROOT, "%.2f (%.2f-%.2f)", median(v), a[0], a[a.length - 1])
                + (a.length < 3 ? " n=" + a.length : "") + (Arrays.stream(a).anyMatch(Double::isNaN) ? " NaN" : "");
    }
}
