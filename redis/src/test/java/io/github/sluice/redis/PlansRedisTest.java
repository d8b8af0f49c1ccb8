package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Plans and overrides on the Redis store: every plan of a policy reads the client's one shared
 * state under its own parameters, so two instances agree, a plan change keeps what was used, a
 * downgrade-upgrade cycle resets nothing, and plans whose differences would read a state as more
 * than it holds are refused at start-up.
 */
@ExtendWith(RedisServerExtension.class)
class PlansRedisTest {

    private final FakeClock clock = new FakeClock(60_000_000_000L * 29_000_000L);

    private static final String API = "api = fixed-window key=header:X-Api-Key plan=header:X-Plan"
            + " plans=free:2/1m,pro:5/1m,banned:blocked default-plan=free override=bean:contractOf override-timeout=2s";

    private RedisStore store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).commandTimeout(Duration.ofSeconds(5)).build();
    }

    private static Enforcer enforcer(RedisStore store, String policies) {
        return Enforcer.builder().store(store).listener(EnforcementListener.NONE).policies(policies)
                .overrideLookup("contractOf", k -> k.equals("partner-1") ? "9/1m" : null).build();
    }

    private static int admit(Enforcer e, String key, String plan, int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            if (e.enforce(FakeRequest.get("/").header("X-Api-Key", key).header("X-Plan", plan)).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void plans_eachPlansLimit_sharedByTwoInstances_andNamedInTheHeaders(RedisServer redis) {
        try (RedisStore sa = store(redis); RedisStore sb = store(redis); Enforcer a = enforcer(sa, API);
                Enforcer b = enforcer(sb, API)) {
            assertEquals(2, admit(a, "f", "free", 1) + admit(b, "f", "free", 5));
            assertEquals(5, admit(a, "p", "pro", 3) + admit(b, "p", "pro", 5));
            assertEquals(9, admit(a, "partner-1", "free", 5) + admit(b, "partner-1", "free", 10));
            assertEquals(0, admit(a, "x", "banned", 3));
            RecordingResponse r = new RecordingResponse();
            a.enforce(FakeRequest.get("/").header("X-Api-Key", "q").header("X-Plan", "pro")).writeHeaders(r);
            assertEquals("\"api.pro\";q=5;w=60", r.headers.get("RateLimit-Policy"));
        }
    }

    @Test
    void planChanges_randomUnderTraffic_neverAdmitMoreThanTheLargestPlanPerWindow(RedisServer redis) {
        try (RedisStore s = store(redis); Enforcer e = enforcer(s, API)) {
            Random random = new Random(3);
            int admitted = 0;
            for (int i = 0; i < 60; i++) {
                admitted += admit(e, "cycler", random.nextBoolean() ? "pro" : "free", 1);
            }
            assertTrue(admitted <= 5, "admitted " + admitted);
            assertEquals(0, admit(e, "cycler", "pro", 1), "a downgrade-upgrade cycle reset nothing");
        }
    }

    @Test
    void plans_thatWouldReadAStateAsMore_refusedAtStart(RedisServer redis) {
        try (RedisStore s = store(redis)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> enforcer(s,
                    "api = fixed-window key=ip plan=header:P plans=a:5/1m,b:5/1h default-plan=a"));
            assertTrue(e.getMessage().contains("policy 'api'") && e.getMessage().contains("share each client's state"),
                    e.getMessage());
            IllegalArgumentException c = assertThrows(IllegalArgumentException.class, () -> enforcer(s,
                    "api = concurrency key=ip plan=header:P plans=a:5,b:10 default-plan=a"));
            assertTrue(c.getMessage().contains("concurrency"), c.getMessage());
        }
    }
}
