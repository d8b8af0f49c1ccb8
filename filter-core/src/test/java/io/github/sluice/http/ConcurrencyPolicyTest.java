package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import io.github.sluice.testing.StructuredFields.Item;
import io.github.sluice.testing.StructuredFields;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** Concurrency policies: permits held by the verdict and handed back exactly once. */
class ConcurrencyPolicyTest {

    private static final int THREADS = 8;
    private final EnforcerFixture f = new EnforcerFixture();

    @Test
    void headers_announceConcurrentRequestsWithoutWindowOrReset() {
        Enforcer e = f.enforcer("inflight = concurrency 2 key=global status=503", "per-ip = token-bucket 10/1m key=ip");

        RecordingResponse r = EnforcerFixture.headers(e.enforce(FakeRequest.get("/")));

        assertEquals("\"inflight\";q=2;qu=\"concurrent-requests\", \"per-ip\";q=10;w=60",
                r.headers.get("RateLimit-Policy"));
        assertEquals("\"inflight\";r=1, \"per-ip\";r=9;t=6", r.headers.get("RateLimit"));
        Item policy = (Item) StructuredFields.parseList(r.headers.get("RateLimit-Policy")).get(0);
        assertEquals(Map.of("q", 2L, "qu", "concurrent-requests"), policy.params());
        Item limit = (Item) StructuredFields.parseList(r.headers.get("RateLimit")).get(0);
        assertEquals(Map.of("r", 1L), limit.params());
    }

    @Test
    void release_returnsThePermitOnce_andTellsTheListener() {
        RecordingListener events = new RecordingListener();
        Enforcer e = f.ledgered("inflight = concurrency 1 key=global").listener(events).build();
        Verdict first = e.enforce(FakeRequest.get("/"));
        assertFalse(first.released());

        assertTrue(e.enforce(FakeRequest.get("/")).denied(), "the only permit is held");
        first.release();
        first.release();
        first.close();

        assertTrue(first.released());
        Verdict second = e.enforce(FakeRequest.get("/"));
        assertTrue(second.admitted());
        assertTrue(e.enforce(FakeRequest.get("/")).denied(), "a second release must not have added a permit");
        assertEquals(1, events.events.stream().filter(s -> s.startsWith("released")).count());
        assertEquals("released inflight global 1", events.events.get(2));
        // And the store saw one release per admission: the listener's count alone could not tell
        assertEquals(1, f.ledger.released("inflight", "global"));
        second.release();
        f.ledger.assertBalanced();
    }

    @Test
    void denial_holdsNothing_andNamesConcurrency() throws Exception {
        Enforcer e = f.enforcer("inflight = concurrency 1 key=global status=503");
        Verdict held = e.enforce(FakeRequest.get("/"));

        Verdict denied = e.enforce(FakeRequest.get("/"));
        RecordingResponse r = new RecordingResponse();
        denied.writeDenial(r, r);

        assertTrue(denied.released(), "a denial holds no permit");
        assertEquals(503, denied.status());
        assertTrue(r.bodyText().contains("Too many concurrent requests for policy 'inflight'"), r.bodyText());
        held.release();
    }

    @Test
    void rateDenial_givesTheConcurrencyPermitBack() {
        Enforcer e = f.enforcer("inflight = concurrency 5 key=global", "rate = token-bucket 1/1m key=global");
        e.enforce(FakeRequest.get("/")).release();

        Verdict denied = e.enforce(FakeRequest.get("/"));

        assertTrue(denied.denied());
        assertEquals(5, AllOrNothingConcurrencyTest.peek(e, "inflight", "global").remaining());
    }

    @Test
    void dryRunConcurrency_holdsAndReleasesWhatItTook() {
        Enforcer e = f.enforcer("inflight = concurrency 1 key=global dry-run");
        Verdict a = e.enforce(FakeRequest.get("/"));
        Verdict b = e.enforce(FakeRequest.get("/"));

        assertTrue(a.admitted() && b.admitted());
        assertTrue(b.dryRunDenied());
        assertTrue(b.released(), "the would-be denial took nothing");
        a.release();
        assertEquals(1, AllOrNothingConcurrencyTest.peek(e, "inflight", "global").remaining());
    }

    @RepeatedTest(5)
    void release_racingThreads_returnThePermitExactlyOnce() throws Exception {
        RecordingListener events = new RecordingListener();
        Enforcer e = f.ledgered("inflight = concurrency 3 key=global").listener(events).build();
        Verdict v = e.enforce(FakeRequest.get("/"));

        AllOrNothingConcurrencyTest.run(THREADS, t -> v::release);

        assertEquals(3, AllOrNothingConcurrencyTest.peek(e, "inflight", "global").remaining());
        assertEquals(1, events.events.stream().filter(s -> s.startsWith("released")).count());
        assertEquals(1, f.ledger.released("inflight", "global"), "released once at the store");
        f.ledger.assertBalanced();
    }

    @RepeatedTest(5)
    void enforce_racingRequests_neverExceedTheLimitNorLeakAPermit() throws Exception {
        // Given a concurrency limit, a per-client rate and a global rate, all applied together
        Enforcer e = f.ledgered("inflight = concurrency 4 key=global", "per-ip = token-bucket 30/1d key=ip",
                "global = token-bucket 100/1d key=global").build();
        AtomicInteger held = new AtomicInteger();
        AtomicInteger maxHeld = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        ConcurrentLinkedQueue<Verdict> handedOver = new ConcurrentLinkedQueue<>();

        // When 8 clients race, releasing some verdicts at once and handing others to another thread
        AllOrNothingConcurrencyTest.run(THREADS, t -> () -> {
            FakeRequest r = FakeRequest.get("/").peer("192.0.2." + (t + 1));
            for (int i = 0; i < 40; i++) {
                Verdict v = e.enforce(r);
                if (v.admitted()) {
                    admitted.incrementAndGet();
                    // Counted after admission and uncounted before release: never above the permits held
                    maxHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
                    if (i % 3 == 0) {
                        handedOver.add(v);
                    } else {
                        held.decrementAndGet();
                        v.release();
                    }
                }
                Verdict other = handedOver.poll();
                if (other != null) {
                    held.decrementAndGet();
                    other.release();
                    other.release();
                }
            }
        });
        for (Verdict v : handedOver) {
            v.release();
        }

        // Then every permit is back, and each rate lost exactly the admitted requests
        assertTrue(maxHeld.get() <= 4, "held at once: " + maxHeld.get());
        assertEquals(4, AllOrNothingConcurrencyTest.peek(e, "inflight", "global").remaining());
        assertEquals(100 - admitted.get(), AllOrNothingConcurrencyTest.peek(e, "global", "global").remaining());
        int perIp = 0;
        for (int t = 0; t < THREADS; t++) {
            perIp += 30 - AllOrNothingConcurrencyTest.peek(e, "per-ip", "192.0.2." + (t + 1)).remaining();
        }
        assertEquals(admitted.get(), perIp);
        // And, counted at the store, each admitted request released once (those another policy
        // refused were refunded instead), with no release that matched nothing
        assertEquals(admitted.get(), f.ledger.released("inflight", "global"));
        f.ledger.assertBalanced();
    }
}
