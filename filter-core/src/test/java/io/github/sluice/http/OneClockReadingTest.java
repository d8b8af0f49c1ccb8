package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Clock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request reads the clock once. The in-memory store's reading dates the decision for what follows
 * it (the minute of the heavy hitters), and for a policy with overrides the reading that checks
 * the override cache's expiry is the very one the store decides at: so a cached contract decides
 * exactly the requests decided before its expiry, and a denial is counted in the minute it was
 * decided in.
 */
class OneClockReadingTest {

    private static final long MINUTE = Duration.ofMinutes(1).toNanos();

    /** A fake clock that counts its readings, and can move forward right after its next reading. */
    static final class CountingClock implements Clock {
        final AtomicLong now = new AtomicLong(1_767_225_600_000_000_000L);
        final AtomicLong reads = new AtomicLong();
        /** Added to the time right after the next reading, then cleared. */
        final AtomicLong jump = new AtomicLong();

        @Override
        public long nanos() {
            reads.incrementAndGet();
            long t = now.get();
            long j = jump.getAndSet(0);
            if (j != 0) {
                now.addAndGet(j);
            }
            return t;
        }

        void advance(long nanos) {
            now.addAndGet(nanos);
        }
    }

    private final CountingClock clock = new CountingClock();
    private Enforcer enforcer;

    @AfterEach
    void close() {
        if (enforcer != null) {
            enforcer.close();
        }
    }

    private static FakeRequest peer(String address) {
        return FakeRequest.get("/").peer(address);
    }

    private static FakeRequest key(String key) {
        return FakeRequest.get("/api").peer("198.51.100.7").header("X-Api-Key", key);
    }

    /** The clock readings per request over {@code n} requests. */
    private double readsPerRequest(FakeRequest request, int n, boolean admitted) {
        long before = clock.reads.get();
        for (int i = 0; i < n; i++) {
            Verdict v = enforcer.enforce(request);
            assertEquals(admitted, v.admitted(), v.toString());
            v.release();
        }
        return (clock.reads.get() - before) / (double) n;
    }

    @Test
    void heavyHitters_deniedRequest_readsTheClockOnce_theStoresReading() {
        // Given a policy of one request an hour, whose refusals are kept as heavy hitters (the default)
        enforcer = Enforcer.builder().clock(clock).policies("per-ip = fixed-window 1/1h key=ip")
                .listener(EnforcementListener.NONE).build();
        assertTrue(enforcer.enforce(peer("192.0.2.1")).admitted());

        // Then a refusal reads the clock once (the store's reading), and is counted
        assertEquals(1.0, readsPerRequest(peer("192.0.2.1"), 50, false));
        assertEquals(1.0, readsPerRequest(peer("192.0.2.2"), 1, true), "an admission too");
        TopClients.Top top = enforcer.metrics().policy("per-ip").topClients(TopClients.By.DENIED).top(1);
        assertEquals(List.of(new TopClients.Entry("192.0.2.1", 50, 0)), top.entries());
    }

    @Test
    void heavyHitters_denialIsCountedInTheMinuteItWasDecidedIn_notInALaterReadingsMinute() {
        // Given a drained key, and the clock in the last nanosecond of a minute
        enforcer = Enforcer.builder().clock(clock).policies("per-ip = fixed-window 1/1h key=ip")
                .listener(EnforcementListener.NONE).topClientsAdmitted(true).build();
        long minute = clock.now.get() / MINUTE;
        clock.now.set((minute + 1) * MINUTE - 2);
        assertTrue(enforcer.enforce(peer("192.0.2.1")).admitted());
        clock.advance(1);

        // When the clock passes into the next minute right after the store's reading of a refusal
        clock.jump.set(1);
        assertFalse(enforcer.enforce(peer("192.0.2.1")).admitted());

        // Then the refusal (and the admission before it) are counted in the minute of their
        // decision: two minutes on, a period of one minute (that minute and the one before it)
        // no longer holds them, a period of two does
        clock.now.set((minute + 2) * MINUTE);
        PolicyMetrics m = enforcer.metrics().policy("per-ip");
        assertEquals(List.of(), m.topClients(TopClients.By.DENIED).top(1).entries());
        assertEquals(List.of(new TopClients.Entry("192.0.2.1", 1, 0)),
                m.topClients(TopClients.By.DENIED).top(2).entries());
        assertEquals(List.of(), m.topClients(TopClients.By.ADMITTED).top(1).entries());
    }

