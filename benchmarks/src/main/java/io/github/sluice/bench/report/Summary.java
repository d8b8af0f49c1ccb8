package io.github.sluice.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.DoublePredicate;

/**
 * Prints the comparison tables (Markdown) from JMH JSON result files, with every ratio taken
 * between results of the same files (the same run) and its error propagated from both scores'
 * confidence intervals (relative errors added in quadrature).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.report.Summary result.json...
 * [heap.txt] [http-cpu.txt] [filter-cpu.txt]}; a {@code .txt} argument holds
 * {@code heap-per-key <name> <bytes>} lines ({@code HeapPerKey}) or {@code http-target <Markdown
 * row>} lines ({@code http.CpuPerRequest}, {@code http.FilterCpu}). Every target is printed with its verdict: met, missed, or not run
 * (its benchmark was not part of this run); the HTTP rows also say when the figures cannot decide
 * (FilterCpu's comparisons: "not resolved" when the rounds do not agree; CpuPerRequest's end-to-end
 * rows: within noise).
 */
public final class Summary {

    /** Single-key peers, compared with each Sluice algorithm. */
    private static final Set<String> SINGLE_KEY_PEERS =
            Set.of("bucket4jLockFree", "bucket4jSynchronized", "guava", "resilience4j");
    /** Many-key peers. */
    private static final Set<String> MANY_KEY_PEERS = Set.of("caffeineLimiters", "bucket4jCaffeine");

    private final List<Result> results;
    private final StringBuilder out = new StringBuilder();

    private Summary(List<Result> results) {
        this.results = results;
    }

    /**
     * @param args JMH JSON files and optionally heap-per-key text files
     * @throws IOException if a file cannot be read
     */
    public static void main(String[] args) throws IOException {
        List<Result> results = new ArrayList<>();
        List<String> heap = new ArrayList<>();
        List<String> http = new ArrayList<>();
        List<String> redisOneThread = new ArrayList<>();
        for (String a : args) {
            String text = Files.readString(Path.of(a));
            if (a.endsWith(".txt")) {
                text.lines().filter(l -> l.startsWith("heap-per-key ")).forEach(heap::add);
                text.lines().filter(l -> l.startsWith("http-target "))
                        .forEach(l -> http.add(l.substring("http-target ".length())));
                text.lines().filter(l -> l.startsWith("redis-1thread ")).forEach(redisOneThread::add);
            } else if (!text.isBlank()) {
                results.addAll(Result.from(Json.parse(text)));
            }
        }
        Summary s = new Summary(results);
        s.singleKey("SingleKeyAllowed", "Single key, allowed path");
        s.singleKey("SingleKeyDenied", "Single key, denied path");
        s.deniedVsAllowed();
        s.versusPeers("ManyKeys", "Many keys (1,000,000 IPv4 keys, Zipf 1.0)", MANY_KEY_PEERS, "sluiceRegistry");
        s.heap(heap);
        s.enforcer();
        s.redis();
        s.redisCluster();
        s.targets(heap);
        s.httpTargets(http);
        s.redisTargets(redisOneThread);
        System.out.print(s.out);
    }

    private void singleKey(String group, String title) {
        for (int threads : threads(group)) {
            List<Result> rows = rows(group, threads);
            Optional<Result> floor = find(rows, "floor");
            Optional<Result> best = rows.stream().filter(r -> SINGLE_KEY_PEERS.contains(r.method()))
                    .max(Comparator.comparingDouble(Result::score));
            line("%n### %s, %d thread%s%n%n", title, threads, threads == 1 ? "" : "s");
            line("| benchmark | ops/us | B/op | cost vs floor (x) | throughput vs best peer (x) |%n");
            line("|---|---:|---:|---:|---:|%n");
            for (Result r : rows) {
                line("| %s | %s | %s | %s | %s |%n", r.method(), score(r), bytes(r),
                        floor.map(f -> ratio(f, r)).orElse("-"),
                        best.map(b -> ratio(r, b)).orElse("-"));
            }
            best.ifPresent(b -> line("%nBest peer: %s.%n", b.method()));
        }
    }

