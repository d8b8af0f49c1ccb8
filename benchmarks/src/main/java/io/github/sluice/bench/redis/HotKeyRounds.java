package io.github.sluice.bench.redis;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.sluice.bench.micro.Configs;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.store.KeySpace;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One hot key at 1, 16 and 64 threads: Sluice's {@link RedisStore} (coalescing on, the default,
 * and off, the store as it was before coalescing) against Bucket4j's Lettuce proxy manager with
 * its default (compare-and-swap, no optimization) and with {@code Optimizations.batching()},
 * Bucket4j's documented configuration for a hot key, in <em>alternating</em> rounds in one JVM on
 * one {@code redis-server}, so that every contender sees the same machine load. One Lettuce
 * connection per library (Bucket4j's two configurations share theirs); a token bucket of a
 * million permits a second with a burst of a million, never exhausted; each decision a synchronous
 * call from its thread, as a servlet filter makes it; every bucket proxy built once and shared by
 * the threads (batching works across the threads of one proxy). A fifth contender, {@code
 * sluice-lease}, is the store in lease mode ({@code leases(0.01, 100 ms)}: shares of 10,000 permits), its
 * refusals counted as decisions (it decides faster than the bucket refills; the share admitted is printed):
 * not exact, it may admit one share per instance beyond the bucket (docs/redis.md, "Lease mode").
 *
 * <p>Each round runs each contender for a fixed time at the thread count (the order rotates from
 * round to round) and records decisions per second and every decision's latency; printed per
 * thread count: each contender's median throughput and p99 latency over the rounds (min-max), and
 * Sluice's ratio to each Bucket4j configuration, the median of the per-round ratios (min-max).
 * Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.redis.HotKeyRounds [rounds
 * [millis per run [threads...]]]} (defaults 7, 500, and 1 16 64). The last lines, {@code
 * redis-hotkey ...}, carry the figures for the summary.
 */
public final class HotKeyRounds {

    private static final String HOT = "198.51.100.7";
    private static final String[] NAMES = {"sluice", "sluice-no-coalescing", "bucket4j-default", "bucket4j-batching",
        "sluice-lease"};
    /** Lease mode's contender: shares of 1 % of the burst (10,000 permits), for at most 100 ms each. */
    private static final double LEASE_SHARE = 0.01;
    private static final Duration LEASE_MAX_AGE = Duration.ofMillis(100);
    private static final int LEASE = 4;

    private HotKeyRounds() {
    }

    /** One contender: a decision, which must be taken by Redis. */
    private interface Contender {
        boolean decide(MutableDecision out);
    }

    /**
     * One contender's run: throughput, the p99 latency, CPU time per decision (this JVM's threads
     * plus redis-server's main thread, microseconds) and script calls per decision ({@code FCALL},
     * {@code EVALSHA}, {@code EVAL}: Sluice's round trips; Bucket4j's compare-and-swap scripts).
     */
    private record Run(double perSecond, double p99Us, double cpuUs, double serverUs, double commands) {
    }

    /** Reads CPU time and command counts around a run. */
    private static Interleaved.Meters meters;
    private static RedisCommands<String, String> admin;

    private static long commands() {
        long calls = 0;
        for (String line : admin.info("commandstats").split("\r?\n")) {
            int at = line.indexOf("calls=");
            if ((line.startsWith("cmdstat_fcall:") || line.startsWith("cmdstat_evalsha:")
                    || line.startsWith("cmdstat_eval:")) && at > 0) {
                int end = line.indexOf(',', at);
                calls += Long.parseLong(line.substring(at + 6, end < 0 ? line.length() : end));
            }
        }
        return calls;
    }

