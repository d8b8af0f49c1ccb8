package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.request.HeaderSink;
import io.github.sluice.testing.FakeRequest;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What one request allocates on the enforcer's path, counted by the JVM for the test's own thread
 * ({@code com.sun.management.ThreadMXBean}), averaged over many requests after as many for
 * warm-up. The count is exact, not sampled, and no other thread adds to it, so the bounds hold on
 * a loaded machine. They are generous (a few dozen bytes above what the path allocates today) and
 * meaningful: the array-based verdict with per-request header formatting allocated 472 bytes per
 * allowed request and 512 per denial. (Object sizes assume compressed references, the default
 * below a 32 GB heap.)
 */
class VerdictAllocationTest {

    private static final int CALLS = 20_000;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final EnforcerFixture f = new EnforcerFixture();
    private final FakeRequest request = FakeRequest.get("/api/x").peer("192.0.2.33");
    /** Keeps what a request produced reachable, so that no allocation can be optimised away. */
    private Verdict last;
    private final Sink sink = new Sink();

    /** Keeps the values it is given, as a container does. */
    private static final class Sink implements HeaderSink {
        String policy;
        String limit;
        String other;

        @Override
        public void header(String name, String value) {
            switch (name) {
                case "RateLimit-Policy" -> policy = value;
                case "RateLimit" -> limit = value;
                default -> other = value;
            }
        }
    }

    private double bytesPerRequest(Enforcer e) {
        return bytesPerRequest(e, 0);
    }

    /** @param tick nanoseconds the clock advances after each request */
    private double bytesPerRequest(Enforcer e, long tick) {
        Runnable oneRequest = () -> {
            f.clock.advanceNanos(tick);
            last = e.enforce(request);
            last.writeHeaders(sink);
            last.release();
        };
        for (int i = 0; i < CALLS; i++) {
            oneRequest.run();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < CALLS; i++) {
            oneRequest.run();
        }
        return (double) (THREADS.getCurrentThreadAllocatedBytes() - before) / CALLS;
    }

    @Test
    void allowedRequest_fullBucket_allocatesTheVerdictAndItsEntryOnly() {
        // Given one token bucket that refills between requests: every request finds it full
        Enforcer e = f.enforcer("per-ip = token-bucket 1000/1s key=ip");

        double bytes = bytesPerRequest(e, 1_000_000L);

        // Then the verdict (24) and its entry, which is its decision and carries the request's cost
        // (96): RateLimit repeats, and is reused. The target is 128 bytes; 4 more than the 120
        // absorb the counter's own noise, not an object.
        assertTrue(last.admitted());
        assertTrue(bytes <= 124, "bytes per allowed request: " + bytes);
    }

    @Test
    void allowedRequest_drainingWindow_addsOnlyTheRateLimitValue() {
        // Given a fixed window whose remaining count falls at every request
        Enforcer e = f.enforcer("per-ip = fixed-window 1000000000/1h key=ip");

        double bytes = bytesPerRequest(e);

        // Then the verdict and its entry (120), and the RateLimit string (72 for the 27
        // characters of "per-ip";r=999999999;t=3600): nothing else
        assertTrue(last.admitted());
        assertTrue(bytes <= 196, "bytes per allowed request: " + bytes);
    }

    @Test
    void deniedRequest_floodOnOneKey_allocatesNoHeaderText() {
        // Given a bucket of one request a year, drained
        Enforcer e = f.enforcer("per-ip = token-bucket 1/365d key=ip");
        e.enforce(request);

        double bytes = bytesPerRequest(e);

        // Then the verdict and its entry only: RateLimit and Retry-After repeat, and are reused
        assertTrue(last.denied());
        assertTrue(bytes <= 124, "bytes per denied request: " + bytes);
    }

    @Test
    void allowedRequest_threePolicies_formatsNoRateLimitPolicy() {
        // Given two enforced policies and a dry-run one, all applying
        Enforcer e = f.enforcer("per-ip = token-bucket 1000000000/1s key=ip",
                "global = fixed-window 1000000000/1s key=global",
                "trial = token-bucket 1000000000/1s key=ip dry-run=true");

        double bytes = bytesPerRequest(e);

        // Then three entries and decisions, the RateLimit value and its ordering, nothing per policy set
        assertEquals(3, last.size());
        assertTrue(bytes <= 664, "bytes per allowed request: " + bytes);
    }

