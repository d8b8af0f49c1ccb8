package io.github.sluice.bench.redis;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
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
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * One hot key at one thread: Sluice's {@link RedisStore} and Bucket4j's Lettuce proxy manager in
 * <em>alternating</em> rounds in one JVM on one {@code redis-server}, measured two ways.
 *
 * <h2>Wall clock</h2>
 * Each round times a run of decisions of each store (which goes first alternates from round to
 * round), so both see the same load; the median ratio and its spread are printed. On a loaded
 * machine the spread is wide: a round trip is three threads (the caller, Lettuce's I/O thread,
 * redis-server) each waiting for a core.
 *
 * <h2>CPU time and round trips (the resolving method)</h2>
 * In the same rounds: the client JVM's CPU time (the sum over its threads of
 * {@code /proc/self/task/<tid>/schedstat}, nanoseconds; the process total of
 * {@code OperatingSystemMXBean} counts in 10 ms ticks), the redis-server main thread's CPU time
 * ({@code /proc/<pid>/task/<pid>/schedstat}, the thread that runs every command and does the
 * network I/O), and the round trips per decision
 * (Sluice: {@code EVALSHA} and {@code EVAL} calls in {@code INFO commandstats}, which a script
 * cannot issue itself; Bucket4j: every command its connection completes, counted by the client
 * in a separate run of the same decisions on a connection of its own, so that counting costs the
 * measured rounds nothing).
 * With one thread every step of a decision is sequential, so on an idle machine a decision takes
 * its CPU time (client and server) plus, per round trip, the wait that is not CPU (wake-ups,
 * loopback), which a run of {@code PING}s in the same rounds measures: wall time per ping minus
 * the ping's own CPU time. CPU time does not grow with the run queue, so these components stay
 * steady under load; the composed idle throughput ratio is
 * {@code (cpuB + tripsB * w) / (cpuS + tripsS * w)}, printed with {@code w} = the smallest
 * measured wait (the closest to an idle machine) and {@code w} = 0 (CPU time alone).
 *
 * <p>Also printed: redis-server's own time inside each store's script ({@code usec_per_call} of
 * its script command: {@code EVALSHA}, {@code EVAL}, or {@code FCALL} when the server has
 * Sluice's function library). Usage: {@code java -cp benchmarks.jar
 * io.github.sluice.bench.redis.Interleaved [rounds [decisions per round]]} (defaults 20 and
 * 2,000, after 5 rounds of warm-up). The last line, {@code redis-1thread ...}, carries the
 * figures {@code benchmarks/run.sh} puts in its summary.
 */
public final class Interleaved {

    private static final String HOT = "198.51.100.7";
    private static final int WARM_UP_ROUNDS = 5;

    private Interleaved() {
    }

    /** One store's (or the pings') share of one round. */
    private record Sample(double wallUs, double clientCpuUs, double serverCpuUs, double trips, double scriptUs) {
        double cpuUs() {
            return clientCpuUs + serverCpuUs;
        }
    }

    /** What one measured run needs to read before and after. */
    static final class Meters {
        private final Path schedstat;
        private final RedisCommands<String, String> admin;

        Meters(long serverPid, RedisCommands<String, String> admin) {
            this.schedstat = Path.of("/proc/" + serverPid + "/task/" + serverPid + "/schedstat");
            this.admin = admin;
        }

        long serverCpuNanos() {
            return onCpu(schedstat);
        }

        /** @return the CPU time of every live thread of this JVM, nanoseconds */
        static long clientCpuNanos() {
            long sum = 0;
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
                for (Path task : tasks) {
                    try {
                        sum += onCpu(task.resolve("schedstat"));
                    } catch (UncheckedIOException e) {
                        // the thread ended between the listing and the read: its time is gone
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list this JVM's threads in /proc/self/task", e);
            }
            return sum;
        }

        private static long onCpu(Path schedstat) {
            try {
                String s = Files.readString(schedstat);
                return Long.parseLong(s.substring(0, s.indexOf(' ')));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the CPU time in " + schedstat, e);
            }
        }

        /** @return {calls, usec} summed over the named commands of {@code INFO commandstats} */
        long[] commandStats(String... commands) {
            long calls = 0;
            long usec = 0;
            for (String line : admin.info("commandstats").split("\r?\n")) {
                for (String c : commands) {
                    if (line.startsWith("cmdstat_" + c + ":")) {
                        calls += field(line, "calls=");
                        usec += field(line, "usec=");
                    }
                }
            }
            return new long[] {calls, usec};
        }

        private static long field(String line, String name) {
            int at = line.indexOf(name) + name.length();
            int end = line.indexOf(',', at);
            return Long.parseLong(line.substring(at, end < 0 ? line.length() : end));
        }
    }

