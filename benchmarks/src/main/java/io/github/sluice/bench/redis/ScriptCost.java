package io.github.sluice.bench.redis;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.Binding;
import io.github.sluice.redis.internal.Bindings;
import io.github.sluice.redis.internal.Script;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * redis-server's own time per decision of the store's batch script, by algorithm and batch size:
 * the store's function library ({@code FCALL}, as the store calls it on Redis 7), called directly
 * with the arguments the store's coalescer sends for a batch of {@code n} requests on one hot key
 * (op {@code 'c'}, the compact batch, where the binding allows it, else {@code 'b'}), and Redis's
 * {@code usec_per_call} for {@code FCALL} from {@code INFO commandstats} divided by {@code n}.
 * No client-side timing is involved: the figure is the single-threaded server's time running the
 * script, which bounds a hot key's decisions per second. Limits are large (nothing is refused,
 * but a sliding log, whose limit is at most 10,000: 10,000 per 100 ms); a concurrency limit's
 * leases are not released but expire after a second. Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.redis.ScriptCost [calls per
 * size [sizes...]]} (defaults 3000, and 1 8 32 64).
 */
public final class ScriptCost {

    private ScriptCost() {
    }

    static Map<String, Algorithm<?>> algorithms() {
        long big = 1_000_000_000L;
        Map<String, Algorithm<?>> m = new LinkedHashMap<>();
        m.put("token-bucket", TokenBucket.builder().rate(Rate.perSecond(big)).burst(big).build());
        m.put("gcra", Gcra.builder().rate(Rate.perSecond(big)).burst(big).build());
        m.put("fixed-window", FixedWindow.of(big, Duration.ofMinutes(1)));
        m.put("fixed-window-calendar", FixedWindow.of(big,
                CalendarPeriod.of(CalendarPeriod.Unit.DAY, ZoneId.of("Europe/Paris"))));
        m.put("sliding-window", SlidingWindow.builder().limit(big).window(Duration.ofMinutes(1)).slots(6).build());
        m.put("leaky-bucket", LeakyBucket.builder().capacity(big).rate(Rate.perSecond(big)).build());
        m.put("sliding-log", SlidingLog.builder().limit(10_000).window(Duration.ofMillis(100)).build());
        m.put("shaping", ShapingLeakyBucket.builder().rate(Rate.perSecond(1_000_000)).slack(1000)
                .maxDelay(Duration.ofSeconds(1)).build());
        m.put("smooth-bursty", SmoothBursty.builder().rate(Rate.perSecond(1_000_000)).maxBurst(Duration.ofSeconds(1)).build());
        m.put("concurrency", Concurrency.of(big));
        return m;
    }

    /** A policy's STRIDE arguments as the store writes them, read back from the protocol's bytes. */
    static List<String> encoded(Binding binding, long cost, String id, long first) {
        ByteBuf buf = Unpooled.buffer();
        binding.encode(buf, cost, id, first, MutableDecision.NO_RECEIPT, System.currentTimeMillis() * 1_000_000L);
        List<String> out = new ArrayList<>();
        while (buf.isReadable()) {
            byte type = buf.readByte();
            if (type != '$') {
                throw new IllegalStateException("not a bulk string: " + (char) type);
            }
            int len = 0;
            for (byte b = buf.readByte(); b != '\r'; b = buf.readByte()) {
                len = len * 10 + (b - '0');
            }
            buf.readByte();
            byte[] bytes = new byte[len];
            buf.readBytes(bytes);
            buf.skipBytes(2);
            out.add(new String(bytes, StandardCharsets.UTF_8));
        }
        buf.release();
        return out;
    }

    /**
     * The arguments of a batch of {@code n} requests of cost 1 on one key, as the coalescer sends
     * them.
     */
    static String[] batchArgs(Binding binding, int n, long[] ids) {
        List<String> args = new ArrayList<>();
        args.add(""); // Redis TIME
        if (!binding.needsRequestId() && binding.sameParamsEveryCall()) {
            args.add("c");
            args.addAll(encoded(binding, 1, null, 1));
            for (int i = 0; i < n; i++) {
                args.add("1");
            }
        } else {
            args.add("b");
            for (int i = 0; i < n; i++) {
                args.addAll(encoded(binding, 1, binding.needsRequestId() ? "r" + (ids[0]++) : null, 1));
            }
        }
        return args.toArray(String[]::new);
    }

    private static double usecPerCall(RedisCommands<String, String> c, String command) {
        for (String line : c.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                int at = line.indexOf("usec_per_call=");
                int end = line.indexOf(',', at);
                return Double.parseDouble(line.substring(at + 14, end));
            }
        }
        return Double.NaN;
    }

    /**
     * @param args optionally calls per size, then batch sizes
     * @throws Exception if Redis cannot be started
     */
    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        int[] sizes = args.length > 1 ? Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray()
                : new int[] {1, 8, 32, 64};
        Script script = Script.load();
        try (RedisServer server = RedisServer.start()) {
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> c = connection.sync();
                c.functionLoad(script.library(), true);
                String function = script.libraryName();
                System.out.printf(Locale.ROOT, "redis-server us per FCALL of the batch script / per decision,"
                        + " %d calls per size (%s)%n", calls, c.info("server").lines()
                        .filter(l -> l.startsWith("redis_version:")).findFirst().orElse("?").trim());
                StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-22s", "algorithm"));
                for (int n : sizes) {
                    head.append(String.format(Locale.ROOT, " %18s", "n=" + n + " call/decision"));
                }
                System.out.println(head);
                long[] ids = {0};
                for (Map.Entry<String, Algorithm<?>> e : algorithms().entrySet()) {
                    Binding binding = Bindings.of(e.getValue(), 1_000_000L);
                    StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-22s", e.getKey()));
                    for (int n : sizes) {
                        String[] keys = {"cost:" + e.getKey() + ":" + n};
                        // warm-up, then measured calls
                        for (int i = 0; i < calls / 4; i++) {
                            c.fcall(function, ScriptOutputType.MULTI, keys, batchArgs(binding, n, ids));
                        }
                        List<String[]> prepared = new ArrayList<>();
                        for (int i = 0; i < calls; i++) {
                            prepared.add(batchArgs(binding, n, ids));
                        }
                        c.configResetstat();
                        for (String[] a : prepared) {
                            List<Object> reply = c.fcall(function, ScriptOutputType.MULTI, keys, a);
                            if (reply.size() < n) {
                                throw new IllegalStateException("short reply " + reply);
                            }
                        }
                        double perCall = usecPerCall(c, "fcall");
                        row.append(String.format(Locale.ROOT, " %9.2f %8.3f", perCall, perCall / n));
                    }
                    System.out.println(row);
                }
            } finally {
                client.shutdown();
            }
        }
    }
}