    @Test
    void allowedRequest_headerCost_allocatesNoMoreThanAConstantCost_butTheAdaptersIterator() {
        // Given a bucket that refills between requests (3 ms: 3 permits), charged by a header the request carries
        Enforcer constant = f.enforcer("per-ip = token-bucket 1000/1s key=ip cost=3");
        // (lower case: FakeRequest lower-cases the name it is asked for, which would allocate)
        Enforcer header = f.enforcer("per-ip = token-bucket 1000/1s key=ip cost=header:x-cost");
        request.header("X-Cost", "3");

        double fixed = bytesPerRequest(constant, 3_000_000L);
        double read = bytesPerRequest(header, 3_000_000L);

        // Then reading the cost adds at most the iterator FakeRequest.headers returns (an
        // ArrayList iterator, 32 bytes), which the reader needs to refuse a second X-Cost line:
        // nothing of Sluice's
        assertEquals(3, last.cost(0));
        assertTrue(last.admitted(), last.toString());
        assertTrue(read <= fixed + 36, "bytes per allowed request: " + read + " against " + fixed + " for cost=3");
    }

    /** As {@link #bytesPerRequest(Enforcer, long)}, through {@link Enforcer#enforceAsync(io.github.sluice.request.RequestView)}. */
    private double bytesPerAsyncRequest(Enforcer e, long tick) {
        Runnable oneRequest = () -> {
            f.clock.advanceNanos(tick);
            // A completed CompletableFuture is its own toCompletableFuture(): read without allocating
            last = e.enforceAsync(request).toCompletableFuture().getNow(null);
            last.writeHeaders(sink);
            last.release();
        };
        for (int i = 0; i < CALLS; i++) {
            oneRequest.run();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < CALLS; i++) {
            oneRequest.run();
        }
        return (double) (THREADS.getCurrentThreadAllocatedBytes() - before) / CALLS;
    }

    @Test
    void enforceAsync_inMemoryStore_allocatesOnlyTheCompletedStageMore() {
        // Given the in-memory store, which decides at once
        Enforcer e = f.enforcer("per-ip = token-bucket 1000/1s key=ip");

        double sync = bytesPerRequest(e, 1_000_000L);
        double async = bytesPerAsyncRequest(e, 1_000_000L);

        // Then the asynchronous path costs the synchronous one plus the completed stage (24 bytes):
        // no dependent stage for the store's decision, decided before enforceAsync returned
        assertTrue(last.admitted());
        assertTrue(async - sync <= 28, "bytes per request: " + async + " async, " + sync + " sync");
    }

    @Test
    void enforceAsync_noPolicyApplies_sharesOneCompletedStage() {
        // Given a request that no policy's match fits
        Enforcer e = f.enforcer("api = token-bucket 1000/1s key=ip match=/other/*");

        // Then every such request gets the very same completed stage, of the shared verdict
        java.util.concurrent.CompletionStage<Verdict> first = e.enforceAsync(request);
        assertSame(first, e.enforceAsync(FakeRequest.get("/elsewhere").peer("192.0.2.34")));
        assertEquals(0, first.toCompletableFuture().join().size());
    }

    @Test
    void rateLimitPolicy_isFormattedOncePerPolicySet() {
        Enforcer e = f.enforcer("per-ip = token-bucket 100/1m key=ip",
                "api = fixed-window 1000/1h key=ip match=/api/*",
                "trial = concurrency 5 key=ip dry-run=true");
        FakeRequest api = FakeRequest.get("/api/x");
        FakeRequest home = FakeRequest.get("/home");

        Sink first = new Sink();
        e.enforce(api).writeHeaders(first);
        Sink second = new Sink();
        e.enforce(api.peer("192.0.2.77")).writeHeaders(second);
        Sink other = new Sink();
        e.enforce(home).writeHeaders(other);

        // The same set of policies gives the very same string, whatever the client
        assertEquals("\"per-ip\";q=100;w=60, \"api\";q=1000;w=3600, \"trial\";q=5;qu=\"concurrent-requests\"",
                first.policy);
        assertSame(first.policy, second.policy);
        // Another set has its own
        assertEquals("\"per-ip\";q=100;w=60, \"trial\";q=5;qu=\"concurrent-requests\"", other.policy);
        Sink again = new Sink();
        e.enforce(home).writeHeaders(again);
        assertSame(other.policy, again.policy);
    }

    @Test
    void rateLimitPolicy_ofASelection_isFormattedOncePerSelection() {
        Enforcer e = f.enforcer("a = token-bucket 10/1s key=ip", "b = fixed-window 50/1m key=ip");
        PolicySet both = e.select(List.of("b", "a"), 2);

        Sink first = new Sink();
        e.enforce(request, both).writeHeaders(first);
        Sink second = new Sink();
        e.enforce(request, both).writeHeaders(second);

        assertEquals("\"b\";q=50;w=60, \"a\";q=10;w=1", first.policy);
        assertSame(first.policy, second.policy);
        assertEquals("\"a\";r=6;t=1, \"b\";r=46;t=60", second.limit);
    }
}