    /**
     * @param args optionally rounds, millis per run, then thread counts
     * @throws Exception if Redis cannot be started
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        long millis = args.length > 1 ? Long.parseLong(args[1]) : 500;
        int[] threads = args.length > 2 ? Arrays.stream(args, 2, args.length).mapToInt(Integer::parseInt).toArray()
                : new int[] {1, 16, 64};
        Configs config = new Configs(1_000_000, Duration.ofSeconds(1), 1_000_000);
        try (RedisServer server = RedisServer.start();
                RedisStore on = RedisStore.builder().uri(server.uri()).name("coalescing")
                        .commandTimeout(Duration.ofSeconds(2)).connectTimeout(Duration.ofSeconds(30)).build();
                RedisStore off = RedisStore.builder().uri(server.uri()).name("no-coalescing").coalescing(false)
                        .commandTimeout(Duration.ofSeconds(2)).connectTimeout(Duration.ofSeconds(30)).build();
                RedisStore leased = RedisStore.builder().uri(server.uri()).name("lease").leases(LEASE_SHARE, LEASE_MAX_AGE)
                        .commandTimeout(Duration.ofSeconds(2)).connectTimeout(Duration.ofSeconds(30)).build()) {
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, byte[]> connection =
                    client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
                    StatefulRedisConnection<String, String> adminConnection = client.connect()) {
                admin = adminConnection.sync();
                long pid = Long.parseLong(admin.info("server").lines().filter(l -> l.startsWith("process_id:"))
                        .findFirst().orElseThrow().substring("process_id:".length()).trim());
                meters = new Interleaved.Meters(pid, admin);
                KeySpace spaceOn = on.keySpace("hot-on", config.tokenBucket());
                KeySpace spaceOff = off.keySpace("hot-off", config.tokenBucket());
                KeySpace spaceLease = leased.keySpace("hot-lease", config.tokenBucket());
                BucketConfiguration c = config.bucket4jConfiguration();
                ProxyManager<String> proxies = Bucket4jLettuce.casBasedBuilder(connection)
                        .expirationAfterWrite(ExpirationAfterWriteStrategy
                                .basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                        .build();
                BucketProxy plain = proxies.builder().build(HOT + ":default", () -> c);
                BucketProxy batching = proxies.builder().withOptimization(Optimizations.batching())
                        .build(HOT + ":batching", () -> c);
                Contender[] contenders = {
                    out -> checked(spaceOn.acquire(HOT, 1, out), out),
                    out -> checked(spaceOff.acquire(HOT, 1, out), out),
                    out -> plain.tryConsume(1),
                    out -> batching.tryConsume(1),
                    out -> leaseDecision(spaceLease.acquire(HOT, 1, out), out)
                };
                System.out.printf(Locale.ROOT, "one hot key, %d rounds of %d ms per contender and thread count,"
                        + " load %s%n", rounds, millis, loadAverage());
                List<String> lines = new ArrayList<>();
                for (int t : threads) {
                    // Warm-up: two runs of each, not recorded.
                    for (int w = 0; w < 2; w++) {
                        for (Contender k : contenders) {
                            run(k, t, Math.min(millis, 300));
                        }
                    }
                    Run[][] runs = new Run[contenders.length][rounds];
                    LEASE_DECISIONS.reset();
                    LEASE_ADMITTED.reset();
                    for (int r = 0; r < rounds; r++) {
                        for (int i = 0; i < contenders.length; i++) {
                            int k = (i + r) % contenders.length;
                            runs[k][r] = run(contenders[k], t, millis);
                        }
                    }
                    lines.add(report(t, runs));
                    System.out.printf(Locale.ROOT, "sluice-lease admitted %.1f %% of its decisions (the bucket refills"
                            + " 1,000,000 a second)%n", 100.0 * LEASE_ADMITTED.sum() / Math.max(1, LEASE_DECISIONS.sum()));
                }
                System.out.printf(Locale.ROOT, "load after: %s%n", loadAverage());
                lines.forEach(System.out::println);
            } finally {
                client.shutdown();
            }
        }
    }

    /** Lease mode's decisions and admissions, per thread count: it decides faster than the bucket refills. */
    private static final java.util.concurrent.atomic.LongAdder LEASE_DECISIONS = new java.util.concurrent.atomic.LongAdder();
    private static final java.util.concurrent.atomic.LongAdder LEASE_ADMITTED = new java.util.concurrent.atomic.LongAdder();

    /**
     * Lease mode decides locally at millions a second, faster than the bucket's million a second:
     * once its burst is spent, most of its decisions are refusals, decided locally too (Redis's
     * retry-after, until it passes). Both count as decisions; the share admitted is printed.
     */
    private static boolean leaseDecision(boolean admitted, MutableDecision out) {
        if (out.degraded()) {
            throw new IllegalStateException("a Sluice decision was degraded: " + out);
        }
        LEASE_DECISIONS.increment();
        if (admitted) {
            LEASE_ADMITTED.increment();
        }
        return admitted;
    }

    private static boolean checked(boolean admitted, MutableDecision out) {
        if (out.degraded() || !admitted) {
            throw new IllegalStateException("a Sluice decision was degraded or refused: " + out);
        }
        return true;
    }

