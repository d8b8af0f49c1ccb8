package io.github.sluice.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints the HTTP overhead table from the TSV that {@code benchmarks/http.sh} writes (columns
 * round, server, limiter, rps, p99_us, non2xx). Each filter's overhead is taken against the
 * no-filter run of the same server in the same round, then averaged over rounds; the ± is the
 * standard deviation over rounds (0 with one round).
 */
public final class HttpSummary {

    private HttpSummary() {
    }

    private record Row(int round, String server, String limiter, double rps, double p99, long non2xx) {
    }

    /**
     * @param args the TSV file
     * @throws IOException if it cannot be read
     */
    public static void main(String[] args) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            String[] f = line.split("\t");
            if (f[0].equals("round")) {
                continue;
            }
            rows.add(new Row(Integer.parseInt(f[0]), f[1], f[2], Double.parseDouble(f[3]),
                    Double.parseDouble(f[4]), Long.parseLong(f[5])));
        }
        Map<String, List<Row>> byConfig = new LinkedHashMap<>();
        rows.forEach(r -> byConfig.computeIfAbsent(r.server() + " " + r.limiter(), k -> new ArrayList<>()).add(r));
        StringBuilder out = new StringBuilder();
        out.append("| server | limiter | req/s | p99 (us) | throughput cost vs no filter | p99 vs no filter (x) | non-2xx |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (List<Row> runs : byConfig.values()) {
            Row first = runs.get(0);
            List<Double> cost = new ArrayList<>();
            List<Double> p99Ratio = new ArrayList<>();
            for (Row r : runs) {
                rows.stream().filter(b -> b.round() == r.round() && b.server().equals(r.server())
                        && b.limiter().equals("none")).findFirst().ifPresent(b -> {
                            cost.add(1 - r.rps() / b.rps());
                            p99Ratio.add(r.p99() / b.p99());
                        });
            }
            boolean base = first.limiter().equals("none");
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %d |%n",
                    first.server(), first.limiter(),
                    meanSd(runs.stream().map(Row::rps).toList(), "%.0f"),
                    meanSd(runs.stream().map(Row::p99).toList(), "%.0f"),
                    base ? "-" : meanSd(cost.stream().map(c -> c * 100).toList(), "%.1f") + " %",
                    base ? "-" : meanSd(p99Ratio, "%.2f"),
                    runs.stream().mapToLong(Row::non2xx).sum()));
        }
        System.out.print(out);
    }

    private static String meanSd(List<Double> xs, String format) {
        double mean = xs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double var = xs.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / Math.max(1, xs.size() - 1);
        return String.format(Locale.ROOT, format + " ± " + format, mean, Math.sqrt(var));
    }
}
