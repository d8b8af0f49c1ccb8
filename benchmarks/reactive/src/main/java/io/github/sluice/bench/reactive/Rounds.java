package io.github.sluice.bench.reactive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Interleaved rounds over candidates served by one server in one JVM: each round measures every
 * candidate once, in an order that rotates from round to round, with the same load; per candidate
 * and round, the server side's CPU per request ({@link ServerCpu}), an optional second CPU clock
 * (redis-server's) per request, and the throughput. A shared machine's disturbances shift whole
 * rounds, so the comparisons use the per-round differences.
 */
final class Rounds {

    /** One way of serving the requests: a path, and what to switch before its batch. */
    record Candidate(String name, String path, Runnable select) {
    }

    /** What one candidate measured, per round. */
    static final class Measured {
        final double[] cpuUs;
        final double[] otherUs;
        final double[] perSecond;
        /** The timed stage's CPU per request, ns ({@link Probe}; NaN where no probe ran). */
        final double[] stageNs;
        /** The rest of the chain behind the stage, ns ({@link Probe}). */
        final double[] innerNs;
        /** The server's encoding of a response head, ns ({@link EncodeProbe}; NaN where it is not installed). */
        final double[] encodeNs;
        long hops;
        /** CPU ns by thread group over every measured batch (with {@code -Dbench.threads=true}). */
        final Map<String, Long> groups = new java.util.TreeMap<>();

        Measured(int rounds) {
            stageNs = new double[rounds];
            innerNs = new double[rounds];
            encodeNs = new double[rounds];
            cpuUs = new double[rounds];
            otherUs = new double[rounds];
            perSecond = new double[rounds];
        }
    }

    /** Whether to keep the CPU by thread group ({@code -Dbench.threads=true}). */
    static final boolean GROUPS = Boolean.getBoolean("bench.threads");

    private Rounds() {
    }

    /** Prints each candidate's CPU per request by thread group, if kept. */
    static void printGroups(Map<String, Measured> m, int requests) {
        if (!GROUPS) {
            return;
        }
        for (var e : m.entrySet()) {
            StringBuilder b = new StringBuilder("threads, ").append(e.getKey()).append(", us per request:");
            int rounds = e.getValue().cpuUs.length;
            e.getValue().groups.forEach((k, v) -> {
                double us = v / 1000.0 / requests / rounds;
                if (us >= 0.5) {
                    b.append(String.format(Locale.ROOT, " %s %.1f;", k, us));
                }
            });
            System.out.println(b);
        }
    }

    /**
     * @param load the load, already connected
     * @param candidates what to compare
     * @param warmUp requests per candidate before the rounds (JIT)
     * @param requests requests per candidate and round
     * @param rounds rounds
     * @param other a second CPU clock in ns (redis-server's), or {@code null}
     * @return per candidate, in the order given
     */
    static Map<String, Measured> run(Load load, List<Candidate> candidates, int warmUp, int requests, int rounds,
            LongSupplier other) throws InterruptedException {
        for (int pass = 0; pass < 2; pass++) {
            for (Candidate c : candidates) {
                c.select().run();
                load.run(c.path(), warmUp / 2);
            }
        }
        Map<String, Measured> out = new LinkedHashMap<>();
        candidates.forEach(c -> out.put(c.name(), new Measured(rounds)));
        int n = candidates.size();
        for (int r = 0; r < rounds; r++) {
            List<Candidate> order = new ArrayList<>(candidates);
            // rotate, and reverse every other round: each candidate in each position, before and after each other
            java.util.Collections.rotate(order, r % n);
            if ((r / n) % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            for (Candidate c : order) {
                c.select().run();
                load.run(c.path(), requests / 10); // settle after the switch, unmeasured
                long o0 = other == null ? 0 : other.getAsLong();
                Probe.reset();
                EncodeProbe.reset();
                Map<String, Long> g0 = GROUPS ? ServerCpu.byGroup() : null;
                long c0 = ServerCpu.nanos();
                long wall = load.run(c.path(), requests);
                long c1 = ServerCpu.nanos();
                if (GROUPS) {
                    Map<String, Long> into = out.get(c.name()).groups;
                    ServerCpu.byGroup().forEach((k, v) -> into.merge(k, v - g0.getOrDefault(k, 0L), Long::sum));
                }
                long o1 = other == null ? 0 : other.getAsLong();
                Measured m = out.get(c.name());
                m.cpuUs[r] = (c1 - c0) / 1000.0 / requests;
                m.otherUs[r] = (o1 - o0) / 1000.0 / requests;
                m.perSecond[r] = requests * 1e9 / wall;
                m.stageNs[r] = Probe.stageNs();
                m.innerNs[r] = Probe.innerNs();
                m.encodeNs[r] = EncodeProbe.ns();
                m.hops += Probe.hops();
            }
        }
        return out;
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    static double[] minus(double[] a, double[] b) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i] - b[i];
        }
        return d;
    }

    static double[] plus(double[] a, double[] b) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i] + b[i];
        }
        return d;
    }

    /** @return "median (min-max)" */
    static String spread(double[] v, String format) {
        double[] s = v.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, format + " (" + format + " to " + format + ")", median(s), s[0], s[s.length - 1]);
    }

    /**
     * A sign test on per-round differences: {@code met} when significantly more rounds than
     * chance (two-sided 5 %) found {@code d < 0}, {@code missed} when as many found {@code d > 0},
     * {@code not resolved} otherwise.
     */
    static String signTest(double[] d) {
        int below = (int) Arrays.stream(d).filter(x -> x < 0).count();
        int above = (int) Arrays.stream(d).filter(x -> x > 0).count();
        int needed = signTestCount(below + above);
        return below >= needed ? "met" : above >= needed ? "missed" : "not resolved";
    }

    static int below(double[] d) {
        return (int) Arrays.stream(d).filter(x -> x < 0).count();
    }

    /** @return the least k such that k or more of n fair coin tosses on one side has probability <= 2.5 % */
    static int signTestCount(int n) {
        double tail = 0;
        double p = Math.pow(0.5, n);
        double choose = 1;
        for (int k = n; k >= 0; k--) {
            tail += choose * p;
            if (tail > 0.025) {
                return k + 1;
            }
            choose = choose * k / (n - k + 1);
        }
        return n + 1;
    }

    /**
     * The filter-overhead verdict against a share of the unprotected request: per round,
     * {@code on - off - share * off}; met when the rounds agree it is negative.
     *
     * @return a Markdown row's measured and verdict cells
     */
    static String overhead(double[] on, double[] off, double share) {
        double[] d = minus(on, off);
        double[] test = new double[d.length];
        double[] pct = new double[d.length];
        for (int i = 0; i < d.length; i++) {
            test[i] = d[i] - share * off[i];
            pct[i] = 100 * d[i] / off[i];
        }
        return String.format(Locale.ROOT, "%.2f us of %.2f us per request = %.2f %% (per round %s %%; within %.0f %% in "
                + "%d of %d rounds) | %s", median(d), median(off), 100 * median(d) / median(off), spread(pct, "%.2f"),
                100 * share, below(test), d.length, signTest(test));
    }
}
