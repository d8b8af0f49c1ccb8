package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The batch script's model check, at the script's level: the same random sequence of requests
 * (random costs, a cost over the limit now and then, refunds by receipt and releases of earlier
 * admissions, clock steps forwards and back) is decided one call per request (op {@code 'a'}) on
 * one set of keys, and through batches of random sizes (op {@code 'c'}, the compact batch with its
 * compact reply, where the binding allows it, else {@code 'b'}; one policy, or two per request, all
 * or nothing) on another; every answer (admitted, remaining, reset, retry-after, delay, receipt)
 * and the stored state of every key (type, value, TTL) must be the same after every round. Run
 * through the function library ({@code FCALL}) and the script ({@code EVALSHA}), whose algorithm
 * files are the same text laid out differently (see prelude.lua). The arguments are the store's
 * own, written by {@link Binding#encode}.
 */
@ExtendWith(RedisServerExtension.class)
class BatchScriptModelTest {

    private static final int LIMIT = 5;
    private static final long START = 1_764_000_000_000_000L;

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;
    private static final Script SCRIPT = Script.load();

    @BeforeAll
    static void connect(RedisServer server) {
        client = RedisClient.create(server.uri());
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void close() {
        connection.close();
        client.shutdown();
    }

    static List<Algorithm<?>> algorithms() {
        Rate slow = Rate.perMinute(30);
        return List.of(
                TokenBucket.builder().rate(slow).burst(LIMIT).build(),
                TokenBucket.builder().rate(Rate.perSecond(3)).burst(LIMIT).build(), // ticks: 3 per us
                Gcra.builder().rate(slow).burst(LIMIT - 1).build(),
                Gcra.builder().rate(Rate.perSecond(7)).burst(LIMIT - 1).build(),
                FixedWindow.of(LIMIT, Duration.ofSeconds(10)),
                FixedWindow.of(LIMIT, CalendarPeriod.of(CalendarPeriod.Unit.DAY, ZoneId.of("Europe/Paris"))),
                FixedWindow.builder().limit(LIMIT).window(Duration.ofSeconds(10))
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                SlidingWindow.builder().limit(LIMIT).window(Duration.ofSeconds(10)).slots(5).build(),
                LeakyBucket.builder().capacity(LIMIT).rate(Rate.perSecond(3)).build(),
                SlidingLog.builder().limit(LIMIT).window(Duration.ofSeconds(10)).build(),
                SmoothBursty.builder().rate(Rate.perSecond(1)).maxBurst(Duration.ofSeconds(LIMIT)).build(),
                ShapingLeakyBucket.builder().rate(Rate.perSecond(1)).slack(LIMIT - 1)
                        .start(ShapingLeakyBucket.Start.EARNED).maxDelay(Duration.ofSeconds(3)).build(),
                ShapingLeakyBucket.builder().rate(Rate.perSecond(1)).slack(2)
                        .maxDelay(Duration.ofSeconds(2)).build(),
                Concurrency.of(LIMIT));
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        List<Algorithm<?>> all = algorithms();
        for (boolean functions : new boolean[] {true, false}) {
            for (int i = 0; i < all.size(); i++) {
                cases.add(Arguments.of(functions, all.get(i), null, i));
                cases.add(Arguments.of(functions, all.get(i), all.get((i * 5 + 3) % all.size()), i));
            }
        }
        return cases.stream();
    }

    /** One request: a cost per policy, the same request id on both sides, and its answers. */
    private static final class Request {
        final long[] costs;
        final String id;
        long[] alone;
        long[] batched;

        Request(long[] costs, String id) {
            this.costs = costs;
            this.id = id;
        }
    }

    @ParameterizedTest(name = "functions={0} {1} + {2}")
    @MethodSource("cases")
    void randomRequests_batchesOfRandomSizes_answerAndStoreExactlyAsOneCallEach(boolean functions,
            Algorithm<?> first, Algorithm<?> second, int seed) {
        Binding[] bindings = second == null ? new Binding[] {Bindings.of(first, 5_000_000L)}
                : new Binding[] {Bindings.of(first, 5_000_000L), Bindings.of(second, 5_000_000L)};
        String tag = (functions ? "f" : "e") + seed + (second == null ? "" : "+");
        String[] alone = new String[bindings.length];
        String[] batched = new String[bindings.length];
        for (int i = 0; i < bindings.length; i++) {
            alone[i] = "alone:" + tag + ":" + i;
            batched[i] = "batched:" + tag + ":" + i;
        }
        // the extension flushes the server between tests
        redis.functionLoad(SCRIPT.library(), true);
        redis.scriptLoad(SCRIPT.source());
        Random random = new Random(seed * 31L + (functions ? 1 : 0) + (second == null ? 0 : 7));
        long now = START + random.nextInt(1_000_000_000);
        List<Request> admitted = new ArrayList<>();
        int ids = 0;
        for (int round = 0; round < 25; round++) {
            String where = tag + " " + Arrays.toString(bindings) + ", round " + round;
            // a clock step: mostly forwards, by up to 4 s; now and then a minute, or back by up to 1 s
            int step = random.nextInt(10);
            now += step == 0 ? 60_000_000L : step == 1 ? -random.nextInt(1_000_000) : random.nextInt(4_000_000);
            long began = System.nanoTime();
            // refunds (or releases) of earlier admissions, each once, the same on both sides
            for (int r = random.nextInt(3); r > 0 && !admitted.isEmpty(); r--) {
                Request a = admitted.remove(random.nextInt(admitted.size()));
                call(functions, alone, release(bindings, a, a.alone, now));
                call(functions, batched, release(bindings, a, a.batched, now));
            }
            List<Request> requests = new ArrayList<>();
            for (int n = 1 + random.nextInt(12); n > 0; n--) {
                long[] costs = new long[bindings.length];
                for (int i = 0; i < costs.length; i++) {
                    int c = random.nextInt(20);
                    costs[i] = c == 0 ? LIMIT + 1 : c < 3 ? 0 : 1 + c % 3;
                }
                requests.add(new Request(costs, "r" + ids++));
            }
            for (Request r : requests) {
                List<String> args = new ArrayList<>(List.of(Long.toString(now), "a"));
                for (int i = 0; i < bindings.length; i++) {
                    args.addAll(encoded(bindings[i], r.costs[i], r.id, MutableDecision.NO_RECEIPT, now));
                }
                r.alone = longs(call(functions, alone, args));
                assertEquals(6 * bindings.length, r.alone.length, where);
            }
            for (int from = 0; from < requests.size(); ) {
                int to = Math.min(requests.size(), from + 1 + random.nextInt(6));
                batch(functions, batched, bindings, requests.subList(from, to), now, random.nextBoolean());
                from = to;
            }
            for (int j = 0; j < requests.size(); j++) {
                Request r = requests.get(j);
                assertEquals(Arrays.toString(r.alone), Arrays.toString(r.batched), where + ", request " + j);
                boolean all = true;
                for (int i = 0; i < bindings.length; i++) {
                    all &= r.alone[6 * i] == 1;
                }
                if (all) {
                    admitted.add(r);
                }
            }
            for (int i = 0; i < bindings.length; i++) {
                assertSameState(alone[i], batched[i], began, where + ", policy " + i);
            }
        }
    }

    /** Sends requests as one batch, compact where the store would, and records their answers. */
    private static void batch(boolean functions, String[] keys, Binding[] bindings, List<Request> requests,
            long now, boolean compactIfAllowed) {
        List<String> args = new ArrayList<>(List.of(Long.toString(now)));
        boolean compact = compactIfAllowed && bindings.length == 1 && bindings[0].sameParamsEveryCall();
        if (compact) {
            args.add("c");
            args.addAll(encoded(bindings[0], requests.get(0).costs[0], null, MutableDecision.NO_RECEIPT, now));
            for (Request r : requests) {
                args.add(Long.toString(r.costs[0]));
            }
        } else {
            args.add("b");
            for (Request r : requests) {
                for (int i = 0; i < bindings.length; i++) {
                    args.addAll(encoded(bindings[i], r.costs[i], r.id, MutableDecision.NO_RECEIPT, now));
                }
            }
        }
        long[] reply = longs(call(functions, keys, args));
        int at = 0;
        long[] before = new long[6];
        for (Request r : requests) {
            if (compact) {
                long mask = reply[at++];
                assertTrue(mask >= 0 && mask < 64, "mask " + mask);
                long[] v = new long[6];
                for (int f = 0; f < 6; f++) {
                    v[f] = (mask & (1L << f)) != 0 ? reply[at++] : before[f];
                }
                r.batched = v;
                before = v;
            } else {
                r.batched = Arrays.copyOfRange(reply, at, at + 6 * bindings.length);
                at += 6 * bindings.length;
            }
        }
        assertEquals(reply.length, at, "the whole reply is read");
    }

    /** The release (a refund by receipt, or the end of a concurrent request) of an admission. */
    private static List<String> release(Binding[] bindings, Request a, long[] answers, long now) {
        List<String> args = new ArrayList<>(List.of(Long.toString(now), "r"));
        for (int i = 0; i < bindings.length; i++) {
            long receipt = answers[6 * i + 5];
            args.addAll(encoded(bindings[i], a.costs[i], a.id,
                    bindings[i].concurrency() ? MutableDecision.NO_RECEIPT : receipt, now));
        }
        return args;
    }

    private static List<Object> call(boolean functions, String[] keys, List<String> args) {
        String[] a = args.toArray(String[]::new);
        return functions ? redis.fcall(SCRIPT.libraryName(), ScriptOutputType.MULTI, keys, a)
                : redis.evalsha(SCRIPT.sha(), ScriptOutputType.MULTI, keys, a);
    }

    private static long[] longs(List<Object> reply) {
        long[] v = new long[reply.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (Long) reply.get(i);
        }
        return v;
    }

    /** A policy's arguments as the store writes them (the calendar's bounds around now). */
    private static List<String> encoded(Binding binding, long cost, String id, long receipt, long nowMicros) {
        ByteBuf buf = Unpooled.buffer();
        binding.encode(buf, cost, binding.needsRequestId() ? id : null, 1, receipt, nowMicros * 1000);
        List<String> out = new ArrayList<>();
        while (buf.isReadable()) {
            assertEquals('$', buf.readByte());
            int len = 0;
            for (byte b = buf.readByte(); b != '\r'; b = buf.readByte()) {
                len = len * 10 + (b - '0');
            }
            buf.readByte();
            byte[] bytes = new byte[len];
            buf.readBytes(bytes);
            buf.skipBytes(2);
            out.add(new String(bytes, StandardCharsets.US_ASCII));
        }
        buf.release();
        return out;
    }

    /**
     * The two keys hold the same type and value, and expire alike: the same TTL was set, the
     * batched key's later in the round (the PTTLs differ by no more than the real time the round
     * took, since {@code began}). Then both are made persistent: the model runs on a fake clock,
     * and a key must not expire in real time on one side only between rounds.
     */
    private static void assertSameState(String alone, String batched, long began, String where) {
        // both read at one instant (a script's clock stands still while it runs)
        List<Object> ttl = redis.eval("return {redis.call('PTTL', KEYS[1]), redis.call('PTTL', KEYS[2])}",
                ScriptOutputType.MULTI, alone, batched);
        long ttlAlone = (Long) ttl.get(0);
        long ttlBatched = (Long) ttl.get(1);
        long tookMillis = (System.nanoTime() - began) / 1_000_000 + 2;
        if ((ttlAlone == -2) != (ttlBatched == -2) && Math.max(ttlAlone, ttlBatched) <= tookMillis) {
            // one side's very short TTL ran out as it was read: both go
            redis.del(alone, batched);
            return;
        }
        assertEquals(dump(alone), dump(batched), where);
        String ttls = where + ": TTL " + ttlAlone + " vs " + ttlBatched + " ms, the round took " + tookMillis;
        assertEquals(ttlAlone < 0, ttlBatched < 0, ttls);
        assertTrue(ttlBatched - ttlAlone >= -1 && ttlBatched - ttlAlone <= tookMillis, ttls);
        redis.persist(alone);
        redis.persist(batched);
    }

    private static String dump(String key) {
        String type = redis.type(key);
        return switch (type) {
            case "string" -> "string " + redis.get(key);
            case "hash" -> "hash " + new TreeMap<>(redis.hgetall(key));
            case "zset" -> {
                StringBuilder sb = new StringBuilder("zset");
                for (ScoredValue<String> v : redis.zrangeWithScores(key, 0, -1)) {
                    sb.append(' ').append(v.getValue()).append('=').append((long) v.getScore());
                }
                yield sb.toString();
            }
            default -> type;
        };
    }
}