    private void deniedVsAllowed() {
        Set<Integer> ts = threads("SingleKeyDenied");
        if (ts.isEmpty()) {
            return;
        }
        line("%n### Denied path throughput / allowed path throughput (same run)%n%n");
        line("| benchmark | threads | denied / allowed (x) |%n|---|---:|---:|%n");
        for (int t : ts) {
            for (Result d : rows("SingleKeyDenied", t)) {
                find(rows("SingleKeyAllowed", t), d.method())
                        .ifPresent(a -> line("| %s | %d | %s |%n", d.method(), t, ratio(d, a)));
            }
        }
    }

    private void versusPeers(String group, String title, Set<String> peers, String subject) {
        for (int threads : threads(group)) {
            List<Result> rows = rows(group, threads);
            Optional<Result> best = rows.stream().filter(r -> peers.contains(r.method()))
                    .max(Comparator.comparingDouble(Result::score));
            line("%n### %s, %d thread%s%n%n", title, threads, threads == 1 ? "" : "s");
            line("| benchmark | ops/us | B/op | throughput vs best alternative (x) |%n|---|---:|---:|---:|%n");
            for (Result r : rows) {
                line("| %s | %s | %s | %s |%n", r.method(), score(r), bytes(r),
                        best.map(b -> ratio(r, b)).orElse("-"));
            }
        }
    }

    private void heap(List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        line("%n### Retained heap per key (1,000,000 IPv4 keys, key string included)%n%n");
        line("| structure | bytes/key |%n|---|---:|%n");
        for (String l : lines) {
            String[] p = l.trim().split("\\s+");
            line("| %s | %s |%n", p[1], p[2]);
        }
    }

    private void enforcer() {
        for (int threads : threads("EnforcerPath")) {
            line("%n### Enforcer path (one request, IPv4 peer, one policy, headers), %d thread%s%n%n",
                    threads, threads == 1 ? "" : "s");
            List<Result> rows = rows("EnforcerPath", threads);
            Optional<Result> floor = find(rows, "floor");
            line("| benchmark | ops/us | ns/op | B/op | cost vs floor (x) |%n|---|---:|---:|---:|---:|%n");
            for (Result r : rows) {
                line("| %s | %s | %.0f | %s | %s |%n", r.method(), score(r), 1000 / r.score(), bytes(r),
                        floor.map(f -> ratio(f, r)).orElse("-"));
            }
        }
    }

    private void redis() {
        for (int threads : threads("RedisStores")) {
            List<Result> rows = rows("RedisStores", threads);
            line("%n### Redis, Sluice RedisStore vs Bucket4j Lettuce proxy manager, %d thread%s%n%n",
                    threads, threads == 1 ? "" : "s");
            line("| benchmark | ops/ms | B/op | Sluice / Bucket4j (x) |%n|---|---:|---:|---:|%n");
            for (Result r : rows) {
                String peer = r.method().replaceFirst("^sluice", "bucket4j");
                String rat = r.method().startsWith("sluice")
                        ? find(rows, peer).map(p -> ratio(r, p)).orElse("-") : "";
                line("| %s | %s | %s | %s |%n", r.method(), score(r), bytes(r), rat);
            }
        }
    }

    private void redisCluster() {
        for (int threads : threads("RedisCluster")) {
            List<Result> rows = rows("RedisCluster", threads);
            line("%n### Redis Cluster, Sluice RedisStore, %d thread%s%n%n", threads, threads == 1 ? "" : "s");
            line("| benchmark | decisions/s | B/op | vs one master (x) |%n|---|---:|---:|---:|%n");
            Optional<Result> one = find(rows, "manyKeysOneMaster");
            for (Result r : rows) {
                line("| %s | %.0f | %s | %s |%n", r.method(), r.score() * 1000, bytes(r),
                        one.map(o -> ratio(r, o)).orElse("-"));
            }
        }
    }

