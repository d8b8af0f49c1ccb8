package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.request.RequestView;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Adaptive limits are local to each instance, also with the Redis store: an enforcer on a Redis
 * store starts with an adaptive policy (the store alone refuses one), keeps it in a local
 * in-memory registry where it learns from this instance's requests, and keeps every other policy
 * in Redis. Two enforcers on the same Redis share the rate limit and not the adaptive limit.
 */
@ExtendWith(RedisServerExtension.class)
class AdaptiveStaysLocalTest {

    private static final String POLICIES = """
            api = adaptive aimd min=1 max=100 initial=10 latency=5s samples=5 key=global
            per-client = fixed-window 1000/1h key=header:X-Client
            """;

    /** A GET of {@code /} by client {@code c}. */
    private static RequestView request(String client) {
        return FakeRequest.get("/").header("X-Client", client);
    }

    private static Enforcer enforcer(RedisStore store) {
        return Enforcer.builder().policies(POLICIES).store(store).listener(EnforcementListener.NONE).build();
    }

    private static long limit(Verdict v) {
        return v.decision(0).limit();
    }

    @Test
    void adaptivePolicy_onARedisStore_learnsLocally_andTheOthersAreInRedis(RedisServer redis) {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(5)).build();
                Enforcer first = enforcer(store);
                Enforcer second = enforcer(store)) {
            // Five requests that the application answers with 503 cut the first instance's limit
            List<Verdict> batch = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Verdict v = first.enforce(request("alice"));
                assertTrue(v.admitted(), v::toString);
                assertEquals(10, limit(v));
                batch.add(v);
            }
            batch.forEach(v -> v.release(503));
            Verdict after = first.enforce(request("alice"));
            assertEquals(9, limit(after), "the first instance learned from its own drops");
            after.release(200);

            // The second instance has its own adaptive limit, and shares the rate limit through Redis
            Verdict other = second.enforce(request("alice"));
            assertEquals(10, limit(other), "adaptive limits are per instance");
            assertEquals(1000 - 7, other.decision(1).remaining(), "the fixed window counts both instances' requests");
            other.release(200);

            @SuppressWarnings("unchecked")
            List<String> keys = (List<String>) redis.call("KEYS", "*");
            assertTrue(keys.stream().anyMatch(k -> k.contains(":per-client:")), keys::toString);
            assertFalse(keys.stream().anyMatch(k -> k.contains(":api:")), "nothing adaptive in Redis: " + keys);
        }
    }
}
