package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.store.Inheritance;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * {@link Enforcer#reconfigure}: which state a new set of policies keeps, on a frozen clock.
 */
class ReconfigureTest {

    private final EnforcerFixture f = new EnforcerFixture();

    private static MutableDecision peek(Enforcer e, String policy, String key) {
        MutableDecision d = new MutableDecision();
        KeySpace[] spaces = e.spaceArray();
        List<io.github.sluice.policy.Policy> ps = e.policies();
        for (int i = 0; i < ps.size(); i++) {
            if (ps.get(i).name().equals(policy)) {
                spaces[i].acquire(key, 0, d);
                return d;
            }
        }
        throw new AssertionError("no policy " + policy);
    }

    private static int admit(Enforcer e, FakeRequest r, int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            if (e.enforce(r).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void reconfigure_unchangedAlgorithm_keepsTheSameKeySpaceAndEveryKeysState() {
        // Given a key that used 3 of 5
        Enforcer e = f.enforcer("per-ip = fixed-window 5/1m key=ip", "other = token-bucket 9/1m key=ip");
        KeySpace before = e.spaceArray()[0];
        FakeRequest r = FakeRequest.get("/").peer("192.0.2.1");
        assertEquals(3, admit(e, r, 3));

        // When the set changes around it (a new match, status and a policy removed, one added)
        e.reconfigure("per-ip = fixed-window 5/1m key=ip match=/* status=503\nadded = gcra 3/1s key=ip",
                Inheritance.RESET);

        // Then the very same key space decides, and the key has 2 left, whatever the strategy
        assertSame(before, e.spaceArray()[0]);
        assertEquals(2, admit(e, r, 5));
        assertEquals(List.of("per-ip", "added"), e.policies().stream().map(p -> p.name()).toList());
    }

    @Test
    void reconfigure_headersAndLimitComeFromTheNewSetOnly() {
        Enforcer e = f.enforcer("per-ip = fixed-window 5/1m key=ip");
        FakeRequest r = FakeRequest.get("/").peer("192.0.2.1");
        assertEquals("\"per-ip\";q=5;w=60", EnforcerFixture.headers(e.enforce(r)).headers.get("RateLimit-Policy"));

        e.reconfigure("per-ip = fixed-window 10/1m key=ip", Inheritance.KEEP_CONSUMED);

        Verdict v = e.enforce(r);
        assertEquals("\"per-ip\";q=10;w=60", EnforcerFixture.headers(v).headers.get("RateLimit-Policy"));
        assertEquals(10, v.decision(0).limit());
        assertEquals(8, v.decision(0).remaining(), "1 used before the change, 1 now");
    }

    /**
     * Each strategy on each family of rate algorithm, raising 10 to 20 and lowering it to 5, after
     * 3 permits were used: what is left under the new limit is the strategy's rule.
     */
    @ParameterizedTest(name = "{0} {1} -> {2}: {3}")
    @CsvSource({
        // algorithm (10 per hour, then the new limit), strategy, new limit, left after the change
        "token-bucket,   KEEP_CONSUMED,  20, 17",
        "token-bucket,   KEEP_REMAINING, 20, 7",
        "token-bucket,   PROPORTIONAL,   20, 14",
        "token-bucket,   RESET,          20, 20",
        "token-bucket,   KEEP_CONSUMED,  5,  2",
        "token-bucket,   KEEP_REMAINING, 5,  5",
        "token-bucket,   PROPORTIONAL,   5,  3",
        "gcra,           KEEP_CONSUMED,  20, 17",
        "gcra,           KEEP_REMAINING, 20, 7",
        "gcra,           PROPORTIONAL,   5,  3",
        "gcra,           RESET,          5,  5",
        "fixed-window,   KEEP_CONSUMED,  20, 17",
        "fixed-window,   KEEP_REMAINING, 20, 7",
        "fixed-window,   PROPORTIONAL,   20, 14",
        "fixed-window,   KEEP_CONSUMED,  5,  2",
        "fixed-window,   RESET,          5,  5",
        "sliding-window, KEEP_CONSUMED,  20, 17",
        "sliding-window, KEEP_REMAINING, 5,  5",
        "sliding-window, PROPORTIONAL,   20, 14",
        "sliding-window, RESET,          20, 20",
        "sliding-log,    KEEP_CONSUMED,  20, 17",
        "sliding-log,    KEEP_CONSUMED,  5,  2",
        "sliding-log,    PROPORTIONAL,   5,  3",
        "sliding-log,    RESET,          5,  5",
        "leaky-bucket,   KEEP_CONSUMED,  20, 17",
        "leaky-bucket,   KEEP_REMAINING, 20, 7",
        "leaky-bucket,   KEEP_CONSUMED,  5,  2",
        "leaky-bucket,   RESET,          20, 20",
    })
    void reconfigure_changedLimit_eachKeyKeepsWhatTheStrategySays(String algorithm, Inheritance strategy,
            int newLimit, long left) {
        // Given a key that used 3 of 10, and another key never seen
        Enforcer e = f.enforcer("p = " + algorithm + " 10/1h key=ip");
        FakeRequest r = FakeRequest.get("/").peer("192.0.2.1");
        assertEquals(3, admit(e, r, 3));
        f.clock.advance(Duration.ofMillis(1));

        // When the limit changes
        e.reconfigure("p = " + algorithm + " " + newLimit + "/1h key=ip", strategy);

        // Then the key has what the strategy leaves it, and a new key has the whole new limit
        assertEquals(left, peek(e, "p", "192.0.2.1").remaining());
        assertEquals(newLimit, peek(e, "p", "192.0.2.9").remaining());
        assertEquals(left, admit(e, r, newLimit + 1), "admitted after the change");
    }

    @Test
    void reconfigure_changedRate_advancesUnderTheOldRateThenSwitches() {
        // Given a token bucket of 10 per 10 s (one token a second) emptied at t = 0
        Enforcer e = f.enforcer("p = token-bucket 10/10s key=ip");
        FakeRequest r = FakeRequest.get("/").peer("192.0.2.1");
        assertEquals(10, admit(e, r, 10));

        // When the rate drops to 10 per 100 s after 4 s (4 tokens back under the old rate)
        f.clock.advance(Duration.ofSeconds(4));
        e.reconfigure("p = token-bucket 10/100s key=ip", Inheritance.KEEP_CONSUMED);
        // and the key's first request comes 5 s later
        f.clock.advance(Duration.ofSeconds(5));

        // Then the 4 tokens of the old rate are kept up to the key's first access after the change:
        // the old rate advanced the key to that access (9 s: 9 tokens), then the new rate runs.
        assertEquals(9, peek(e, "p", "192.0.2.1").remaining());
        f.clock.advance(Duration.ofSeconds(10));
        assertEquals(10, peek(e, "p", "192.0.2.1").remaining(), "one token per 10 s from then on");
    }

    @Test
    void reconfigure_isLazy_theSwapTouchesNoKey() {
        // Given 20,000 keys that each used 2 of 3
        Enforcer e = f.enforcer("p = fixed-window 3/1h key=ip");
        for (int i = 0; i < 20_000; i++) {
            FakeRequest r = FakeRequest.get("/").peer("10.0." + (i >> 8) + "." + (i & 255));
            admit(e, r, 2);
        }
        KeySpace old = e.spaceArray()[0];
        assertEquals(20_000, old.size());

        // When the limit changes
        e.reconfigure("p = fixed-window 6/1h key=ip", Inheritance.KEEP_CONSUMED);

        // Then the new key space holds no key yet: each is carried over on its next request
        KeySpace now = e.spaceArray()[0];
        assertNotSame(old, now);
        assertEquals(0, now.size());
        assertEquals(4, admit(e, FakeRequest.get("/").peer("10.0.3.7"), 10));
        assertEquals(1, now.size());
        assertEquals(20_000, old.size(), "the old cells are read, not moved");
    }

    @Test
    void reconfigure_concurrencyLimit_keepsPermitsInFlightWhateverTheStrategy() {
        // Given 2 of 2 permits held
        Enforcer e = f.enforcer("gate = concurrency 2 key=global");
        Verdict a = e.enforce(FakeRequest.get("/"));
        Verdict b = e.enforce(FakeRequest.get("/"));
        assertTrue(a.admitted() && b.admitted());

        // When the limit is raised to 3, even with RESET
        e.reconfigure("gate = concurrency 3 key=global", Inheritance.RESET);

        // Then one more is admitted, not three
        Verdict c = e.enforce(FakeRequest.get("/"));
        assertTrue(c.admitted());
        assertTrue(e.enforce(FakeRequest.get("/")).denied());
        // And the old requests' releases are counted by the new limit, once each
        a.release();
        a.release();
        b.release();
        c.release();
        assertEquals(3, peek(e, "gate", "global").remaining());
        assertEquals(0, e.metrics().policy("gate").inFlight());
    }

    @Test
    void reconfigure_removedPolicy_itsRunningRequestsStillReleaseAndNothingElseHappens() {
        // Given a request holding a permit of a policy
        Enforcer e = f.enforcer("gate = concurrency 1 key=global", "rate = fixed-window 100/1h key=global");
        KeySpace gate = e.spaceArray()[0];
        Verdict running = e.enforce(FakeRequest.get("/"));
        assertTrue(running.admitted());

        // When the policy is removed
        e.reconfigure("rate = fixed-window 100/1h key=global", Inheritance.KEEP_CONSUMED);

        // Then new requests are no longer limited by it, and the running one releases its permit
        assertTrue(e.enforce(FakeRequest.get("/")).admitted());
        assertEquals(1, e.enforce(FakeRequest.get("/")).size());
        running.release();
        MutableDecision d = new MutableDecision();
        gate.acquire("global", 0, d);
        assertEquals(1, d.remaining(), "the permit went back to the removed policy's key space");
        // And the policy can come back
        e.reconfigure("gate = concurrency 1 key=global\nrate = fixed-window 100/1h key=global",
                Inheritance.KEEP_CONSUMED);
        assertTrue(e.enforce(FakeRequest.get("/")).admitted());
    }

    @Test
    void reconfigure_badText_isRefusedWithTheLineAndTheOldSetStays() {
        Enforcer e = f.enforcer("per-ip = fixed-window 5/1m key=ip");
        ConfigException x = assertThrows(ConfigException.class,
                () -> e.reconfigure("per-ip = fixed-window 5/1m key=ip\nbad = fixed-window 0/1m key=ip",
                        Inheritance.KEEP_CONSUMED));
        assertTrue(x.getMessage().contains("line 2"), x.getMessage());
        assertEquals(5, e.policies().get(0).algorithm().limit());
        assertThrows(IllegalArgumentException.class, () -> e.reconfigure(
                "a = fixed-window 5/1m key=ip\na = fixed-window 6/1m key=ip", Inheritance.KEEP_CONSUMED));
        assertEquals(List.of("per-ip"), e.policies().stream().map(p -> p.name()).toList());
    }

    @Test
    void reconfigure_selectionFollowsByName_andASetWithoutItsPolicyIsRefused() {
        // Given a selection (a JAX-RS @RateLimited method) of policy 'api' with cost 2
        Enforcer e = f.enforcer("api = fixed-window 10/1h key=ip match=none", "web = fixed-window 5/1h key=ip");
        PolicySet api = e.select(List.of("api"), 2);
        FakeRequest r = FakeRequest.get("/").peer("192.0.2.1");
        assertEquals(8, e.enforce(r, api).decision(0).remaining());

        // When its limit changes, the selection applies the new one, keeping the key's state
        e.reconfigure("api = fixed-window 20/1h key=ip match=none", Inheritance.KEEP_CONSUMED);
        Verdict v = e.enforce(r, api);
        assertEquals(20, v.decision(0).limit());
        assertEquals(16, v.decision(0).remaining());

        // But a set without 'api', or whose limit is below the selection's cost, is refused
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> e.reconfigure("web = fixed-window 5/1h key=ip", Inheritance.KEEP_CONSUMED));
        assertTrue(x.getMessage().contains("'api'"), x.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> e.reconfigure("api = fixed-window 1/1h key=ip match=none", Inheritance.KEEP_CONSUMED));
        assertEquals(20, e.enforce(r, api).decision(0).limit(), "the refused sets changed nothing");
        assertFalse(e.enforce(r, api).denied());
    }

    @Test
    void reconfigure_storeRefusesAPolicy_theSetInForceStays_andALaterChangeStillWorks() {
        // Given an in-memory store whose budget holds small policies only
        io.github.sluice.store.ShardedRegistry small = io.github.sluice.store.ShardedRegistry.builder()
                .clock(f.clock).maxKeys(1000).memoryBudget(2L << 20).build();
        Enforcer e = Enforcer.builder().store(small).listener(EnforcementListener.NONE)
                .policies("a = fixed-window 5/1h key=ip").build();
        FakeRequest r = FakeRequest.get("/").peer("192.0.2.1");
        assertEquals(2, admit(e, r, 2));

        // When a new set changes 'a' and adds a policy the budget cannot hold
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> e.reconfigure(
                "a = fixed-window 6/1h key=ip\nbig = sliding-log 10000/1h key=ip", Inheritance.KEEP_CONSUMED));
        assertTrue(x.getMessage().contains("'big'"), x.getMessage());

        // Then the set in force is unchanged, and a later change applies and keeps the key's state
        assertEquals(5, e.enforce(r).decision(0).limit());
        e.reconfigure("a = fixed-window 7/1h key=ip", Inheritance.KEEP_CONSUMED);
        Verdict v = e.enforce(r);
        assertEquals(7, v.decision(0).limit());
        assertEquals(3, v.decision(0).remaining(), "3 used before, 1 now");
    }
}