    /**
     * The Redis targets: allocation per decision, and throughput vs Bucket4j. At one thread both
     * stores wait on round trips, which on a loaded machine wait on the run queue: JMH's ratio is
     * the verdict only when its error interval lies on one side of the target; otherwise the
     * verdict comes from the interleaved rounds' CPU time per decision and round trips
     * ({@code Interleaved}, a {@code redis-1thread} line), which the load does not inflate.
     *
     * @param oneThread the {@code redis-1thread} lines of this run (zero or one)
     */
    private void redisTargets(List<String> oneThread) {
        line("%n### Redis targets (this run)%n%n| target | benchmark | measured | verdict |%n|---|---|---:|---|%n");
        boolean oneThreadDecided = false;
        for (int t : threads("RedisStores")) {
            List<Result> rows = rows("RedisStores", t);
            find(rows, "sluiceHotKey").ifPresent(r -> line("| <= 1,000 B per decision, %d thread(s) | %s"
                    + " | %s B/op | %s |%n", t, r.method(), bytes(r), Double.isNaN(r.bytesPerOp()) ? "n/a"
                    : r.bytesPerOp() <= 1000 ? "met" : "missed"));
            double factor = t == 1 ? 1.5 : 2;
            Optional<Result> s = find(rows, "sluiceHotKey");
            Optional<Result> b = find(rows, "bucket4jHotKey");
            if (t == 1 && s.isPresent() && b.isPresent()) {
                double v = s.get().score() / b.get().score();
                double e = v * Math.hypot(s.get().relativeError(), b.get().relativeError());
                boolean conclusive = !Double.isNaN(e) && (v - e >= factor || v + e < factor);
                if (conclusive || oneThread.isEmpty()) {
                    verdict("one hot key, 1 thread(s): >= 1.5x Bucket4j Lettuce", s.get(), s.get(), b.get(),
                            x -> x >= factor);
                    oneThreadDecided = true;
                } else {
                    line("| one hot key, 1 thread(s), JMH: >= 1.5x Bucket4j Lettuce | %s | %s | inconclusive"
                            + " (the interval spans the target or has no error bar): see the interleaved row |%n",
                            s.get().method(), ratio(s.get(), b.get()));
                }
            } else if (t >= 16) {
                s.ifPresent(r -> b.ifPresent(p -> verdict("one hot key, " + t + " thread(s): >= " + factor
                        + "x Bucket4j Lettuce", r, r, p, x -> x >= factor)));
            }
        }
        for (String l : oneThread) {
            Map<String, Double> f = new LinkedHashMap<>();
            for (String kv : l.substring("redis-1thread ".length()).trim().split(" ")) {
                int eq = kv.indexOf('=');
                f.put(kv.substring(0, eq), Double.parseDouble(kv.substring(eq + 1)));
            }
            double cpu = f.get("cpu");
            double composed = f.get("composed");
            // The verdict is on the median over rounds of the CPU ratio; the spread says how firmly.
            String verdict = (cpu >= 1.5 ? "met" : "missed")
                    + (f.get("cpuMin") < 1.5 && f.get("cpuMax") >= 1.5 ? " (the rounds' spread spans 1.5)" : "");
            line("| one hot key, 1 thread: >= 1.5x Bucket4j Lettuce, interleaved rounds (verdict: median over"
                    + " rounds of the CPU time per decision, client + redis-server; composed: the medians with"
                    + " the round trips' measured non-CPU wait, a lower bound for an idle machine) | Interleaved,"
                    + " %.0f rounds | CPU %.2f (%.2f-%.2f), composed %.2f (%.2f vs %.2f round trips, %.1f us wait"
                    + " each); wall %.2f (%.2f-%.2f) | %s%s |%n", f.get("rounds"), cpu, f.get("cpuMin"),
                    f.get("cpuMax"), composed, f.get("tripsSluice"), f.get("tripsBucket4j"), f.get("waitUs"),
                    f.get("wall"), f.get("wallMin"), f.get("wallMax"), verdict,
                    oneThreadDecided ? " (JMH decided above)" : "");
            oneThreadDecided = true;
        }
        if (threads("RedisStores").isEmpty()) {
            line("| <= 1,000 B per decision | sluiceHotKey | not run | not run |%n");
        }
        for (int t : new int[] {1, 16, 64}) {
            if (!threads("RedisStores").contains(t) && !(t == 1 && oneThreadDecided)) {
                line("| one hot key, %d thread(s): >= %sx Bucket4j Lettuce | sluiceHotKey | not run | not run |%n",
                        t, t == 1 ? "1.5" : "2");
            }
        }
    }

