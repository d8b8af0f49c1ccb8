package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Decision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * golang.org/x/time/rate's {@code Limiter}, ported: the answers of {@code Allow}/{@code AllowN},
 * {@code Reserve}/{@code ReserveN} (with {@code Cancel}), {@code Wait}/{@code WaitN},
 * {@code SetLimit}/{@code SetBurst}, {@code Tokens}/{@code TokensAt}, {@code Inf}, a limit of 0 and
 * {@code Every}, reproduced through {@link TokenBucketLimiter} on a manual clock. Cases in the
 * spirit of rate_test.go (written here, not copied); "Porting from x/time/rate" in
 * docs/algorithms.md maps each call.
 */
class XTimeRatePortingTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    private final FakeClock clock = new FakeClock(1_767_225_600L * S);

    private TokenBucketLimiter limiter(double limit, long burst) {
        return TokenBucketLimiter.builder().rate(limit).burst(burst).clock(clock).sleeper(clock::advanceNanos).build();
    }

    @Test
    void allowN_startsFullThenRefillsAtTheLimit() {
        // NewLimiter(10, 3)
        TokenBucketLimiter lim = limiter(10, 3);
        assertTrue(lim.allow(2));
        assertTrue(lim.allow());
        assertFalse(lim.allow(), "empty");
        clock.advanceNanos(100 * MS - 1);
        assertFalse(lim.allow(), "one nanosecond before the token");
        clock.advanceNanos(1);
        assertTrue(lim.allow(), "a token every 100 ms");
        clock.advanceNanos(200 * MS);
        assertTrue(lim.allow(2));
        assertFalse(lim.allow(4), "AllowN above the burst is always false");
        clock.advanceNanos(10 * S);
        assertFalse(lim.allow(4), "even on a full bucket");
        assertEquals(3.0, lim.tokensNow());
    }

    @Test
    void allowN_zeroTokens_trueUnlessInDebt() {
        TokenBucketLimiter lim = limiter(10, 1);
        assertTrue(lim.allow(0));
        assertTrue(lim.reserve(1).ok(), "takes the only token");
        assertTrue(lim.reserve(1).ok(), "a reservation puts the bucket in debt");
        assertFalse(lim.allow(0), "AllowN(0) in debt: the wait would be above zero");
    }

    @Test
    void reserveN_delaysAndTokensAtGoNegative() {
        // NewLimiter(10, 2): two at once, then one every 100 ms, reserved ahead
        TokenBucketLimiter lim = limiter(10, 2);
        long now = clock.nanos();
        assertEquals(0, lim.reserve().delayNanosFrom(now));
        assertEquals(0, lim.reserve().delayNanosFrom(now));
        assertEquals(100 * MS, lim.reserve().delayNanosFrom(now));
        assertEquals(300 * MS, lim.reserve(2).delayNanosFrom(now));
        assertEquals(-3.0, lim.tokensAt(now), 1e-12, "TokensAt reports the debt");
        assertEquals(-1.5, lim.tokensAt(now + 150 * MS), 1e-12, "paid off at the limit");
        assertEquals(0, lim.tokens(), "whole tokens never go below zero");
        Reservation refused = lim.reserve(3);
        assertFalse(refused.ok(), "ReserveN above the burst is not OK");
        assertEquals(Decision.NEVER, refused.delayNanosFrom(now), "x/time/rate's InfDuration");
    }

    @Test
    void cancel_givesBackWhatWasNotReservedBehindIt() {
        TokenBucketLimiter lim = limiter(10, 5);
        assertTrue(lim.reserve(5).ok());
        Reservation second = lim.reserve(2);
        assertEquals(200 * MS, second.delayNanos());
        Reservation third = lim.reserve(1);
        assertEquals(300 * MS, third.delayNanos());
        // Cancelling the second gives back nothing that the third was scheduled behind: 2 - 1 = 1.
        second.cancel();
        assertEquals(-2.0, lim.tokensNow(), 1e-12);
        third.cancel();
        assertEquals(-1.0, lim.tokensNow(), 1e-12, "the last one gives back all it took");
        clock.advanceNanos(400 * MS);
        Reservation late = lim.reserve(1);
        clock.advanceNanos(1);
        double before = lim.tokensNow();
        late.cancel();
        assertEquals(before, lim.tokensNow(), "a reservation whose time has passed gives nothing back");
    }

    @Test
    void waitN_refusesAtOnceWhenTheDeadlineIsTooSoon_takingNothing() throws InterruptedException {
        TokenBucketLimiter lim = limiter(1, 1);
        assertTrue(lim.allow());
        long start = clock.nanos();
        assertFalse(lim.waitFor(1, Duration.ofMillis(999)), "would exceed the context deadline");
        assertEquals(start, clock.nanos(), "did not sleep");
        assertEquals(0.0, lim.tokensNow(), 1e-12, "took nothing");
        assertTrue(lim.waitFor(1, Duration.ofSeconds(1)));
        assertEquals(start + S, clock.nanos(), "slept exactly until the token");
        assertFalse(lim.waitFor(2, Duration.ofDays(1)), "WaitN above the burst fails at once");
    }

    @Test
    void setLimit_advancesUnderTheOldLimitThenSwitches() {
        TokenBucketLimiter lim = limiter(10, 10);
        assertTrue(lim.allow(10));
        clock.advanceNanos(500 * MS);
        lim.setRate(1.0);
        assertEquals(5.0, lim.tokensNow(), 1e-12, "5 earned at 10/s are kept");
        clock.advanceNanos(S);
        assertEquals(6.0, lim.tokensNow(), 1e-12, "then one per second");
        assertEquals(1.0, lim.limit());
        lim.setBurst(2);
        assertEquals(2.0, lim.tokensNow(), 1e-12, "SetBurst caps what is held");
        assertEquals(2, lim.burst());
    }

    @Test
    void inf_allowsEverythingAndIgnoresTheBurst() throws InterruptedException {
        TokenBucketLimiter lim = limiter(TokenBucketLimiter.INF, 1);
        assertTrue(lim.allow(1_000_000));
        Reservation r = lim.reserve(5_000);
        assertTrue(r.ok());
        assertEquals(0, r.delayNanos());
        long start = clock.nanos();
        assertTrue(lim.waitFor(1_000, Duration.ZERO));
        assertEquals(start, clock.nanos());
        assertEquals(TokenBucketLimiter.INF, lim.limit());
        // SetLimit from Inf starts from a full bucket, as x/time/rate's advance does.
        lim.setRate(1.0);
        assertTrue(lim.allow());
        assertFalse(lim.allow());
    }

    @Test
    void every_zeroIsInf_negativeIsRefusedNamingTheInterval() {
        // Every(0) is Inf, as in x/time/rate
        TokenBucketLimiter inf = TokenBucketLimiter.builder().every(Duration.ZERO).burst(1).clock(clock).build();
        assertEquals(TokenBucketLimiter.INF, inf.limit());
        assertTrue(inf.allow(1_000));
        // Every(d < 0) is Inf there too; here it is refused, naming the value (docs/algorithms.md)
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TokenBucketLimiter.builder().every(Duration.ofNanos(-1)));
        assertTrue(e.getMessage().contains("interval") && e.getMessage().contains("-"), e.getMessage());
    }

    @Test
    void zeroLimit_spendsTheInitialBurstAndNeverRefills() throws InterruptedException {
        TokenBucketLimiter lim = limiter(0, 3);
        assertTrue(lim.allow(2));
        assertTrue(lim.allow());
        assertFalse(lim.allow());
        clock.advance(Duration.ofDays(365));
        assertFalse(lim.allow(), "never refilled");
        assertFalse(lim.reserve(1).ok(), "a reservation that could never be met is not OK");
        assertFalse(lim.waitFor(1, Duration.ofDays(1)));
        assertEquals(0.0, lim.tokensNow());
        assertEquals(0.0, lim.limit());
        lim.setRate(2.0);
        clock.advanceNanos(500 * MS);
        assertTrue(lim.allow(), "refills again once the limit is above zero");
    }

    @Test
    void setLimitToZero_keepsWhatIsHeld_fractionIncluded() {
        TokenBucketLimiter lim = limiter(10, 5);
        assertTrue(lim.allow(5));
        clock.advanceNanos(250 * MS);
        lim.setRate(0);
        clock.advance(Duration.ofHours(1));
        assertEquals(2.5, lim.tokensNow(), 1e-12, "time stands still for the bucket");
        assertTrue(lim.allow(2));
        assertFalse(lim.allow());
        lim.setRate(10);
        clock.advanceNanos(50 * MS);
        assertTrue(lim.allow(), "the half token kept plus half a token earned");
    }

    @Test
    void every_isOnePerInterval_andZeroIsInf() {
        TokenBucketLimiter a = TokenBucketLimiter.builder().every(Duration.ofMillis(100)).burst(1).clock(clock).build();
        assertEquals(10.0, a.limit(), 1e-12);
        assertEquals(Rate.perSecond(10).periodNanos() / 10, Rate.every(Duration.ofMillis(100)).periodNanos());
        TokenBucketLimiter b = TokenBucketLimiter.builder().every(Duration.ZERO).burst(1).clock(clock).build();
        assertEquals(TokenBucketLimiter.INF, b.limit());
    }

    @Test
    void doubleLimits_areTheFractionsTheyStandFor() {
        assertEquals(Rate.of(7, Duration.ofMinutes(1)), Rate.perSecond(7 / 60.0));
        assertEquals(Rate.of(1, Duration.ofSeconds(3)), Rate.perSecond(1 / 3.0));
        assertEquals(Rate.of(1, Duration.ofSeconds(10)), Rate.perSecond(0.1));
        assertEquals(Rate.of(5, Duration.ofSeconds(2)), Rate.perSecond(2.5));
        assertEquals(Rate.of(1_000_000_000, Duration.ofSeconds(1)), Rate.perSecond(1e9));
        Expect.illegalArgument("permitsPerSecond must be at most 1e9 per second (one per nanosecond) but was 2.0E9",
                () -> Rate.perSecond(2e9));
        Expect.illegalArgument("permitsPerSecond must be a finite number > 0 but was 0.0", () -> Rate.perSecond(0.0));
    }

    /**
     * The rounding attack: x/time/rate's float64 arithmetic and an interval rounded up both drift
     * from 7 per minute; here the k-th token after the burst is due at exactly
     * {@code ceil(k * 60 s / 7)}, for as long as the limiter runs. (A burst of 2 holds the fraction
     * of a token that a caller asking at whole nanoseconds leaves; a full bucket of 1 would drop
     * it, as x/time/rate's does.)
     */
    @Test
    void sevenPerMinute_tokensAtExactlyCeilOfKSevenths_forever() {
        TokenBucketLimiter lim = limiter(7 / 60.0, 2);
        long start = clock.nanos();
        assertTrue(lim.allow(2));
        for (long k = 1; k <= 70_000; k++) {
            long due = start + (k * 60 * S + 6) / 7;
            clock.set(due - 1);
            assertFalse(lim.allow(), "token " + k + " one nanosecond early");
            clock.set(due);
            assertTrue(lim.allow(), "token " + k + " when due");
        }
        assertEquals(start + 600_000 * S, clock.nanos(), "70,000 tokens in exactly 10,000 minutes");
    }

    /**
     * x/time/rate accepts {@code Limit(1e-10)}: the burst can be spent, and the next token would
     * come in about 317 years. Sluice spends the burst and refills nothing (the wait does not fit
     * in 64-bit nanoseconds), reporting the limit as set.
     */
    @Test
    void tinyLimit_spendsTheBurst_thenRefillsNothingForCenturies() throws InterruptedException {
        TokenBucketLimiter lim = limiter(1e-10, 2);
        assertEquals(1e-10, lim.limit());
        assertTrue(lim.allow());
        assertTrue(lim.allow());
        assertFalse(lim.allow());
        clock.advance(Duration.ofDays(365L * 70));
        assertFalse(lim.allow(), "no token after 70 years");
        assertFalse(lim.reserve(1).ok(), "a reservation beyond what is held is not OK");
        assertFalse(lim.waitFor(1, Duration.ofDays(1)));
        lim.setRate(1.0);
        clock.advanceNanos(S);
        assertTrue(lim.allow(), "refills again at a representable rate");
    }

    @Test
    void tinyLimit_bySetLimitAndEvery_keepsWhatIsHeld() {
        TokenBucketLimiter lim = limiter(10, 3);
        assertTrue(lim.allow(2));
        lim.setRate(Double.MIN_VALUE);
        assertEquals(Double.MIN_VALUE, lim.limit());
        assertTrue(lim.allow(), "the token held is kept");
        clock.advance(Duration.ofDays(365L * 50));
        assertFalse(lim.allow());
        TokenBucketLimiter every = TokenBucketLimiter.builder().every(Duration.ofDays(365L * 100)).burst(1)
                .clock(clock).build();
        assertEquals(1 / (365.0 * 100 * 86_400), every.limit(), 1e-25);
        assertTrue(every.allow());
        clock.advance(Duration.ofDays(365L * 60));
        assertFalse(every.allow());
    }
}
