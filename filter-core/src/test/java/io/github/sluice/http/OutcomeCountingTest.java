package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Counting by outcome through the enforcer, on a frozen clock: checked before (a spent quota
 * refuses, reservations in flight count), charged after (the final status keeps or refunds the
 * reservation), for every rate algorithm, and every ending that carries no status.
 */
class OutcomeCountingTest {

    private final EnforcerFixture f = new EnforcerFixture();
    private final FakeRequest alice = FakeRequest.get("/login").peer("192.0.2.1");

    private Enforcer login(String algorithm, String charge) {
        return f.enforcer("login = " + algorithm + " key=ip " + charge);
    }

    private static int attempts(Enforcer e, FakeRequest r, int status, int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            Verdict v = e.enforce(r);
            if (v.admitted()) {
                admitted++;
                v.release(status);
            }
        }
        return admitted;
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "fixed-window 3/1m", "fixed-window 3/1m align=first-request", "sliding-window 3/1m",
        "sliding-log 3/1m", "token-bucket 3/1m", "gcra 3/1m", "leaky-bucket 3/1m",
    })
    void enforce_countOnly401_rightPasswordsNeverSpendAndTheFourthWrongOneIsRefused(String algorithm) {
        // Given a login limit that counts only 401s
        Enforcer e = login(algorithm, "count=401");

        // When a hundred right passwords come first
        assertEquals(100, attempts(e, alice, 200, 100));

        // Then the quota is whole: three wrong passwords pass, the fourth request is refused whatever its password
        assertEquals(3, attempts(e, alice, 401, 3));
        Verdict fourth = e.enforce(alice);
        assertTrue(fourth.denied(), algorithm + ": " + fourth);
        assertTrue(fourth.released(), "a denial holds nothing");
    }

    /** Every rate algorithm that counts by outcome, also smooth-bursty, which does not admit its whole limit at once. */
    @ParameterizedTest
    @ValueSource(strings = {
        "fixed-window 3/1m", "fixed-window 3/1m align=first-request", "sliding-window 3/1m slots=4",
        "sliding-log 3/1m", "token-bucket 3/1m burst=2", "gcra 3/1m", "leaky-bucket 3/1m capacity=2",
        "smooth-bursty 3/1m max-burst=1m",
    })
    void enforce_rightPasswordsFirst_admitExactlyWhatAFreshKeyAdmits(String algorithm) {
        // Given the same policy twice, one key served right passwords first, the other not
        Enforcer e = login(algorithm, "count=401");
        FakeRequest bob = FakeRequest.get("/login").peer("192.0.2.2");
        assertEquals(50, attempts(e, alice, 200, 50), "every right password admitted");

        // Then wrong passwords find both keys alike, now and as time passes
        for (int round = 0; round < 4; round++) {
            assertEquals(attempts(e, bob, 401, 6), attempts(e, alice, 401, 6), algorithm + ", round " + round);
            f.clock.advance(Duration.ofSeconds(13));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fixed-window 3/1m", "sliding-log 3/1m", "token-bucket 3/1m", "gcra 3/1m"})
    void enforce_reservationsInFlight_countBeforeTheirOutcomeIsKnown(String algorithm) {
        // Given three requests admitted and still running
        Enforcer e = login(algorithm, "count=401");
        Verdict[] running = {e.enforce(alice), e.enforce(alice), e.enforce(alice)};
        for (Verdict v : running) {
            assertTrue(v.admitted());
            assertFalse(v.released(), "an admission of a policy that counts by outcome holds a reservation");
        }

        // Then a fourth is refused while they run: checked before, charged after
        assertTrue(e.enforce(alice).denied());

        // When two of them end with 200 and one with 401
        running[0].release(200);
        running[1].release(200);
        running[2].release(401);

        // Then the two refunds are free again, and no more
        assertEquals(2, attempts(e, alice, 401, 5));
        assertEquals(0, f.registry.keySpace("login", e.policies().get(0).algorithm()) == null ? -1
                : e.inspect("192.0.2.1", "login").remaining());
    }

    @Test
    void release_twice_refundsOnce() {
        // Given one wrong password charged and one right password in flight
        Enforcer e = login("fixed-window 3/1m", "count=401");
        attempts(e, alice, 401, 1);
        Verdict right = e.enforce(alice);

        // When its ending is reported twice, once per way
        right.release(200);
        right.release(200);
        right.releaseFailed();
        right.releaseAborted();

        // Then exactly its own permit came back
        assertEquals(2, e.inspect("192.0.2.1", "login").remaining());
    }

    /** How each ending without a status settles a reservation, under count=401, count=5xx and skip=5xx. */
    @ParameterizedTest
    @ValueSource(strings = {"count=401", "count=5xx", "skip=5xx", "count=504", "count=500"})
    void endings_withoutStatus_settleAsDocumented(String charge) {
        Enforcer e = login("fixed-window 100/1m", charge);
        // exception: 500; timeout: 504; abort and unknown: always kept
        assertKept(e, charge, Verdict::releaseFailed, charge.equals("count=5xx") || charge.equals("count=500"));
        assertKept(e, charge, Verdict::releaseTimedOut, charge.equals("count=5xx") || charge.equals("count=504"));
        assertKept(e, charge, Verdict::releaseAborted, true);
        assertKept(e, charge, Verdict::release, true);
        assertKept(e, charge, v -> v.release(0), true);
        assertKept(e, charge, v -> v.release(-7), true);
        assertKept(e, charge, v -> v.release(401), !charge.equals("count=5xx") && !charge.startsWith("count=50"));
        assertKept(e, charge, v -> v.release(200), charge.equals("skip=5xx"));
        assertKept(e, charge, v -> v.release(503), charge.equals("count=5xx"));
    }

    private void assertKept(Enforcer e, String charge, Consumer<Verdict> ending, boolean kept) {
        long before = e.inspect("192.0.2.1", "login").remaining();
        Verdict v = e.enforce(alice);
        assertEquals(before - 1, e.inspect("192.0.2.1", "login").remaining(), "reserved");
        ending.accept(v);
        assertTrue(v.released());
        assertEquals(kept ? before - 1 : before, e.inspect("192.0.2.1", "login").remaining(), charge);
    }

    @Test
    void enforce_twoPoliciesCountingFailures_eachChargesItsOwnKeyAndBothRefund() {
        // Given the recipe's two limits: per client address and per user name
        Enforcer e = f.enforcer("login-ip = fixed-window 5/15m key=ip count=401",
                "login-user = fixed-window 3/15m key=header:X-User count=401");
        FakeRequest bob = FakeRequest.get("/login").peer("192.0.2.9").header("X-User", "bob");

        // When bob's right passwords come first, then three wrong ones
        assertEquals(10, attempts(e, bob, 200, 10));
        assertEquals(3, attempts(e, bob, 401, 3));

        // Then the user is locked, and the address has two attempts left for other users
        assertTrue(e.enforce(bob).denied());
        assertEquals(2, e.inspect("192.0.2.9", "login-ip").remaining());
        FakeRequest carol = FakeRequest.get("/login").peer("192.0.2.9").header("X-User", "carol");
        assertEquals(2, attempts(e, carol, 401, 2));
        assertTrue(e.enforce(carol).denied(), "the address is spent");
        assertEquals(1, e.inspect("carol", "login-user").remaining(), "the refused request charged no one");
    }

    @Test
    void enforce_refusedByAnotherPolicy_refundsTheReservationAtOnce() {
        // Given a counting policy checked before a closed gate
        Enforcer e = f.enforcer("login = fixed-window 3/1m key=ip count=401",
                "gate = fixed-window 1/1m key=global");
        assertEquals(1, attempts(e, alice, 401, 1));

        // When the gate refuses
        Verdict refused = e.enforce(alice);

        // Then the counting policy's reservation was given back then, and nothing is held
        assertTrue(refused.denied());
        assertTrue(refused.released());
        assertEquals(2, e.inspect("192.0.2.1", "login").remaining());
    }

    @Test
    void enforce_dryRunCountingPolicy_reportsTheOutcomeToo() {
        Enforcer e = f.enforcer("login = fixed-window 3/1m key=ip count=401 dry-run");
        assertEquals(20, attempts(e, alice, 200, 20));
        assertEquals(3, e.inspect("192.0.2.1", "login").remaining());
        assertEquals(5, attempts(e, alice, 401, 5));
        assertEquals(0, e.inspect("192.0.2.1", "login").remaining());
    }

    @Test
    void tokenBucket_requestThatTakesTime_givesBackItsPermitLessTheRefillMeanwhile() {
        // Given a token bucket of 3 per minute (a token each 20 s) with one token spent
        Enforcer e = login("token-bucket 3/1m", "count=401");
        assertEquals(1, attempts(e, alice, 401, 1));

        // When a right password takes 5 s
        Verdict v = e.enforce(alice);
        f.clock.advance(Duration.ofSeconds(5));
        v.release(200);

        // Then the key is where it would be had the request never come, but for the 5 s of refill
        // it could not earn while its reservation ran (docs/algorithms.md, "Counting by outcome")
        f.clock.advance(Duration.ofSeconds(15));
        assertEquals(2, e.inspect("192.0.2.1", "login").remaining(), "20 s after: not yet refilled");
        f.clock.advance(Duration.ofSeconds(5));
        assertEquals(3, e.inspect("192.0.2.1", "login").remaining(), "25 s after: refilled");
    }

    @Test
    void fixedWindow_requestEndingInTheNextWindow_refundsNothingAndNeedsNot() {
        // Given a reservation taken in the last second of a window
        Enforcer e = login("fixed-window 3/1m", "count=401");
        long minute = Duration.ofMinutes(1).toNanos();
        f.clock.set((f.clock.nanos() / minute + 1) * minute - Duration.ofSeconds(1).toNanos());
        Verdict v = e.enforce(alice);

        // When it ends with 200 in the next window
        f.clock.advance(Duration.ofSeconds(2));
        v.release(200);

        // Then the new window is whole: the old one's permit left with it
        assertEquals(3, e.inspect("192.0.2.1", "login").remaining());
    }

    @Test
    void settle_refundedBeforeTheHeaders_showsThePermitBackInRateLimit() {
        // Given one failure charged, and a right password whose status is known before its headers
        Enforcer e = login("fixed-window 3/1m", "count=401");
        attempts(e, alice, 401, 1);
        Verdict right = e.enforce(alice);
        assertEquals("\"login\";r=1;t=60", EnforcerFixture.headers(right).headers.get("RateLimit"), "the reservation");

        // When it is settled with 200, then released with another ending
        right.settle(200);
        String header = EnforcerFixture.headers(right).headers.get("RateLimit");
        right.releaseAborted();

        // Then the header shows the refund, and the later ending changed nothing
        assertEquals("\"login\";r=2;t=60", header);
        assertEquals(2, e.inspect("192.0.2.1", "login").remaining());
    }

    @Test
    void settle_kept_isNotRefundedByALaterEnding() {
        Enforcer e = login("fixed-window 3/1m", "count=401");
        Verdict wrong = e.enforce(alice);
        wrong.settle(401);
        wrong.settle(200); // only the first settles
        wrong.release(200);
        assertTrue(wrong.released());
        assertEquals(2, e.inspect("192.0.2.1", "login").remaining());
        assertEquals("\"login\";r=2;t=60", EnforcerFixture.headers(wrong).headers.get("RateLimit"));
    }

    @Test
    void settle_afterTheRelease_doesNothing() {
        Enforcer e = login("fixed-window 3/1m", "count=401");
        Verdict wrong = e.enforce(alice);
        wrong.release(401);
        wrong.settle(200);
        assertEquals(2, e.inspect("192.0.2.1", "login").remaining());
    }

    @Test
    void settle_withAConcurrencyPolicy_leavesItsPermitToTheRelease() {
        Enforcer e = f.enforcer("login = fixed-window 3/1m key=ip count=401", "inflight = concurrency 1 key=global");
        Verdict right = e.enforce(alice);
        right.settle(200);
        assertFalse(right.released(), "the concurrency permit is held until the release");
        assertTrue(e.enforce(alice).denied(), "in flight");
        right.release(200);
        assertTrue(right.released());
        assertEquals(3, e.inspect("192.0.2.1", "login").remaining());
        assertEquals(1, e.inspect("global", "inflight").remaining());
    }

    @Test
    void settleAndRelease_racing_refundOnce() throws Exception {
        // Given one failure charged, then right passwords whose settle and release race on two threads
        Enforcer e = login("fixed-window 1000/1m", "count=401");
        attempts(e, alice, 401, 1);
        for (int i = 0; i < 200; i++) {
            Verdict v = e.enforce(alice);
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            Thread settler = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                v.settle(200);
            });
            settler.start();
            go.countDown();
            v.release(200);
            settler.join();
            assertTrue(v.released());
        }
        // Then each was refunded once: a second refund would have taken the failure's permit too
        assertEquals(999, e.inspect("192.0.2.1", "login").remaining());
    }
}