    /**
     * Checks the targets against this run, per Sluice algorithm, for many keys, the heap per key
     * and the enforcer path; a target whose benchmark did not run is printed as not run. The verdict is on the point estimate; the measured column carries the error.
     */
    private void targets(List<String> heap) {
        line("%n### Targets (this run)%n%n| target | benchmark | measured | verdict |%n|---|---|---:|---|%n");
        List<Result> a1 = rows("SingleKeyAllowed", 1);
        Optional<Result> floor1 = find(a1, "floor");
        Optional<Result> peer1 = bestPeer(a1);
        if (a1.isEmpty()) {
            notRun("allowed, 1 thread: cost <= 1.3x floor", "SingleKeyAllowed");
            notRun("allowed, 1 thread: >= 1.5x best peer", "SingleKeyAllowed");
            notRun("allowed, 1 thread: ~0 B/op", "SingleKeyAllowed");
        } else if (peer1.isEmpty()) {
            notRun("allowed, 1 thread: >= 1.5x best peer", "the peers of SingleKeyAllowed");
        }
        if (threads("SingleKeyDenied").isEmpty()) {
            notRun("denied no slower than allowed", "SingleKeyDenied");
        }
        for (Result r : sluiceRows(a1)) {
            floor1.ifPresent(f -> verdict("allowed, 1 thread: cost <= 1.3x floor", r, f, r, v -> v <= 1.3));
            peer1.ifPresent(b -> verdict("allowed, 1 thread: >= 1.5x best peer (" + b.method() + ")", r,
                    r, b, v -> v >= 1.5));
            line("| allowed, 1 thread: ~0 B/op | %s | %s B/op | %s |%n", r.method(), bytes(r),
                    Double.isNaN(r.bytesPerOp()) ? "n/a" : r.bytesPerOp() < 1 ? "met" : "missed");
        }
        for (int t : threads("SingleKeyDenied")) {
            List<Result> allowed = rows("SingleKeyAllowed", t);
            for (Result d : sluiceRows(rows("SingleKeyDenied", t))) {
                find(allowed, d.method()).ifPresent(a -> verdict("denied no slower than allowed, " + t
                        + " thread(s)", d, d, a, v -> v >= 1.0));
            }
        }
        List<Result> a2 = rows("SingleKeyAllowed", 2);
        Optional<Result> peer2 = bestPeer(a2);
        if (a2.isEmpty() || peer2.isEmpty()) {
            notRun("2 threads, one key: >= 1.5x best peer", "SingleKeyAllowed, 2 threads");
        }
        if (rows("ManyKeys", 1).isEmpty()) {
            notRun("1M keys, 1 thread(s): >= 2x best Caffeine-based", "ManyKeys");
        }
        for (Result r : sluiceRows(a2)) {
            peer2.ifPresent(b -> verdict("2 threads, one key: >= 1.5x best peer (" + b.method() + ")", r,
                    r, b, v -> v >= 1.5));
        }
        for (int t : threads("ManyKeys")) {
            List<Result> m = rows("ManyKeys", t);
            Optional<Result> alt = m.stream().filter(r -> MANY_KEY_PEERS.contains(r.method()))
                    .max(Comparator.comparingDouble(Result::score));
            find(m, "sluiceRegistry").ifPresent(r -> alt.ifPresent(b -> verdict(
                    "1M keys, " + t + " thread(s): >= 2x best Caffeine-based (" + b.method() + ")", r,
                    r, b, v -> v >= 2)));
        }
        List<Result> e1 = rows("EnforcerPath", 1);
        Optional<Result> allowed = find(e1, "allowed");
        if (allowed.isEmpty()) {
            notRun("enforcer path, allowed, 1 thread: cost <= 4x floor", "EnforcerPath");
            notRun("enforcer path, allowed: <= 128 B/op", "EnforcerPath");
            notRun("enforcer path, denied no slower than allowed", "EnforcerPath");
        }
        allowed.ifPresent(a -> find(e1, "floor").ifPresent(f -> verdict(
                "enforcer path, allowed, 1 thread: cost <= 4x floor", a, f, a, v -> v <= 4)));
        allowed.ifPresent(a -> line("| enforcer path, allowed: <= 128 B/op | allowed | %s B/op | %s |%n",
                bytes(a), Double.isNaN(a.bytesPerOp()) ? "n/a" : a.bytesPerOp() <= 128 ? "met" : "missed"));
        for (int t : threads("EnforcerPath")) {
            List<Result> e = rows("EnforcerPath", t);
            find(e, "denied").ifPresent(d -> find(e, "allowed").ifPresent(a -> verdict(
                    "enforcer path, denied no slower than allowed, " + t + " thread(s)", d, d, a, v -> v >= 1.0)));
        }
        // Counting by outcome: a kept reservation and a refunded one allocate what a plain decision
        // does (the refunds per request are counted call by call in OutcomeCountingCostTest).
        List<Result> o1 = rows("OutcomeCounting", 1);
        Optional<Result> plain = find(o1, "plain");
        Optional<Result> kept = find(o1, "kept");
        Optional<Result> refunded = find(o1, "refunded");
        if (plain.isEmpty() || kept.isEmpty() || refunded.isEmpty()) {
            notRun("outcome counting: kept and refunded allocate no more than plain", "OutcomeCounting");
        } else {
            double p = plain.get().bytesPerOp();
            double most = Math.max(kept.get().bytesPerOp(), refunded.get().bytesPerOp());
            line("| outcome counting: kept and refunded allocate no more than plain | kept, refunded | %s, %s vs %s B/op | %s |%n",
                    bytes(kept.get()), bytes(refunded.get()), bytes(plain.get()),
                    Double.isNaN(p) || Double.isNaN(most) ? "n/a" : most <= p + 0.5 ? "met" : "missed"); // JMH reports 112.002 for 112
        }
        if (heap.stream().noneMatch(l -> l.trim().split("\\s+")[1].equals("sluice"))) {
            notRun("<= 128 B retained per IPv4 key", "HeapPerKey");
        }
        for (String l : heap) {
            String[] p = l.trim().split("\\s+");
            if (p[1].equals("sluice")) {
                double bytes = Double.parseDouble(p[2]);
                line("| <= 128 B retained per IPv4 key | registry | %.1f B | %s |%n", bytes,
                        bytes <= 128 ? "met" : "missed");
            }
        }
    }

