package io.github.sluice.bench.micro;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.limiter.Limiter;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * CPU time per operation, for a machine too loaded for JMH's wall-clock scores: every candidate
 * runs a fixed batch of operations in rounds (the order rotates from round to round), the
 * batch's CPU time is read before and after, and each candidate's cost is divided by its
 * reference's in the same round. Time a thread spends descheduled is not counted, so the ratios
 * hold on a machine whose load moves from second to second (caches shared with other processes
 * still disturb them, which the spread over rounds shows).
 *
 * <p>{@code single}: the floor ({@code nanoTime} + one CAS) and every rate algorithm of
 * {@code SingleKeyAllowed} and {@code SingleKeyDenied}, on the benchmark thread's CPU time
 * ({@code ThreadMXBean}). {@code keys}: {@code ManyKeys}' registry and the same limiter in a
 * bounded Caffeine cache (with its default executor, which does its maintenance on another
 * thread, and with {@code executor(Runnable::run)}), on the whole process's CPU time (every
 * thread's, from {@code /proc/self/task}), so that work handed to other threads is counted; a
 * thread that ends during a batch takes its time with it, which only a thread pool retiring a
 * worker does here.
 *
 * <p>Usage: {@code java [-Xms3g -Xmx3g] -cp benchmarks.jar io.github.sluice.bench.micro.CpuPerOp
 * single|keys|enforcer|calendar|top|plan|outcome [rounds]}. {@code enforcer}: {@code EnforcerPath}'s requests (allowed, allowed
 * on a draining key, denied) against the floor, and the allowed request's parts alone. Prints one Markdown table: per candidate, CPU ns per operation (median
 * over rounds) and its ratio to the reference, median (min-max).
 */
public final class CpuPerOp {

    /** One candidate: runs {@code n} operations and returns how many were admitted. */
    private interface Batch {
        long run(int n);
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static volatile long sink;

    private CpuPerOp() {
    }

    /**
     * @param args {@code single}, {@code keys}, {@code enforcer} or {@code top}, then optionally the
     *     number of rounds
     */
    public static void main(String[] args) {
        String what = args.length > 0 ? args[0] : "single";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        if (what.equals("keys")) {
            keys(rounds);
        } else if (what.equals("enforcer")) {
            enforcer(rounds);
        } else if (what.equals("calendar")) {
            calendar(rounds);
        } else if (what.equals("top")) {
            top(rounds);
        } else if (what.equals("plan")) {
            plan(rounds);
        } else if (what.equals("outcome")) {
            outcome(rounds);
        } else {
            single(rounds);
        }
    }

