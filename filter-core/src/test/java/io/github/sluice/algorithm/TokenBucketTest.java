package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Limiter;
import io.github.sluice.core.Outcome;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

    private final FakeClock clock = new FakeClock();

    @Test
    void acquire_freshBucket_startsFullAndDeniesWithRetryAfter() {
        // Given a bucket of 3 tokens refilled at 1 per second
        Limiter<?> limiter = Limiter.of(TokenBucket.of(1, Duration.ofSeconds(1), 3), clock);

        // When 4 tokens are asked for, one at a time, at the same instant
        Decision first = limiter.acquire(1);
        limiter.acquire(1);
        Decision third = limiter.acquire(1);
        Decision fourth = limiter.acquire(1);

        // Then the first 3 pass and the 4th waits a whole interval
        assertEquals(new Decision(Outcome.ALLOWED, 3, 2, 1_000_000_000L, 0, 0), first);
        assertEquals(new Decision(Outcome.ALLOWED, 3, 0, 3_000_000_000L, 0, 0), third);
        assertEquals(new Decision(Outcome.DENIED, 3, 0, 3_000_000_000L, 1_000_000_000L, 0), fourth);
    }

    @Test
    void acquire_costAboveBurst_isRefusedForever() {
        Limiter<?> limiter = Limiter.of(TokenBucket.of(1, Duration.ofSeconds(1), 3), clock);

        Decision d = limiter.acquire(4);

        assertFalse(d.allowed());
        assertFalse(d.retryable());
        assertTrue(limiter.tryAcquire(3), "the refusal must not have taken tokens");
    }

    @Test
    void release_refund_neverExceedsCapacity() {
        Limiter<?> limiter = Limiter.of(TokenBucket.of(1, Duration.ofSeconds(1), 2), clock);
        assertTrue(limiter.tryAcquire(2));

        limiter.release(5);

        assertEquals(2, limiter.acquire(0).remaining());
    }
}