    /**
     * The HTTP targets: the verdicts by composition, from {@code FilterCpu}'s rows (each limiter's
     * cost measured in-process, over the no-filter server's CPU per request measured end to end),
     * then {@code CpuPerRequest}'s end-to-end rows, which report figures within their noise.
     */
    private void httpTargets(List<String> rows) {
        line("%n### HTTP targets (server CPU time per request, this run)%n%n"
                + "The verdicts are by composition: on this machine the end-to-end figures move by more than the "
                + "3 %% being tested from round to round, so each limiter's own CPU per request is measured in-process "
                + "(FilterCpu) and divided by the no-filter server's CPU per request measured end to end "
                + "(CpuPerRequest); the end-to-end rows are reported as measured.%n%n| target | measured | verdict |%n"
                + "|---|---|---|%n");
        if (rows.stream().noneMatch(r -> r.contains("by composition"))) {
            line("| HTTP CPU: Sluice adds <= 3 %% of the no-filter CPU per request, by composition (Jetty, Tomcat) "
                    + "| not run (HTTP=1 benchmarks/run.sh, or HTTP_BASE=jetty=<us>,tomcat=<us>) | not run |%n");
            line("| HTTP CPU: Sluice adds less than Tomcat's RateLimitFilter, Jetty's QoSHandler and DoSHandler "
                    + "(in-process) | not run | not run |%n");
        }
        if (rows.stream().noneMatch(r -> r.contains("end to end"))) {
            line("| HTTP CPU end to end (Jetty, Tomcat) | not run (HTTP=1 benchmarks/run.sh, or "
                    + "benchmarks/http-cpu.sh) | not run |%n");
        }
        if (rows.stream().noneMatch(r -> r.contains("Reactor Netty"))) {
            line("| WebFlux and gateway filters: their own CPU <= 3 %% of an unprotected request (Reactor Netty) | not "
                    + "run (REACTIVE=1 benchmarks/run.sh, or benchmarks/reactive-cpu.sh) | not run |%n");
        }
        if (rows.stream().noneMatch(r -> r.contains("RedisRateLimiter"))) {
            line("| Gateway, Redis token bucket: less CPU per request than RedisRateLimiter at 1 and 16 clients | not "
                    + "run (REACTIVE=1 benchmarks/run.sh with redis-server) | not run |%n");
        }
        rows.stream().filter(r -> !r.contains("end to end")).forEach(r -> line("%s%n", r));
        rows.stream().filter(r -> r.contains("end to end")).forEach(r -> line("%s%n", r));
    }

