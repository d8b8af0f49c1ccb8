package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderOptions;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.http.Verdict;
import io.github.sluice.policy.Policy;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The quick starts of docs/redis.md and README.md, run as written there (the URI comes from the
 * test's server); {@link DocsSnippetsTest} fails if the documents and this code drift apart.
 */
@ExtendWith(RedisServerExtension.class)
class QuickStartTest {

    @Test
    void quickStart_storeAlone(RedisServer redis) {
        String url = redis.uri();
        // docs: store alone (begin)
        try (RedisStore store = RedisStore.builder()
                .uri(url)                                       // e.g. "redis://127.0.0.1:6379"
                .failurePolicy(FailurePolicy.localFallback(4))  // 4 instances share the limits
                .build()) {
            KeySpace perIp = store.keySpace("per-ip", TokenBucket.builder().rate(Rate.perMinute(100)).burst(20).build());
            MutableDecision decision = new MutableDecision();
            if (perIp.acquire("203.0.113.7", 1, decision)) {
                // proceed; decision.remaining() permits are left
            } else {
                // refuse; retry after decision.retryAfterNanos()
            }
        }
        // docs: store alone (end)

        // Then the snippet took one permit in Redis, as another instance sees
        try (RedisStore other = RedisStore.builder().uri(url).build()) {
            MutableDecision peek = new MutableDecision();
            other.keySpace("per-ip", TokenBucket.builder().rate(Rate.perMinute(100)).burst(20).build())
                    .acquire("203.0.113.7", 0, peek);
            assertFalse(peek.degraded());
            assertEquals(19, peek.remaining());
        }
    }

    @Test
    void leaseMode_snippet_decidesFromAShare(RedisServer redis) {
        String url = redis.uri();
        // docs: lease mode (begin)
        RedisStore store = RedisStore.builder()
                .uri(url)                               // e.g. "redis://127.0.0.1:6379"
                .leases(0.01, Duration.ofMillis(100))   // shares of 1 % of each policy's limit, 100 ms at most
                .build();
        // docs: lease mode (end)
        try (store) {
            KeySpace hot = store.keySpace("hot", TokenBucket.builder().rate(Rate.perMinute(100)).burst(10_000).build());
            MutableDecision d = new MutableDecision();
            assertTrue(hot.acquire("203.0.113.7", 1, d));
            assertTrue(hot.acquire("203.0.113.7", 1, d));
            assertTrue(io.github.sluice.redis.internal.ShareSlot.local(d.receipt()), d.toString());
            assertEquals(9_998, d.remaining());
        }
    }

    @Test
    void quickStart_withTheEnforcer_marksDegradedResponses(RedisServer redis) throws Exception {
        String url = redis.uri();
        // docs: with the enforcer (begin)
        RedisStore store = RedisStore.builder()
                .uri(url)
                .failurePolicy(FailurePolicy.failClosed(503))
                .build();
        Enforcer enforcer = Enforcer.builder()
                .store(store)
                .policy(Policy.parse("per-ip = token-bucket 100/1m burst=20 key=ip"))
                .headers(new HeaderOptions(HeaderStyle.DRAFT, false, false, "Sluice-Degraded"))
                .build();
        // ... enforcer.enforce(request) in the adapter; at shutdown:
        // enforcer.close(); store.close();
        // docs: with the enforcer (end)
        try (store; enforcer) {
            // (An overloaded machine may miss the 50 ms timeout: poll for Redis's answer.)
            Verdict[] first = new Verdict[1];
            Load.await("a verdict from Redis", 5_000, () -> {
                first[0] = enforcer.enforce(FakeRequest.get("/"));
                return !first[0].degraded(0);
            });
            Verdict ok = first[0];
            RecordingResponse okResponse = new RecordingResponse();
            ok.writeHeaders(okResponse);
            assertTrue(ok.admitted());
            // 19 left, or a few less if polled calls that timed out still ran in Redis
            String rateLimit = okResponse.headers.get("RateLimit");
            assertTrue(rateLimit.matches("\"per-ip\";r=1[0-9];t=1"), rateLimit);
            assertNull(okResponse.headers.get("Sluice-Degraded"));

            // When Redis goes away, the failure policy answers and the response says so
            redis.kill();
            Verdict down = enforcer.enforce(FakeRequest.get("/"));
            RecordingResponse downResponse = new RecordingResponse();
            down.writeDenial(downResponse, downResponse);
            assertTrue(down.denied());
            assertEquals(503, down.status());
            assertTrue(down.degraded(0));
            assertEquals("\"per-ip\"", downResponse.headers.get("Sluice-Degraded"));
        }
    }
}
