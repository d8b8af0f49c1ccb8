package io.github.sluice.bench.redis;

import io.github.sluice.bench.micro.Configs;
import io.github.sluice.bench.micro.KeyPool;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.store.KeySpace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Does a Redis decision cost more when its key was not seen recently? Sluice's {@link RedisStore}
 * on one {@code redis-server}, one thread, keys taken round-robin from pools of 1,000, 10,000 and
 * 1,000,000 IPv4 addresses (and one hot key, for reference), in <em>interleaved</em> rounds in one
 * JVM: each round runs the same number of decisions on every pool, in an order that rotates from
 * round to round, so all pools see the same load. Per pool and round: wall time per decision
 * (decisions per second), the client JVM's CPU time per decision (every thread, from
 * {@code /proc/self/task/<tid>/schedstat}: steady on a loaded machine, where the wall clock is
 * not), and the bytes every thread allocated per decision (the JVM's exact per-thread counters).
 *
 * <p>With 1,000,000 keys round-robin no key comes back within the run: every decision is on a key
 * never seen before, the worst case for anything that remembers keys. The targets: at most
 * {@value #TARGET_BYTES} B per decision at 10,000 and 1,000,000 keys, and decisions per second
 * within 10 % of the 1,000-key case (the median of the per-round ratios, its spread printed).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.redis.KeyCount [rounds
 * [decisions per round]]} (defaults 15 and 2,000, after 3 rounds of warm-up). Prints the rounds,
 * then Markdown table rows with the verdicts; exits with 1 if one is missed.
 */
public final class KeyCount {

    /** The target: bytes allocated per decision at 10,000 and 1,000,000 keys, at most. */
    static final long TARGET_BYTES = 500;
    /** The target: decisions per second at most this far below the 1,000-key case. */
    static final double TARGET_SLOWER = 0.10;

    private static final int[] POOLS = {1, 1_000, 10_000, 1_000_000};
    private static final int REFERENCE = 1; // index of the 1,000-key pool
    private static final int WARM_UP_ROUNDS = 3;

    private KeyCount() {
    }

    /** One pool's share of one round. */
    private record Sample(double wallUs, double cpuUs, double bytes) {
    }

    /**
     * @param args optionally the number of rounds (default 15) and decisions per round (2,000)
     * @throws Exception if Redis cannot be started
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        String[] all = KeyPool.addresses(POOLS[POOLS.length - 1]);
        int[] cursor = new int[POOLS.length];
        Sample[][] samples = new Sample[POOLS.length][rounds];
        try (RedisServer server = RedisServer.start();
                RedisStore store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(2))
                        .connectTimeout(Duration.ofSeconds(30)).build()) {
            KeySpace space = store.keySpace("bench",
                    new Configs(1_000_000, Duration.ofSeconds(1), 1_000_000).tokenBucket());
            MutableDecision out = new MutableDecision();
            for (int r = -WARM_UP_ROUNDS; r < rounds; r++) {
                for (int k = 0; k < POOLS.length; k++) {
                    int p = Math.floorMod(k + r, POOLS.length);
                    Sample s = run(space, all, POOLS[p], cursor, p, perRound, out);
                    if (r >= 0) {
                        samples[p][r] = s;
                    }
                }
                if (r >= 0) {
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "round %2d:", r));
                    for (int p = 0; p < POOLS.length; p++) {
                        Sample s = samples[p][r];
                        line.append(String.format(Locale.ROOT, " %s %.1f us (CPU %.1f us, %.0f B);", name(POOLS[p]),
                                s.wallUs, s.cpuUs, s.bytes));
                    }
                    System.out.println(line);
                }
            }
        }
        System.exit(report(samples) ? 0 : 1);
    }

    private static Sample run(KeySpace space, String[] all, int pool, int[] cursor, int p, int n,
            MutableDecision out) {
        int next = cursor[p];
        // CPU time read outside the allocation counts: reading /proc allocates
        long cpu0 = cpuNanos();
        long bytes0 = allocated();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            space.acquire(all[next], 1, out);
            if (out.degraded()) {
                throw new IllegalStateException("a decision was degraded (Redis too slow or gone)");
            }
            next = next + 1 == pool ? 0 : next + 1;
        }
        long t1 = System.nanoTime();
        long bytes1 = allocated();
        long cpu1 = cpuNanos();
        cursor[p] = next;
        return new Sample((t1 - t0) / 1e3 / n, (cpu1 - cpu0) / 1e3 / n, (double) (bytes1 - bytes0) / n);
    }

    private static boolean report(Sample[][] s) {
        boolean met = true;
        System.out.printf(Locale.ROOT, "%n| keys, round-robin | decisions/s | client CPU per decision | B per decision"
                + " | decisions/s against 1,000 keys (per-round ratios: median, min-max) | verdict |%n");
        System.out.println("|---|---:|---:|---:|---|---|");
        for (int p = 0; p < POOLS.length; p++) {
            int n = s[p].length;
            double[] ratio = new double[n];
            for (int r = 0; r < n; r++) {
                ratio[r] = s[REFERENCE][r].wallUs / s[p][r].wallUs;
            }
            double bytes = median(s[p], Sample::bytes);
            double wall = median(s[p], Sample::wallUs);
            String verdict = "-";
            if (POOLS[p] > POOLS[REFERENCE]) {
                boolean ok = bytes <= TARGET_BYTES && median(ratio) >= 1 - TARGET_SLOWER;
                met &= ok;
                verdict = String.format(Locale.ROOT, "<= %d B and >= %.2fx: %s", TARGET_BYTES, 1 - TARGET_SLOWER,
                        ok ? "met" : "missed");
            }
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %.1f us (%.1f-%.1f) | %.0f B (%.0f-%.0f) | %.3f (%.3f-%.3f) | %s |%n",
                    name(POOLS[p]), 1e6 / wall, median(s[p], Sample::cpuUs), min(s[p], Sample::cpuUs),
                    max(s[p], Sample::cpuUs), bytes, min(s[p], Sample::bytes), max(s[p], Sample::bytes),
                    median(ratio), min(ratio), max(ratio), verdict);
        }
        return met;
    }

    private static String name(int pool) {
        return pool == 1 ? "one hot key" : String.format(Locale.ROOT, "%,d keys", pool);
    }

    /** @return the bytes every live thread has allocated so far */
    private static long allocated() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long b : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    /** @return the CPU time of every live thread of this JVM, nanoseconds */
    private static long cpuNanos() {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String st = Files.readString(task.resolve("schedstat"));
                    sum += Long.parseLong(st.substring(0, st.indexOf(' ')));
                } catch (IOException | UncheckedIOException e) {
                    // the thread ended between the listing and the read: its time is gone
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list this JVM's threads in /proc/self/task", e);
        }
        return sum;
    }

    private static double median(Sample[] v, java.util.function.ToDoubleFunction<Sample> f) {
        return median(Arrays.stream(v).mapToDouble(f).toArray());
    }

    private static double min(Sample[] v, java.util.function.ToDoubleFunction<Sample> f) {
        return Arrays.stream(v).mapToDouble(f).min().orElse(Double.NaN);
    }

    private static double max(Sample[] v, java.util.function.ToDoubleFunction<Sample> f) {
        return Arrays.stream(v).mapToDouble(f).max().orElse(Double.NaN);
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return Arrays.stream(v).max().orElse(Double.NaN);
    }
}
