package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.request.RequestView;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * {@link Verdict#releaseConfined(int)}, the ending of the thread that decided a verdict and never
 * handed it over: the same ending as {@link Verdict#release(int)}, once. Counted at the store
 * ({@link io.github.sluice.testing.ReleaseLedger}): an ending that gave permits back twice, or not
 * at all, fails here.
 */
class ConfinedReleaseTest {

    private static final String[] POLICIES = {
        "slots = concurrency 3 key=global",
        "quota = fixed-window 5/1m key=ip count=2xx",
    };

    @Test
    void aConfinedEnding_givesThePermitsBackOnce_andEveryLaterEndingDoesNothing() {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.ledgered(POLICIES).build();
        Verdict v = e.enforce(FakeRequest.get("/"));
        assertFalse(v.released());

        v.releaseConfined(200);
        v.releaseConfined(200);
        v.release(200);
        v.releaseFailed();
        v.releaseTimedOut();

        assertTrue(v.released());
        assertEquals(1, f.ledger.released("slots", "global"));
        f.ledger.assertBalanced();
    }

    @Test
    void aConfinedEnding_endsAsReleaseDoes_forEveryStatus() {
        // Given two enforcers on the same clock and configuration, one ended by release(status),
        // the other by releaseConfined(status), request by request
        for (int status : new int[] {0, 200, 204, 302, 404, 429, 500, 503, -1}) {
            List<String> byRelease = run((v, s) -> v.release(s), status);
            List<String> confined = run((v, s) -> v.releaseConfined(s), status);
            assertEquals(byRelease, confined, "status " + status);
        }
    }

    @Test
    void aConfinedEnding_ofADeniedOrDryRunVerdict_holdsNothing_andDoesNothing() {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.ledgered("slots = concurrency 1 key=global").build();
        Verdict held = e.enforce(FakeRequest.get("/"));
        Verdict denied = e.enforce(FakeRequest.get("/"));
        assertTrue(denied.denied());

        denied.releaseConfined(200);
        assertEquals(0, f.ledger.released("slots", "global"));
        held.releaseConfined(200);
        assertEquals(1, f.ledger.released("slots", "global"));
        f.ledger.assertBalanced();
    }

    /** Six requests, each ended with {@code status} after the next one was decided: what each saw. */
    private static List<String> run(BiConsumer<Verdict, Integer> end, int status) {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.ledgered(POLICIES).build();
        java.util.ArrayList<String> seen = new java.util.ArrayList<>();
        Verdict previous = null;
        for (int i = 0; i < 6; i++) {
            RequestView request = FakeRequest.get("/");
            Verdict v = e.enforce(request);
            seen.add(v.outcome() + " " + EnforcerFixture.headers(v).headers.get("RateLimit"));
            if (previous != null) {
                end.accept(previous, status);
            }
            previous = v;
            f.clock.advanceNanos(1_000_000_000L);
        }
        end.accept(previous, status);
        seen.add("released " + f.ledger.released("slots", "global") + ", held " + f.ledger.held("quota", "192.0.2.1"));
        f.ledger.assertBalanced();
        return seen;
    }
}