    private static void single(int rounds) {
        Map<String, Batch> c = new LinkedHashMap<>();
        Floor floor = new Floor();
        c.put("floor", n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += floor.tick() ? 1 : 0;
            }
            return a;
        });
        SingleKeyLimiters open = new SingleKeyLimiters(Configs.OPEN);
        c.put("allowed sluiceTokenBucket", loop(open.tokenBucket));
        c.put("allowed sluiceGcra", loop(open.gcra));
        c.put("allowed sluiceFixedWindow", loop(open.fixedWindow));
        c.put("allowed sluiceSlidingWindow", loop(open.slidingWindow));
        SingleKeyLimiters shut = new SingleKeyLimiters(Configs.SHUT);
        for (String s : List.of("sluiceTokenBucket", "sluiceGcra", "sluiceFixedWindow", "sluiceSlidingWindow")) {
            shut.drain(s);
        }
        c.put("denied sluiceTokenBucket", loop(shut.tokenBucket));
        c.put("denied sluiceGcra", loop(shut.gcra));
        c.put("denied sluiceFixedWindow", loop(shut.fixedWindow));
        c.put("denied sluiceSlidingWindow", loop(shut.slidingWindow));
        run(c, rounds, 2_000_000, "floor", false);
        Map<String, double[]> perOp = last;
        List<String> targets = new ArrayList<>();
        for (String s : List.of("sluiceTokenBucket", "sluiceGcra", "sluiceFixedWindow", "sluiceSlidingWindow")) {
            double[] r = ratios(perOp.get("allowed " + s), perOp.get("floor"));
            targets.add(target("allowed, 1 thread: cost <= 1.3x floor (CPU time), " + s, r,
                    median(r) <= 1.3));
        }
        for (String s : List.of("sluiceTokenBucket", "sluiceGcra", "sluiceFixedWindow", "sluiceSlidingWindow")) {
            double[] r = ratios(perOp.get("denied " + s), perOp.get("allowed " + s));
            targets.add(target("denied no slower than allowed (CPU time, denied / allowed <= 1), "
                    + s, r, median(r) <= 1));
        }
        printTargets(targets);
    }

    /**
     * {@code CalendarWindowDecision}: a calendar month's decision against the epoch-aligned fixed
     * window's (the same algorithm, the calendar's window read from its cache), allowed and denied.
     */
    private static void calendar(int rounds) {
        CalendarWindowDecision d = new CalendarWindowDecision();
        d.setUp();
        Map<String, Batch> c = new LinkedHashMap<>();
        c.put("allowed epoch", loop(d.epochOpen));
        c.put("allowed calendar", loop(d.calendarOpen));
        c.put("denied epoch", loop(d.epochShut));
        c.put("denied calendar", loop(d.calendarShut));
        run(c, rounds, 2_000_000, "allowed epoch", false);
        Map<String, double[]> perOp = last;
        double[] allowed = ratios(perOp.get("allowed calendar"), perOp.get("allowed epoch"));
        double[] denied = ratios(perOp.get("denied calendar"), perOp.get("denied epoch"));
        printTargets(List.of(
                target("calendar window, allowed: cost <= 1.1x the epoch-aligned fixed window (CPU time)", allowed,
                        median(allowed) <= 1.1),
                target("calendar window, denied: cost <= 1.1x the epoch-aligned fixed window (CPU time)", denied,
                        median(denied) <= 1.1)));
    }

    /**
     * {@code PlanPath}'s requests: a fixed policy's decision against a plan's (its override answer
     * cached) and a cached contract's, headers written, on the benchmark thread's CPU time.
     */
    private static void plan(int rounds) {
        PlanPath path = new PlanPath();
        try {
            path.setUp(new org.openjdk.jmh.infra.Blackhole(
                    "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous."));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        try {
            Map<String, Batch> c = new LinkedHashMap<>();
            c.put("fixed policy", n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += path.fixed().admitted() ? 1 : 0;
                }
                return a;
            });
            c.put("plan, override cached", n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += path.plan().admitted() ? 1 : 0;
                }
                return a;
            });
            c.put("contract, cached", n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += path.override().admitted() ? 1 : 0;
                }
                return a;
            });
            run(c, rounds, 1_000_000, "fixed policy", false);
            Map<String, double[]> perOp = last;
            double[] plan = ratios(perOp.get("plan, override cached"), perOp.get("fixed policy"));
            double[] contract = ratios(perOp.get("contract, cached"), perOp.get("fixed policy"));
            printTargets(List.of(
                    target("plan with a cached override: <= 1.2x a fixed policy's decision (CPU time)", plan,
                            median(plan) <= 1.2),
                    target("cached contract: <= 1.2x a fixed policy's decision (CPU time)", contract,
                            median(contract) <= 1.2)));
        } finally {
            path.close();
        }
    }

    /**
     * {@code OutcomeCounting}'s requests (a policy without {@code count=}, a reservation kept, one
     * refunded), and what one refund costs alone: the same fixed window's admission with and
     * without a refund by its receipt, on the in-memory registry. The target: a refunded request
     * costs at most one refund more than a plain one.
     */
    private static void outcome(int rounds) {
        OutcomeCounting o = new OutcomeCounting();
        o.setUp();
        try {
            Map<String, Batch> c = new LinkedHashMap<>();
            c.put("plain", n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += o.plain().admitted() ? 1 : 0;
                }
                return a;
            });
            c.put("kept", n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += o.kept().admitted() ? 1 : 0;
                }
                return a;
            });
            c.put("refunded", n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += o.refunded().admitted() ? 1 : 0;
                }
                return a;
            });
            KeySpace space = ShardedRegistry.builder().build().keySpace("login", Configs.OPEN.fixedWindow());
            MutableDecision out = new MutableDecision();
            c.put("part: admission", n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += space.acquire("192.0.2.33", 1, out) ? 1 : 0;
                }
                return a;
            });
            c.put("part: admission + refund", n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += space.acquire("192.0.2.33", 1, out) ? 1 : 0;
                    space.refund("192.0.2.33", 1, out);
                }
                return a;
            });
            run(c, rounds, 1_000_000, "plain", false);
            Map<String, double[]> perOp = last;
            double[] kept = ratios(perOp.get("kept"), perOp.get("plain"));
            double[] extra = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                double refund = perOp.get("part: admission + refund")[r] - perOp.get("part: admission")[r];
                extra[r] = (perOp.get("refunded")[r] - perOp.get("plain")[r]) / refund;
            }
            printTargets(List.of(
                    target("outcome counting, reservation kept: cost vs a plain policy (no target; same allocation)",
                            kept, true).replace("| met |", "| reported |"),
                    target("outcome counting, refunded: (refunded - plain) / one refund <= 1 (CPU time)", extra,
                            median(extra) <= 1)));
        } finally {
            o.close();
        }
    }

    /**
     * {@code EnforcerPath}'s three requests against the floor, plus the parts of the allowed one
     * measured alone (the key, the store's decision, the decision without headers), which show
     * where its time goes.
     */
    private static void enforcer(int rounds) {
        Map<String, Batch> c = new LinkedHashMap<>();
        Floor floor = new Floor();
        c.put("floor", n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += floor.tick() ? 1 : 0;
            }
            return a;
        });
        EnforcerPath path = new EnforcerPath();
        long[] chars = new long[1];
        path.setUp((name, value) -> chars[0] += value.length());
        c.put("enforcer allowed", n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += path.allowed().admitted() ? 1 : 0;
            }
            return a + chars[0];
        });
        c.put("enforcer allowedDraining", n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += path.allowedDraining().admitted() ? 1 : 0;
            }
            return a + chars[0];
        });
        c.put("enforcer denied", n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += path.denied().denied() ? 1 : 0;
            }
            return a + chars[0];
        });
        c.put("part: decision without headers", n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += path.allowedWithoutHeaders().admitted() ? 1 : 0;
            }
            return a;
        });
        RequestView request = new EnforcerPath.Request("GET", "/hello", "192.0.2.33");
        KeyResolver ip = KeyResolvers.ip();
        c.put("part: ip key", n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += ip.resolve(request).length();
            }
            return a;
        });
        KeySpace space = ShardedRegistry.builder().build().keySpace("per-ip", Configs.OPEN.tokenBucket());
        MutableDecision out = new MutableDecision();
        c.put("part: registry acquire", n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += space.acquire("192.0.2.33", 1, out) ? 1 : 0;
            }
            return a;
        });
        run(c, rounds, 1_000_000, "floor", false);
        Map<String, double[]> perOp = last;
        double[] allowed = ratios(perOp.get("enforcer allowed"), perOp.get("floor"));
        double[] draining = ratios(perOp.get("enforcer allowedDraining"), perOp.get("floor"));
        double[] denied = ratios(perOp.get("enforcer denied"), perOp.get("enforcer allowed"));
        printTargets(List.of(
                target("enforcer path, allowed, 1 thread: cost <= 4x floor (CPU time)", allowed, median(allowed) <= 4),
                target("enforcer path, allowed on a draining key, 1 thread: cost vs floor (CPU time; no target)",
                        draining, true).replace("| met |", "| reported |"),
                target("enforcer path, denied no slower than allowed (CPU time, denied / allowed <= 1)", denied,
                        median(denied) <= 1)));
    }

    /**
     * The heavy hitters' cost ({@code TopClientsCost}'s requests): each path with top-clients off
     * and on (the default, refusals only; and admissions too), in the same rounds.
     */
    private static void top(int rounds) {
        Map<String, Batch> c = new LinkedHashMap<>();
        for (String top : List.of("off", "denied", "admitted")) {
            TopClientsCost t = new TopClientsCost();
            t.top = top;
            t.setUp();
            c.put("allowed, top-clients " + top, n -> {
                long a = 0;
                for (int i = 0; i < n; i++) {
                    a += t.allowed().admitted() ? 1 : 0;
                }
                return a;
            });
            if (!top.equals("admitted")) {
                c.put("denied, top-clients " + top, n -> {
                    long a = 0;
                    for (int i = 0; i < n; i++) {
                        a += t.denied().denied() ? 1 : 0;
                    }
                    return a;
                });
                c.put("denied flood, top-clients " + top, n -> {
                    long a = 0;
                    for (int i = 0; i < n; i++) {
                        a += t.deniedFlood().denied() ? 1 : 0;
                    }
                    return a;
                });
            }
        }
        run(c, rounds, 500_000, "allowed, top-clients off", false);
        Map<String, double[]> perOp = last;
        double[] denied = ratios(perOp.get("denied, top-clients denied"), perOp.get("denied, top-clients off"));
        double[] allowed = ratios(perOp.get("allowed, top-clients denied"), perOp.get("allowed, top-clients off"));
        double[] flood = ratios(perOp.get("denied flood, top-clients denied"), perOp.get("denied flood, top-clients off"));
        double[] admitted = ratios(perOp.get("allowed, top-clients admitted"), perOp.get("allowed, top-clients off"));
        printTargets(List.of(
                target("heavy hitters, denied path: on (default) / off <= 1.10 (CPU time)", denied, median(denied) <= 1.10),
                target("heavy hitters, allowed path: on (default) / off <= 1.02 (CPU time)", allowed,
                        median(allowed) <= 1.02),
                target("heavy hitters, a flood of distinct refused keys: on / off (no target)", flood, true)
                        .replace("| met |", "| reported |"),
                target("heavy hitters kept for admissions too (opt-in), allowed path: on / off (no target)", admitted,
                        true).replace("| met |", "| reported |")));
    }

    private static double[] ratios(double[] a, double[] b) {
        double[] r = new double[a.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = a[i] / b[i];
        }
        return r;
    }

    private static String target(String what, double[] v, boolean met) {
        return "| " + what + " | " + spread(v) + " | " + (met ? "met" : "missed") + " |";
    }

    private static void printTargets(List<String> targets) {
        System.out.println();
        System.out.println("| target (median of the rounds) | measured, median (min-max) | verdict |");
        System.out.println("|---|---:|---|");
        targets.forEach(System.out::println);
    }

    private static <S extends Cell> Batch loop(Limiter<S> limiter) {
        return n -> {
            long a = 0;
            for (int i = 0; i < n; i++) {
                a += limiter.tryAcquire() ? 1 : 0;
            }
            return a;
        };
    }

    private static void keys(int rounds) {
        String[] keys = KeyPool.addresses(ManyKeys.KEYS);
        int[] sequence = KeyPool.zipf(ManyKeys.KEYS, 1.0, 1 << 22, 42);
        int mask = (1 << 22) - 1;
        Map<String, Batch> c = new LinkedHashMap<>();
        Algorithm<Cell> algorithm = Configs.KEYED.tokenBucket();
        KeySpace space = ShardedRegistry.builder().maxKeys(ManyKeys.BOUND).memoryBudget(1L << 30)
                .build().keySpace("per-ip", algorithm);
        MutableDecision out = new MutableDecision();
        for (int i = 0; i < ManyKeys.KEYS; i++) {
            space.acquire(KeyPool.address(i), 1, out);
        }
        int[] at = {0};
        c.put("sluiceRegistry", n -> {
            long a = 0;
            int p = at[0];
            for (int i = 0; i < n; i++) {
                a += space.acquire(keys[sequence[p++ & mask]], 1, out) ? 1 : 0;
            }
            at[0] = p;
            return a;
        });
        Function<String, Limiter<Cell>> create = k -> Limiter.of(algorithm);
        for (boolean callerRuns : new boolean[] {false, true}) {
            Caffeine<Object, Object> b = Caffeine.newBuilder().maximumSize(ManyKeys.BOUND);
            if (callerRuns) {
                b = b.executor(Runnable::run);
            }
            Cache<String, Limiter<Cell>> cache = b.build();
            for (int i = 0; i < ManyKeys.KEYS; i++) {
                cache.get(KeyPool.address(i), create).tryAcquire();
            }
            cache.cleanUp();
            int[] cat = {12345};
            c.put(callerRuns ? "caffeineLimitersCallerRuns" : "caffeineLimiters", n -> {
                long a = 0;
                int p = cat[0];
                for (int i = 0; i < n; i++) {
                    a += cache.get(keys[sequence[p++ & mask]], create).acquire(1, out) ? 1 : 0;
                }
                cat[0] = p;
                return a;
            });
        }
        System.gc();
        run(c, rounds, 400_000, "caffeineLimiters", true);
        double[] speedup = ratios(last.get("caffeineLimiters"), last.get("sluiceRegistry"));
        printTargets(List.of(target("1M keys, 1 thread: >= 2x the same limiter in Caffeine"
                + " (process CPU time per decision, Caffeine / registry)", speedup, median(speedup) >= 2)));
    }

    private static Map<String, double[]> last;

    private static void run(Map<String, Batch> candidates, int rounds, int n, String reference,
            boolean process) {
        List<String> names = new ArrayList<>(candidates.keySet());
        // Warm-up: until every candidate's loop is compiled (a few batches each).
        for (int w = 0; w < 8; w++) {
            for (String name : names) {
                sink += candidates.get(name).run(n);
            }
        }
        Map<String, double[]> perOp = new LinkedHashMap<>();
        for (String name : names) {
            perOp.put(name, new double[rounds]);
        }
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < names.size(); k++) {
                String name = names.get((k + r) % names.size());
                Batch b = candidates.get(name);
                long before = process ? processCpuNanos() : THREADS.getCurrentThreadCpuTime();
                sink += b.run(n);
                long after = process ? processCpuNanos() : THREADS.getCurrentThreadCpuTime();
                perOp.get(name)[r] = (after - before) / (double) n;
            }
        }
        last = perOp;
        double[] ref = perOp.get(reference);
        System.out.printf(Locale.ROOT, "%d rounds of %,d operations per candidate, %s CPU time; load %s%n%n",
                rounds, n, process ? "process" : "thread", loadAverage());
        System.out.println("| candidate | CPU ns/op, median (min-max) | cost vs " + reference
                + ", median (min-max) |");
        System.out.println("|---|---:|---:|");
        for (String name : names) {
            double[] v = perOp.get(name);
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratio[r] = v[r] / ref[r];
            }
            System.out.println("| " + name + " | " + spread(v) + " | " + spread(ratio) + " |");
        }
    }

    /**
     * The CPU time of every thread of this process, in nanoseconds: the sum of the first field of
     * {@code /proc/self/task/<tid>/schedstat} (the collector's and the compiler's threads
     * included); {@code OperatingSystemMXBean.getProcessCpuTime} counts in scheduler ticks, too
     * coarse for a batch. Falls back to it where there is no {@code /proc}.
     */
    private static long processCpuNanos() {
        File[] tasks = new File("/proc/self/task").listFiles();
        if (tasks == null) {
            return OS.getProcessCpuTime();
        }
        long sum = 0;
        for (File t : tasks) {
            try {
                String line = Files.readString(new File(t, "schedstat").toPath());
                sum += Long.parseLong(line.substring(0, line.indexOf(' ')));
            } catch (IOException | RuntimeException e) {
                // the thread ended between the listing and the read: its time is gone with it
            }
        }
        return sum;
    }

    private static String loadAverage() {
        return String.format(Locale.ROOT, "%.1f", OS.getSystemLoadAverage());
    }

    private static double median(double[] v) {
        double[] a = v.clone();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static String spread(double[] v) {
        double[] a = v.clone();
        Arrays.sort(a);
        return String.format(Locale.ROOT, "%.2f (%.2f-%.2f)", median(v), a[0], a[a.length - 1]);
    }
}
