package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Outcome;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A policy reuses the {@code RateLimit} member and {@code Retry-After} value it formatted last
 * when a request's numbers are the same. A reused string that carries another request's numbers
 * would tell a client a wrong quota; these tests look for one.
 */
class HeaderReuseTest {

    private static final long SF_MAX = 999_999_999_999_999L;
    private static final long[] EDGES = {0, 1, 2, 9, 10, 11, 19, 99, 100, 101, 110, 999, 1_000, 12_345,
        1L << 31, 999_999_999, 1_000_000_000, SF_MAX - 1, SF_MAX};

    private final EnforcerFixture f = new EnforcerFixture();

    private static Enforcement enforcement(String line) {
        return new Enforcement(null, Policy.parse(line), null, 1, 0);
    }

    /**
     * Every pair of edge numbers, asked for one after the other in both orders (so that each value
     * differs from the one kept before it in {@code r} only, in {@code t} only, or in both), for
     * admissions and denials: the value returned is always the one formatted for these numbers,
     * and a repeat returns the very string kept.
     */
    @Test
    void limitItem_reusesAValueOnlyForItsOwnNumbers() {
        for (String line : new String[] {"per-ip = token-bucket 10/1s key=ip", "slots = concurrency 5 key=ip"}) {
            Enforcement how = enforcement(line);
            for (boolean rOuter : new boolean[] {true, false}) {
                for (long x : EDGES) {
                    for (long y : EDGES) {
                        long r = rOuter ? x : y;
                        long t = rOuter ? y : x;
                        for (boolean denied : new boolean[] {false, true}) {
                            String expected = RateLimitHeaders.limitItem(how, r, t);
                            String first = how.limitItem(r, t, denied, true);
                            assertEquals(expected, first, () -> line + " r=" + r + " t=" + t);
                            assertSame(first, how.limitItem(r, t, denied, true), () -> "repeat of " + first);
                        }
                    }
                }
            }
        }
    }

    @Test
    void retryAfter_reusesAValueOnlyForItsOwnSeconds() {
        Enforcement how = enforcement("per-ip = token-bucket 10/1s key=ip");
        Random random = new Random(42);
        for (int k = 0; k < 10_000; k++) {
            long s = k < EDGES.length ? EDGES[k] : 1 + (random.nextLong(SF_MAX) >> random.nextInt(50));
            long asked = random.nextBoolean() ? s : random.nextBoolean() ? s + 1 : Math.max(1, s / 10);
            how.retryAfter(s);
            assertEquals(Long.toString(asked), how.retryAfter(asked), () -> "after " + s);
        }
    }

    /**
     * Many keys of a fixed window and a token bucket, in every state (full, draining, denied, a
     * new window), interleaved at random: every response's {@code RateLimit} and
     * {@code Retry-After} carry that request's own decision, whatever the policy formatted last.
     */
    @Test
    void interleavedKeys_everyValueCarriesItsOwnRequestsNumbers() {
        Enforcer e = f.enforcer("window = fixed-window 12/10s key=ip");
        Enforcer bucket = f.enforcer("bucket = token-bucket 5/1s key=ip");
        Random random = new Random(7);
        int reused = 0;
        String previous = null;
        for (int i = 0; i < 20_000; i++) {
            Enforcer which = random.nextBoolean() ? e : bucket;
            FakeRequest request = FakeRequest.get("/x").peer("192.0.2." + random.nextInt(6));
            Verdict v = which.enforce(request);
            RecordingResponse r = EnforcerFixture.headers(v);

            Decision d = v.decision(0);
            long t = d.outcome() == Outcome.DENIED ? Math.max(1, ceilSeconds(d.retryAfterNanos()))
                    : ceilSeconds(d.resetNanos());
            String expected = '"' + v.policy(0).name() + "\";r=" + d.remaining() + ";t=" + t;
            assertEquals(expected, r.headers.get("RateLimit"), () -> "request " + v);
            if (v.denied()) {
                assertEquals(Long.toString(Math.max(1, t)), r.headers.get("Retry-After"));
            }
            if (r.headers.get("RateLimit") == previous) {
                reused++;
            }
            previous = r.headers.get("RateLimit");
            f.clock.advanceNanos(random.nextInt(4) == 0 ? random.nextLong(2_000_000_000L) : 0);
        }
        // The reuse is exercised, not bypassed
        assertTrue(reused >= 100, "values reused: " + reused);
    }

    private static long ceilSeconds(long nanos) {
        return nanos <= 0 ? 0 : (nanos - 1) / 1_000_000_000L + 1;
    }

    @Test
    void fullBucket_manyClients_shareOneRateLimitValue() {
        // Given a token bucket that every client uses far below its rate
        Enforcer e = f.enforcer("per-ip = token-bucket 100/1m key=ip");
        RecordingResponse first = EnforcerFixture.headers(e.enforce(FakeRequest.get("/").peer("192.0.2.1")));
        f.clock.advanceNanos(60_000_000_000L);

        // When another client's request finds its bucket full too
        RecordingResponse second = EnforcerFixture.headers(e.enforce(FakeRequest.get("/").peer("192.0.2.2")));

        // Then both carry the very same string
        assertEquals("\"per-ip\";r=99;t=1", second.headers.get("RateLimit"));
        assertSame(first.headers.get("RateLimit"), second.headers.get("RateLimit"));
    }

    @Test
    void floodOnOneKey_reusesRateLimitAndRetryAfter() {
        // Given a drained bucket of one request a minute
        Enforcer e = f.enforcer("per-ip = token-bucket 1/1m key=ip");
        FakeRequest request = FakeRequest.get("/").peer("192.0.2.9");
        e.enforce(request);

        RecordingResponse first = EnforcerFixture.headers(e.enforce(request));
        RecordingResponse second = EnforcerFixture.headers(e.enforce(request));

        assertEquals("60", second.headers.get("Retry-After"));
        assertSame(first.headers.get("Retry-After"), second.headers.get("Retry-After"));
        assertSame(first.headers.get("RateLimit"), second.headers.get("RateLimit"));
        // And a second later, both change
        f.clock.advanceNanos(1_000_000_000L);
        RecordingResponse later = EnforcerFixture.headers(e.enforce(request));
        assertEquals("59", later.headers.get("Retry-After"));
        assertEquals("\"per-ip\";r=0;t=59", later.headers.get("RateLimit"));
    }
}
