package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.Inheritance;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Enforcer#reconfigure} on the Redis store: the scripts take the new parameters at once,
 * no cached denial of the old policy is served, and two instances sharing Redis agree on the
 * shared state once both are reconfigured.
 */
@ExtendWith(RedisServerExtension.class)
class ReconfigureRedisTest {

    private final FakeClock clock = new FakeClock(60_000_000_000L * 29_000_000L);

    private RedisStore store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).commandTimeout(Duration.ofSeconds(5))
                .build();
    }

    private static Enforcer enforcer(RedisStore store, String policies) {
        return Enforcer.builder().store(store).listener(EnforcementListener.NONE).policies(policies).build();
    }

    private static int admit(Enforcer e, int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            if (e.enforce(FakeRequest.get("/")).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void reconfigure_raisedLimit_noCachedDenialIsServed_andTheScriptTakesTheNewLimit(RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store, "login = fixed-window 5/1m key=global")) {
            // Given a key denied (and the denial cached until the window ends)
            assertEquals(5, admit(e, 20));

            // When the limit is raised
            e.reconfigure("login = fixed-window 8/1m key=global", Inheritance.KEEP_CONSUMED);

            // Then the next requests reach Redis and are decided on the shared count under the new limit
            Verdict v = e.enforce(FakeRequest.get("/"));
            assertTrue(v.admitted(), v.toString());
            assertEquals(8, v.decision(0).limit());
            assertEquals(2, v.decision(0).remaining());
            assertEquals(2, admit(e, 10));
        }
    }

    @Test
    void reconfigure_twoInstances_eachFollowsItsOwnConfiguration_andTheSharedStateStaysConsistent(
            RedisServer redis) {
        try (RedisStore storeA = store(redis); RedisStore storeB = store(redis);
                Enforcer a = enforcer(storeA, "api = fixed-window 4/1m key=global");
                Enforcer b = enforcer(storeB, "api = fixed-window 4/1m key=global")) {
            // Given both instances used the shared quota up
            assertEquals(2, admit(a, 2));
            assertEquals(2, admit(b, 5));

            // When A is reconfigured first, A admits under the new limit and B still refuses under its own
            a.reconfigure("api = fixed-window 6/1m key=global", Inheritance.KEEP_CONSUMED);
            assertEquals(1, admit(a, 1));
            assertTrue(b.enforce(FakeRequest.get("/")).denied());

            // When B follows, no stale denial of B's is served and both share the one remaining permit
            b.reconfigure("api = fixed-window 6/1m key=global", Inheritance.KEEP_CONSUMED);
            assertEquals(1, admit(b, 3));
            assertEquals(0, admit(a, 3));

            // And the next window gives exactly 6 across both
            clock.advance(Duration.ofMinutes(1));
            assertEquals(6, admit(a, 3) + admit(b, 10));
        }
    }
}