    /** A target whose benchmark was not part of this run. */
    private void notRun(String target, String benchmark) {
        line("| %s | %s | not run | not run |%n", target, benchmark);
    }

    private static Optional<Result> bestPeer(List<Result> rows) {
        return rows.stream().filter(r -> SINGLE_KEY_PEERS.contains(r.method()))
                .max(Comparator.comparingDouble(Result::score));
    }

    private static List<Result> sluiceRows(List<Result> rows) {
        return rows.stream().filter(r -> r.method().startsWith("sluice")).toList();
    }

    /** One target row: {@code a.score / b.score}, with its error, tested by {@code met}. */
    private void verdict(String target, Result row, Result a, Result b, DoublePredicate met) {
        double v = a.score() / b.score();
        line("| %s | %s | %s | %s |%n", target, row.method(), ratio(a, b),
                Double.isNaN(v) ? "n/a" : met.test(v) ? "met" : "missed");
    }

    private Set<Integer> threads(String group) {
        Set<Integer> t = new TreeSet<>();
        results.stream().filter(r -> r.group().equals(group)).forEach(r -> t.add(r.threads()));
        return t;
    }

    private List<Result> rows(String group, int threads) {
        Map<String, Result> m = new LinkedHashMap<>();
        results.stream().filter(r -> r.group().equals(group) && r.threads() == threads)
                .sorted(Comparator.comparing(Result::method)).forEach(r -> m.put(r.method(), r));
        return new ArrayList<>(m.values());
    }

    private static Optional<Result> find(List<Result> rows, String method) {
        return rows.stream().filter(r -> r.method().equals(method)).findFirst();
    }

    /** {@code a.score / b.score} with the propagated error. */
    private static String ratio(Result a, Result b) {
        double r = a.score() / b.score();
        double e = r * Math.hypot(a.relativeError(), b.relativeError());
        return String.format(Locale.ROOT, "%.2f ± %.2f", r, e);
    }

    private static String score(Result r) {
        return Double.isNaN(r.error())
                ? String.format(Locale.ROOT, "%.3f", r.score())
                : String.format(Locale.ROOT, "%.3f ± %.3f", r.score(), r.error());
    }

    private static String bytes(Result r) {
        return Double.isNaN(r.bytesPerOp()) ? "-" : String.format(Locale.ROOT, "%.1f", r.bytesPerOp());
    }

    private void line(String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args));
    }
}
