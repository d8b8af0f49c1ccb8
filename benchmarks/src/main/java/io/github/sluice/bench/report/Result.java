package io.github.sluice.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One JMH result: benchmark class and method, thread count, throughput with its error (the 99.9%
 * confidence half-width JMH reports), and the normalised allocation rate when {@code -prof gc} ran.
 *
 * @param group the benchmark class's simple name, e.g. {@code SingleKeyAllowed}
 * @param method the benchmark method, e.g. {@code sluiceTokenBucket}
 * @param threads benchmark threads
 * @param score throughput in {@code unit}
 * @param error half-width of the confidence interval, {@code NaN} if JMH had too few samples
 * @param unit the score's unit, e.g. {@code ops/us}
 * @param bytesPerOp {@code gc.alloc.rate.norm}, {@code NaN} without {@code -prof gc}
 */
record Result(String group, String method, int threads, double score, double error, String unit,
        double bytesPerOp) {

    /**
     * @param json a parsed JMH result file (an array of results)
     * @return its results
     */
    @SuppressWarnings("unchecked")
    static List<Result> from(Object json) {
        List<Result> out = new ArrayList<>();
        for (Object o : (List<Object>) json) {
            Map<String, Object> r = (Map<String, Object>) o;
            String name = (String) r.get("benchmark");
            String[] parts = name.split("\\.");
            String group = parts[parts.length - 2];
            String method = parts[parts.length - 1];
            int threads = (int) Json.number(r.get("threads"));
            Map<String, Object> primary = (Map<String, Object>) r.get("primaryMetric");
            double bytes = Double.NaN;
            Object secondary = r.get("secondaryMetrics");
            if (secondary instanceof Map<?, ?> m && m.get("gc.alloc.rate.norm") instanceof Map<?, ?> g) {
                bytes = Json.number(g.get("score"));
            }
            out.add(new Result(group, method, threads, Json.number(primary.get("score")),
                    Json.number(primary.get("scoreError")), (String) primary.get("scoreUnit"), bytes));
        }
        return out;
    }

    /** @return the relative error, 0 when unknown */
    double relativeError() {
        return Double.isNaN(error) || score == 0 ? 0 : error / score;
    }
}
