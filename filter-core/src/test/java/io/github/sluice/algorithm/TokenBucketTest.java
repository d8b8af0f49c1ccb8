package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import io.github.sluice.limiter.Limiter;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.Invariants;
import io.github.sluice.testing.ModelCheck;
import io.github.sluice.testing.TokenBucketModel;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TokenBucketTest {

    private final FakeClock clock = new FakeClock();

    @Test
    void acquire_freshBucket_startsFullAndDeniesWithRetryAfter() {
        // Given a bucket of 3 tokens refilled at 1 per second
        Limiter<?> limiter = Limiter.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(3).build(), clock);

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
        Limiter<?> limiter = Limiter.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(3).build(), clock);

        Decision d = limiter.acquire(4);

        assertFalse(d.allowed());
        assertFalse(d.retryable());
        assertTrue(limiter.tryAcquire(3), "the refusal must not have taken tokens");
    }

    @Test
    void refund_atOnce_givesTheTokensBackButNeverAboveCapacity() {
        Limiter<?> limiter = Limiter.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build(), clock);
        MutableDecision out = new MutableDecision();
        assertTrue(limiter.acquire(2, out));

        limiter.refund(5, out.receipt());

        assertEquals(2, limiter.acquire(0).remaining());
    }

    @Test
    void refund_afterPartOfItRefilled_givesBackOnlyWhatTimeHasNotAlready() {
        // Given a burst of 2, one token a second: 2 taken at 0 s; at 1 s one token has come back
        // and another request takes it
        Limiter<?> limiter = Limiter.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build(), clock);
        MutableDecision first = new MutableDecision();
        assertTrue(limiter.acquire(2, first));
        clock.advance(Duration.ofSeconds(1));
        assertTrue(limiter.tryAcquire(1));

        // When the first admission is refunded at 1 s
        limiter.refund(2, first.receipt());

        // Then one token is back, not two: without the first admission the bucket would have been
        // full (2) at 1 s, and the second request would have left 1
        assertTrue(limiter.tryAcquire(1));
        assertFalse(limiter.tryAcquire(1), "the refund gave back tokens time had already refilled");
    }

    @Test
    void refund_afterTheBucketRefilledAndWasEmptiedAgain_givesNothingBack() {
        // Given a burst of 2: 2 taken at 0 s; at 2 s the bucket is full again and 2 are taken
        Limiter<?> limiter = Limiter.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build(), clock);
        MutableDecision first = new MutableDecision();
        assertTrue(limiter.acquire(2, first));
        clock.advance(Duration.ofSeconds(2));
        assertTrue(limiter.tryAcquire(2));

        // When the first admission is refunded only now
        limiter.refund(2, first.receipt());

        // Then nothing comes back: 2 already went at 2 s, as much as the burst allows at once
        assertFalse(limiter.tryAcquire(1));
    }

    @Test
    void refund_withNoReceipt_givesNothingBack() {
        Limiter<?> limiter = Limiter.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build(), clock);
        assertTrue(limiter.tryAcquire(2));

        limiter.refund(2, MutableDecision.NO_RECEIPT);
        limiter.release(2);

        assertFalse(limiter.tryAcquire(1), "release is the end of a request: a rate limit ignores it");
    }

    static Stream<Arguments> configurations() {
        return Stream.of(
                Arguments.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(3).build(), 41L),
                Arguments.of(TokenBucket.builder().rate(Rate.perSecond(10)).burst(1).build(), 42L),
                Arguments.of(TokenBucket.builder().rate(0.7692307692307693).burst(20).build(), 43L),
                Arguments.of(TokenBucket.builder().rate(Rate.of(3, Duration.ofMillis(1))).burst(100).build(), 44L));
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void acquire_randomWorkload_matchesTokenBucketModel(TokenBucket bucket, long seed) {
        ModelCheck.run(bucket, TokenBucketModel.exact(bucket.rate(), bucket.burst()), seed,
                100_000, bucket.intervalNanos(), 0.1);
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void acquire_randomWorkload_neverAdmitsMoreThanBurstPlusRefill(TokenBucket bucket, long seed) {
        // Refunds included: the admissions that stay never exceed the burst plus the refill
        List<ModelCheck.Event> admitted = ModelCheck.run(bucket,
                TokenBucketModel.exact(bucket.rate(), bucket.burst()), seed + 100, 100_000,
                bucket.intervalNanos(), 0.2);

        Invariants.bucket(admitted, bucket.burst(), bucket.rate().periodNanos(), bucket.rate().permits());
    }

    @Test
    void builder_badConfiguration_failsNamingTheParameterAndValue() {
        Expect.illegalArgument("rate must be a finite number > 0 but was NaN",
                () -> TokenBucket.builder().rate(Double.NaN));
        Expect.illegalArgument("rate must be a finite number > 0 but was Infinity",
                () -> TokenBucket.builder().rate(Double.POSITIVE_INFINITY));
        Expect.illegalArgument("rate must be a finite number > 0 but was 0.0",
                () -> TokenBucket.builder().rate(0.0));
        Expect.illegalArgument("rate must be a finite number > 0 but was -1.0",
                () -> TokenBucket.builder().rate(-1.0));
        Expect.illegalArgument("permits must be >= 1 but was 0",
                () -> TokenBucket.builder().rate(Rate.perSecond(0)));
        Expect.illegalArgument("burst must be >= 1 but was 0", () -> TokenBucket.builder().burst(0));
        Expect.illegalArgument("rate must be at most 1 permit per nanosecond (1 per 1ns) but was 2 per 1ns",
                () -> TokenBucket.builder().rate(Rate.of(2, Duration.ofNanos(1))));
        Expect.illegalArgument("burst * interval would overflow: at most 26687d (about 73 years) fits,"
                        + " and it would be about 41666666667d",
                () -> TokenBucket.builder().rate(Rate.perHour(1)).burst(1_000_000_000_000L).build());
    }
}