    /**
     * @param args optionally the number of rounds (default 20) and decisions per round (2,000)
     * @throws Exception if Redis cannot be started
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        Configs config = new Configs(1_000_000, Duration.ofSeconds(1), 1_000_000);
        LongAdder bucket4jCommands = new LongAdder();
        ClientResources counted = DefaultClientResources.builder().commandLatencyRecorder(new CommandLatencyRecorder() {
            @Override
            public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword type,
                    long firstResponseLatency, long completionLatency) {
                bucket4jCommands.increment();
            }
        }).build();
        try (RedisServer server = RedisServer.start();
                RedisStore store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(2))
                        .connectTimeout(Duration.ofSeconds(30)).build()) {
            RedisClient client = RedisClient.create(server.uri());
            RedisClient countingClient = RedisClient.create(counted, server.uri());
            RedisClient adminClient = RedisClient.create(server.uri());
            RedisCodec<String, byte[]> codec = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
            try (StatefulRedisConnection<String, byte[]> connection = client.connect(codec);
                    StatefulRedisConnection<String, byte[]> countingConnection = countingClient.connect(codec);
                    StatefulRedisConnection<String, String> adminConnection = adminClient.connect()) {
                RedisCommands<String, String> admin = adminConnection.sync();
                long pid = Long.parseLong(admin.info("server").lines().filter(l -> l.startsWith("process_id:"))
                        .findFirst().orElseThrow().substring("process_id:".length()).trim());
                Meters meters = new Meters(pid, admin);
                KeySpace space = store.keySpace("bench", config.tokenBucket());
                BucketConfiguration c = config.bucket4jConfiguration();
                ProxyManager<String> proxies = bucket4j(connection);
                ProxyManager<String> countedProxies = bucket4j(countingConnection);
                for (int i = 0; i < perRound; i++) {
                    countedProxies.getProxy(HOT, () -> c).tryConsume(1);
                }
                long before = bucket4jCommands.sum();
                for (int i = 0; i < perRound; i++) {
                    countedProxies.getProxy(HOT, () -> c).tryConsume(1);
                }
                double bucket4jTrips = (double) (bucket4jCommands.sum() - before) / perRound;
                RedisCommands<String, byte[]> pings = connection.sync();
                MutableDecision out = new MutableDecision();
                Runnable sluice = () -> {
                    space.acquire(HOT, 1, out);
                    if (out.degraded()) {
                        throw new IllegalStateException("a Sluice decision was degraded");
                    }
                };
                Runnable bucket4j = () -> proxies.getProxy(HOT, () -> c).tryConsume(1);
                Runnable ping = pings::ping;
                Sample[][] samples = new Sample[3][rounds];
                for (int r = -WARM_UP_ROUNDS; r < rounds; r++) {
                    Sample s;
                    Sample b;
                    if ((r & 1) == 0) {
                        s = run(sluice, perRound, meters, -1);
                        b = run(bucket4j, perRound, meters, bucket4jTrips);
                    } else {
                        b = run(bucket4j, perRound, meters, bucket4jTrips);
                        s = run(sluice, perRound, meters, -1);
                    }
                    Sample p = run(ping, perRound, meters, 1);
                    if (r >= 0) {
                        samples[0][r] = s;
                        samples[1][r] = b;
                        samples[2][r] = p;
                        System.out.printf(Locale.ROOT, "round %2d: Sluice %6.1f us (CPU %5.1f client + %5.1f server,"
                                + " %.2f trips, script %4.1f us), Bucket4j %6.1f us (CPU %5.1f + %5.1f, %.2f trips,"
                                + " script %4.1f us), ping %5.1f us (CPU %4.1f + %4.1f); wall ratio %.2f, CPU ratio %.2f%n",
                                r, s.wallUs, s.clientCpuUs, s.serverCpuUs, s.trips, s.scriptUs, b.wallUs, b.clientCpuUs,
                                b.serverCpuUs, b.trips, b.scriptUs, p.wallUs, p.clientCpuUs, p.serverCpuUs,
                                b.wallUs / s.wallUs, b.cpuUs() / s.cpuUs());
                    }
                }
                report(samples[0], samples[1], samples[2]);
            } finally {
                client.shutdown();
                countingClient.shutdown();
                adminClient.shutdown();
                counted.shutdown();
            }
        }
    }

    private static ProxyManager<String> bucket4j(StatefulRedisConnection<String, byte[]> connection) {
        return Bucket4jLettuce.casBasedBuilder(connection)
                .expirationAfterWrite(ExpirationAfterWriteStrategy
                        .basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build();
    }

    /**
     * @param trips round trips per decision, or -1 to count the script calls (Sluice's)
     */
    private static Sample run(Runnable decision, int n, Meters m, double trips) {
        long[] stats0 = m.commandStats("evalsha", "eval", "fcall");
        long server0 = m.serverCpuNanos();
        long client0 = Meters.clientCpuNanos();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            decision.run();
        }
        long t1 = System.nanoTime();
        long client1 = Meters.clientCpuNanos();
        long server1 = m.serverCpuNanos();
        long[] stats1 = m.commandStats("evalsha", "eval", "fcall");
        long scripts = stats1[0] - stats0[0];
        double scriptUs = scripts == 0 ? 0 : (double) (stats1[1] - stats0[1]) / scripts;
        return new Sample((t1 - t0) / 1e3 / n, (client1 - client0) / 1e3 / n, (server1 - server0) / 1e3 / n,
                trips < 0 ? (double) scripts / n : trips, scriptUs);
    }

