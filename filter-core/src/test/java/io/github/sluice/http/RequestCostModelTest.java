package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Randomized checks under a fake clock, costs drawn per request (valid, bad and above the
 * limit): the permits admitted per window never exceed the limit, every decision is the one a
 * reference model takes, and every refused cost takes nothing.
 */
class RequestCostModelTest {

    private static final long LIMIT = 100;
    private static final long WINDOW = 60_000_000_000L;
    private static final String[] BAD = {"", "-3", "0", "2.5", "1,2", "x", "99999999999999999999"};

    /** A cost header as a client might send it, and the cost a valid one asks for (0 if bad or above the limit). */
    private record Drawn(String header, long cost) {
    }

    private static Drawn draw(SplittableRandom random) {
        int roll = random.nextInt(10);
        if (roll == 0) {
            return new Drawn(BAD[random.nextInt(BAD.length)], 0);
        }
        if (roll == 1) {
            return new Drawn(Long.toString(LIMIT + 1 + random.nextLong(1_000_000)), 0);
        }
        long c = roll < 8 ? 1 + random.nextInt(20) : 1 + random.nextLong(LIMIT);
        return new Drawn(Long.toString(c), c);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 20260101})
    void fixedWindow_randomCosts_decisionsMatchTheModel_andNoWindowAdmitsMoreThanTheLimit(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        EnforcerFixture fixture = new EnforcerFixture();
        Enforcer e = fixture.enforcer("p = fixed-window 100/1m key=header:X-Client cost=header:X-Cost");
        Map<String, Long> windowOf = new HashMap<>();
        Map<String, Long> used = new HashMap<>();
        for (int i = 0; i < 3_000; i++) {
            fixture.clock.advanceNanos(random.nextLong(2_000_000_000L));
            String client = "c" + random.nextInt(3);
            Drawn d = draw(random);
            long window = Math.floorDiv(fixture.clock.nanos(), WINDOW);
            if (!Long.valueOf(window).equals(windowOf.put(client, window))) {
                used.put(client, 0L);
            }
            long before = used.get(client);
            boolean expected = d.cost > 0 && before + d.cost <= LIMIT;

            Verdict v = e.enforce(FakeRequest.get("/").header("X-Client", client).header("X-Cost", d.header));

            assertEquals(expected, v.admitted(), "request " + i + " cost '" + d.header + "' after " + before);
            if (d.cost == 0) {
                assertEquals(400, v.status(), d.header);
            }
            if (expected) {
                used.put(client, before + d.cost);
            }
            assertTrue(used.get(client) <= LIMIT);
            assertEquals(LIMIT - used.get(client), e.inspect(client, "p").remaining(), "request " + i);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {7, 8, 9})
    void slidingLog_randomCosts_anyWindowAdmitsAtMostTheLimit(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        EnforcerFixture fixture = new EnforcerFixture();
        Enforcer e = fixture.enforcer("p = sliding-log 100/1m key=global cost=header:X-Cost");
        ArrayDeque<long[]> admitted = new ArrayDeque<>(); // {time, cost} within the last window
        long inWindow = 0;
        long total = 0;
        for (int i = 0; i < 3_000; i++) {
            fixture.clock.advanceNanos(random.nextLong(1_000_000_000L));
            long now = fixture.clock.nanos();
            while (!admitted.isEmpty() && admitted.peekFirst()[0] <= now - WINDOW) {
                inWindow -= admitted.removeFirst()[1];
            }
            Drawn d = draw(random);

            Verdict v = e.enforce(FakeRequest.get("/").header("X-Cost", d.header));

            if (v.admitted()) {
                assertTrue(d.cost > 0, "a bad or oversized cost was admitted: '" + d.header + "'");
                admitted.addLast(new long[] {now, d.cost});
                inWindow += d.cost;
                total += d.cost;
                long n = inWindow;
                assertTrue(n <= LIMIT, () -> "the window ending at request admitted " + n);
            }
        }
        assertTrue(total > 10 * LIMIT, "the run admitted too little to prove anything: " + total);
    }
}
