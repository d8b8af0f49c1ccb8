package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Operators read a key's state without consuming it, and reset it without breaking running requests. */
class KeyStateTest {

    private final EnforcerFixture fixture = new EnforcerFixture();

    @Test
    void inspect_consumesNothing_andReadsWhatTheHeadersSay() {
        Enforcer e = fixture.enforcer("per-ip = fixed-window 3/1m align=first-request key=ip",
                "inflight = concurrency 2 key=ip");
        Verdict held = e.enforce(FakeRequest.get("/").peer("192.0.2.7"));

        List<KeyState> first = e.inspect("192.0.2.7");
        List<KeyState> second = e.inspect("192.0.2.7");

        assertEquals(List.of(new KeyState("per-ip", "fixed-window", false, 3, 2, 60),
                new KeyState("inflight", "concurrency", true, 2, 1, 0)), first);
        assertEquals(first, second);
        assertEquals(1, first.get(1).inFlight());
        assertTrue(e.enforce(FakeRequest.get("/").peer("192.0.2.7")).admitted(), "inspecting spent quota");
        held.release();
    }

    @Test
    void inspect_unknownKey_readsFresh_andCreatesNoEntry() {
        Enforcer e = fixture.enforcer("per-ip = token-bucket 10/1s key=ip");

        KeyState s = e.inspect("203.0.113.1", "per-ip");

        assertEquals(new KeyState("per-ip", "token-bucket", false, 10, 10, 0), s);
        assertEquals(0, e.metrics().policy("per-ip").keys());
    }

    @Test
    void reset_spentKey_getsItsQuotaBack_onlyUnderTheNamedPolicy() {
        Enforcer e = fixture.enforcer("a = fixed-window 1/1m key=ip", "b = fixed-window 1/1m key=ip match=/b");
        e.enforce(FakeRequest.get("/b").peer("192.0.2.9"));
        assertTrue(e.enforce(FakeRequest.get("/b").peer("192.0.2.9")).denied());

        assertTrue(e.reset("192.0.2.9", "a"));
        assertTrue(e.enforce(FakeRequest.get("/").peer("192.0.2.9")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/b").peer("192.0.2.9")).denied(), "b was not reset");

        assertEquals(List.of("a", "b"), e.reset("192.0.2.9"));
        assertEquals(List.of(), e.reset("192.0.2.9"), "nothing left to forget");
        assertFalse(e.reset("198.51.100.1", "a"));
    }

    @Test
    void reset_unknownPolicy_isRefusedNamingTheKnownOnes() {
        Enforcer e = fixture.enforcer("a = fixed-window 1/1m key=ip");

        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> e.reset("k", "nope"));
        assertEquals("unknown policy 'nope'; known policies: [a]", x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> e.inspect("k", "nope"));
    }

    @Test
    void reset_overlongKey_isHashedLikeRequestKeys() {
        Enforcer e = fixture.enforcer("api = fixed-window 1/1m key=header:X-Api-Key");
        String token = "t".repeat(500);
        e.enforce(FakeRequest.get("/").header("X-Api-Key", token));

        assertEquals(0, e.inspect(token, "api").remaining());
        assertTrue(e.reset(token, "api"));
        assertEquals(1, e.inspect(token, "api").remaining());
    }

    @Test
    void reset_concurrencyKeyWithRunningRequests_keepsThemCounted_andEachReleaseComesBackOnce() {
        Enforcer e = fixture.enforcer("inflight = concurrency 2 key=ip");
        Verdict a = e.enforce(FakeRequest.get("/"));
        Verdict b = e.enforce(FakeRequest.get("/"));

        assertEquals(List.of(), e.reset("192.0.2.1"));
        assertEquals(2, e.inspect("192.0.2.1", "inflight").inFlight());
        assertTrue(e.enforce(FakeRequest.get("/")).denied(), "a reset must not admit past the limit");

        a.release();
        a.release();
        b.release();
        assertEquals(0, e.inspect("192.0.2.1", "inflight").inFlight());
        assertEquals(2, e.inspect("192.0.2.1", "inflight").remaining());
    }

    @Test
    void resetsRacingRequests_neverAdmitMoreThanOneQuotaPerReset() throws Exception {
        // Given a quota of 10 on a frozen clock, 8 threads asking 300 times each, and a 9th resetting
        Enforcer e = fixture.enforcer("per-ip = fixed-window 10/1m key=ip");
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger resets = new AtomicInteger();
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            all.add(started(() -> {
                await(start);
                for (int i = 0; i < 300; i++) {
                    if (e.enforce(FakeRequest.get("/")).admitted()) {
                        admitted.incrementAndGet();
                    }
                }
            }));
        }
        all.add(started(() -> {
            await(start);
            for (int i = 0; i < 50; i++) {
                if (e.reset("192.0.2.1", "per-ip")) {
                    resets.incrementAndGet();
                }
                Thread.yield();
            }
        }));
        for (Thread t : all) {
            t.join();
        }

        // Then each reset gave back at most one quota, and the registry's count of keys is whole
        assertTrue(admitted.get() <= 10L * (resets.get() + 1), admitted + " admitted with " + resets + " resets");
        assertTrue(admitted.get() >= 10);
        long keys = e.metrics().policy("per-ip").keys();
        assertTrue(keys == 0 || keys == 1, "keys: " + keys);
    }

    private static Thread started(Runnable r) {
        Thread t = new Thread(r);
        t.start();
        return t;
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }
}