    private Enforcer overrides(String ttl, AtomicInteger calls, String[] contract) {
        return overrides(ttl, k -> {
            calls.incrementAndGet();
            return k.equals("partner-1") ? contract[0] : null;
        });
    }

    private Enforcer overrides(String ttl, java.util.function.Function<String, String> lookup) {
        enforcer = Enforcer.builder().clock(clock)
                .policies("api = fixed-window key=header:X-Api-Key plan=header:X-Plan plans=free:2/1h,pro:5/1h"
                        + " default-plan=free override=bean:contractOf override-ttl=" + ttl + " override-timeout=5s")
                .overrideLookup("contractOf", lookup)
                .listener(EnforcementListener.NONE).build();
        return enforcer;
    }

    @Test
    void override_requestThatWaitedForALookup_isDecidedAtAReadingTakenAfterTheWait() {
        // Given a lookup during which the clock moves on 30 s (a slow database, on a fake clock)
        long thirty = Duration.ofSeconds(30).toNanos();
        overrides("1h", k -> {
            clock.advance(thirty);
            return "5/1h";
        });
        long before = clock.now.get();

        // When the key's first request waits for it
        Verdict v = enforcer.enforce(key("partner-1"));

        // Then it is decided by the contract, at the time after the wait: the reading taken
        // before it would be stale against the key's state by then
        assertTrue(v.admitted());
        assertEquals(before + thirty, v.first().nanos());
        RecordingHeaders headers = new RecordingHeaders();
        v.writeHeaders(headers);
        assertEquals("\"api.override\";q=5;w=3600", headers.policy);
    }

    @Test
    void override_cachedAnswer_readsTheClockOnce_theStoreDecidesAtTheCachesReading() {
        // Given a policy with overrides whose answers for two keys are cached
        AtomicInteger calls = new AtomicInteger();
        overrides("1h", calls, new String[] {"1000/1h"});
        assertTrue(enforcer.enforce(key("partner-1")).admitted());
        assertTrue(enforcer.enforce(key("someone")).admitted());
        assertEquals(2, calls.get());

        // Then a request with a contract, and one decided by its plan, each read the clock once
        assertEquals(1.0, readsPerRequest(key("partner-1"), 20, true));
        assertEquals(1.0, readsPerRequest(key("someone"), 1, true));

        // And the store decided at the reading the cache was checked at, not at a later one
        clock.jump.set(Duration.ofMinutes(5).toNanos());
        long read = clock.now.get();
        Verdict v = enforcer.enforce(key("partner-1"));
        assertEquals(read, v.first().nanos());
        assertEquals(2, calls.get(), "no lookup: the entry was fresh at that reading");
    }

    @Test
    void override_expiresExactlyAtItsTtl_onTheReadingTheRequestIsDecidedAt() {
        // Given a contract of 3 per hour, cached for 10 s from the lookup's completion
        AtomicInteger calls = new AtomicInteger();
        String[] contract = {"3/1h"};
        overrides("10s", calls, contract);
        long start = clock.now.get();
        assertTrue(enforcer.enforce(key("partner-1")).admitted());
        assertEquals(1, calls.get());
        contract[0] = "6/1h";

        // When the clock stands one nanosecond before the expiry: the cached contract decides
        clock.now.set(start + Duration.ofSeconds(10).toNanos() - 1);
        assertTrue(enforcer.enforce(key("partner-1")).admitted());
        assertTrue(enforcer.enforce(key("partner-1")).admitted());
        assertFalse(enforcer.enforce(key("partner-1")).admitted(), "3 used of the cached 3");
        assertEquals(1, calls.get(), "not looked up before the expiry");

        // Then at the expiry exactly, the key is looked up again and the new contract decides
        clock.advance(1);
        Verdict v = enforcer.enforce(key("partner-1"));
        assertEquals(2, calls.get());
        assertTrue(v.admitted(), "the new contract, 6, less the 3 used");
        RecordingHeaders headers = new RecordingHeaders();
        v.writeHeaders(headers);
        assertEquals("\"api.override\";q=6;w=3600", headers.policy);
    }

    /** Keeps RateLimit-Policy. */
    private static final class RecordingHeaders implements io.github.sluice.request.HeaderSink {
        String policy;

        @Override
        public void header(String name, String value) {
            if (name.equals("RateLimit-Policy")) {
                policy = value;
            }
        }
    }
}