    /** Runs one contender on {@code threads} threads for {@code millis}. */
    private static Run run(Contender k, int threads, long millis) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        long[][] latencies = new long[threads][];
        int[] counts = new int[threads];
        long[] workerCpu = new long[threads];
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Thread[] workers = new Thread[threads];
        RuntimeException[] failure = new RuntimeException[1];
        for (int i = 0; i < threads; i++) {
            int me = i;
            workers[i] = new Thread(() -> {
                MutableDecision out = new MutableDecision();
                long[] lat = new long[1 << 16];
                int n = 0;
                ready.countDown();
                try {
                    go.await();
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        k.decide(out);
                        long d = System.nanoTime() - t0;
                        if (n == lat.length) {
                            lat = Arrays.copyOf(lat, 2 * n);
                        }
                        lat[n++] = d;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    failure[0] = e;
                }
                latencies[me] = lat;
                counts[me] = n;
                workerCpu[me] = mx.getCurrentThreadCpuTime();
            });
            workers[i].start();
        }
        ready.await();
        long commandsBefore = commands();
        long clientBefore = Interleaved.Meters.clientCpuNanos();
        long serverBefore = meters.serverCpuNanos();
        long start = System.nanoTime();
        go.countDown();
        Thread.sleep(millis);
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        long elapsed = System.nanoTime() - start;
        long serverCpu = meters.serverCpuNanos() - serverBefore;
        long clientCpu = Interleaved.Meters.clientCpuNanos() - clientBefore;
        for (long c : workerCpu) {
            clientCpu += c;
        }
        long commands = commands() - commandsBefore;
        if (failure[0] != null) {
            throw failure[0];
        }
        int total = 0;
        for (int n : counts) {
            total += n;
        }
        long[] all = new long[total];
        int at = 0;
        for (int i = 0; i < threads; i++) {
            System.arraycopy(latencies[i], 0, all, at, counts[i]);
            at += counts[i];
        }
        Arrays.sort(all);
        double p99 = all.length == 0 ? Double.NaN : all[Math.min(all.length - 1, (int) (all.length * 0.99))] / 1e3;
        return new Run(total * 1e9 / elapsed, p99, (clientCpu + serverCpu) / 1e3 / total,
                serverCpu / 1e3 / total, (double) commands / total);
    }

    private static String report(int threads, Run[][] runs) {
        StringBuilder sb = new StringBuilder();
        System.out.printf(Locale.ROOT, "%n%d thread(s)%n| contender | decisions/s, median (min-max) | p99 us, median"
                + " (min-max) | CPU us per decision, client + server, median (min-max) | of which redis-server"
                + " | script calls per decision |%n|---|---:|---:|---:|---:|---:|%n", threads);
        for (int k = 0; k < runs.length; k++) {
            double[] tp = Arrays.stream(runs[k]).mapToDouble(Run::perSecond).toArray();
            double[] p99 = Arrays.stream(runs[k]).mapToDouble(Run::p99Us).toArray();
            double[] cpu = Arrays.stream(runs[k]).mapToDouble(Run::cpuUs).toArray();
            double[] srv = Arrays.stream(runs[k]).mapToDouble(Run::serverUs).toArray();
            double[] cmd = Arrays.stream(runs[k]).mapToDouble(Run::commands).toArray();
            System.out.printf(Locale.ROOT, "| %s | %,.0f (%,.0f-%,.0f) | %.0f (%.0f-%.0f) | %.1f (%.1f-%.1f) | %.1f | %.3f |%n",
                    NAMES[k], median(tp), min(tp), max(tp), median(p99), min(p99), max(p99), median(cpu), min(cpu),
                    max(cpu), median(srv), median(cmd));
            sb.append(' ').append(NAMES[k]).append("Cpu=").append(String.format(Locale.ROOT, "%.1f", median(cpu)));
            sb.append(' ').append(NAMES[k]).append('=').append(String.format(Locale.ROOT, "%.0f", median(tp)))
                    .append(' ').append(NAMES[k]).append("P99=")
                    .append(String.format(Locale.ROOT, "%.0f", median(p99)));
        }
        for (int b = 1; b < LEASE; b++) {
            double[] ratio = new double[runs[0].length];
            for (int r = 0; r < ratio.length; r++) {
                ratio[r] = runs[0][r].perSecond() / runs[b][r].perSecond();
            }
            double[] cpuRatio = new double[runs[0].length];
            for (int r = 0; r < ratio.length; r++) {
                cpuRatio[r] = runs[b][r].cpuUs() / runs[0][r].cpuUs();
            }
            System.out.printf(Locale.ROOT, "sluice / %s: throughput %.2fx (%.2f-%.2f), CPU per decision %.2fx less"
                    + " (%.2f-%.2f), per-round ratios%n", NAMES[b], median(ratio), min(ratio), max(ratio),
                    median(cpuRatio), min(cpuRatio), max(cpuRatio));
            sb.append(" vs-").append(NAMES[b]).append('=')
                    .append(String.format(Locale.ROOT, "%.2f:%.2f:%.2f", median(ratio), min(ratio), max(ratio)));
        }
        for (int b = 2; b < LEASE; b++) {
            double[] ratio = new double[runs[LEASE].length];
            double[] cpuRatio = new double[runs[LEASE].length];
            for (int r = 0; r < ratio.length; r++) {
                ratio[r] = runs[LEASE][r].perSecond() / runs[b][r].perSecond();
                cpuRatio[r] = runs[b][r].cpuUs() / runs[LEASE][r].cpuUs();
            }
            System.out.printf(Locale.ROOT, "sluice-lease / %s: throughput %.2fx (%.2f-%.2f), CPU per decision %.2fx"
                    + " less (%.2f-%.2f), per-round ratios%n", NAMES[b], median(ratio), min(ratio), max(ratio),
                    median(cpuRatio), min(cpuRatio), max(cpuRatio));
            sb.append(" lease-vs-").append(NAMES[b]).append('=')
                    .append(String.format(Locale.ROOT, "%.2f:%.2f:%.2f", median(ratio), min(ratio), max(ratio)));
        }
        return "redis-hotkey threads=" + threads + sb;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return Arrays.stream(v).max().orElse(Double.NaN);
    }

    private static String loadAverage() {
        try {
            String s = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"));
            return String.join(" ", Arrays.copyOf(s.trim().split(" "), 3));
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