    private static void report(Sample[] s, Sample[] b, Sample[] p) {
        int n = s.length;
        double[] wallRatio = new double[n];
        double[] cpuRatio = new double[n];
        double[] wait = new double[n];
        for (int i = 0; i < n; i++) {
            wallRatio[i] = b[i].wallUs / s[i].wallUs;
            cpuRatio[i] = b[i].cpuUs() / s[i].cpuUs();
            wait[i] = Math.max(0, (p[i].wallUs - p[i].cpuUs()) / Math.max(1e-9, p[i].trips));
        }
        double cpuS = median(s, Sample::cpuUs);
        double cpuB = median(b, Sample::cpuUs);
        double tripsS = median(s, Sample::trips);
        double tripsB = median(b, Sample::trips);
        double w = Arrays.stream(wait).min().orElse(0);
        double composed = (cpuB + tripsB * w) / (cpuS + tripsS * w);
        System.out.printf(Locale.ROOT, "%nmedians of %d rounds (min-max):%n", n);
        System.out.printf(Locale.ROOT, "  Sluice   wall %6.1f us, CPU %5.1f us (client %5.1f, server %5.1f), %.2f round trips,"
                + " script %4.1f us%n", median(s, Sample::wallUs), cpuS, median(s, Sample::clientCpuUs),
                median(s, Sample::serverCpuUs), tripsS, median(s, Sample::scriptUs));
        System.out.printf(Locale.ROOT, "  Bucket4j wall %6.1f us, CPU %5.1f us (client %5.1f, server %5.1f), %.2f round trips,"
                + " script %4.1f us%n", median(b, Sample::wallUs), cpuB, median(b, Sample::clientCpuUs),
                median(b, Sample::serverCpuUs), tripsB, median(b, Sample::scriptUs));
        System.out.printf(Locale.ROOT, "  ping     wall %6.1f us, CPU %5.1f us; wait per round trip besides CPU %.1f us"
                + " (min %.1f)%n", median(p, Sample::wallUs), median(p, Sample::cpuUs), median(wait), w);
        System.out.printf(Locale.ROOT, "  Sluice / Bucket4j throughput: wall %s, CPU per decision %s, composed %.2f%n",
                spread(wallRatio), spread(cpuRatio), composed);
        System.out.printf(Locale.ROOT, "redis-1thread rounds=%d wall=%.2f wallMin=%.2f wallMax=%.2f cpu=%.2f cpuMin=%.2f"
                + " cpuMax=%.2f composed=%.2f tripsSluice=%.2f tripsBucket4j=%.2f waitUs=%.1f%n", n, median(wallRatio),
                min(wallRatio), max(wallRatio), median(cpuRatio), min(cpuRatio), max(cpuRatio), composed, tripsS, tripsB, w);
    }

    private static String spread(double[] v) {
        return String.format(Locale.ROOT, "%.2f (%.2f-%.2f)", median(v), min(v), max(v));
    }

    private static double median(Sample[] samples, java.util.function.ToDoubleFunction<Sample> f) {
        return median(Arrays.stream(samples).mapToDouble(f).toArray());
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
