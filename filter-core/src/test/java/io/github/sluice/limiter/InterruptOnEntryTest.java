package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every method of every limiter that can wait, called by a thread already interrupted, throws
 * {@link InterruptedException}, consumes the flag and takes nothing, even when no wait would have
 * been needed: x/time/rate's {@code WaitN} on a context already done, and what
 * {@link java.util.concurrent.Semaphore} does.
 */
class InterruptOnEntryTest {

    /** A call of a waiting method on a fresh limiter, and a check that the limiter is still whole. */
    record Case(String method, Waiting call, BooleanSupplier whole) {
        @Override
        public String toString() {
            return method;
        }
    }

    @FunctionalInterface
    interface Waiting {
        void call() throws InterruptedException;
    }

    static Stream<Arguments> waitingMethods() {
        FakeClock clock = new FakeClock();
        TokenBucketLimiter tokens = TokenBucketLimiter.of(
                TokenBucket.builder().rate(Rate.perSecond(10)).burst(3).build(), clock, nanos -> { });
        TokenBucketLimiter tokens2 = TokenBucketLimiter.of(
                TokenBucket.builder().rate(Rate.perSecond(10)).burst(3).build(), clock, nanos -> { });
        ConcurrencyLimiter inFlight = ConcurrencyLimiter.of(2);
        ConcurrencyLimiter inFlight2 = ConcurrencyLimiter.of(2);
        return Stream.of(
                new Case("TokenBucketLimiter.waitUntil", () -> tokens.waitUntil(1, clock.nanos() + 1_000_000_000L),
                        () -> tokens.tokens() == 3),
                new Case("TokenBucketLimiter.waitFor", () -> tokens2.waitFor(1, Duration.ofSeconds(1)),
                        () -> tokens2.tokens() == 3),
                blocking("BlockingLimiter.acquire()", b -> b.acquire()),
                blocking("BlockingLimiter.acquire(permits)", b -> b.acquire(2)),
                blocking("BlockingLimiter.take()", b -> b.take()),
                blocking("BlockingLimiter.take(permits)", b -> b.take(2)),
                blocking("BlockingLimiter.tryAcquire(permits, timeout)", b -> b.tryAcquire(2, Duration.ofSeconds(1))),
                new Case("ConcurrencyLimiter.tryAcquire(timeout)", () -> inFlight.tryAcquire(Duration.ofSeconds(1)),
                        () -> inFlight.available() == 2),
                new Case("ConcurrencyLimiter.tryAcquire(permits, timeout)",
                        () -> inFlight2.tryAcquire(2, Duration.ofSeconds(1)), () -> inFlight2.available() == 2))
                .map(Arguments::of);
    }

    @FunctionalInterface
    interface OnBlocking {
        void call(BlockingLimiter<?> limiter) throws InterruptedException;
    }

    /** A fixed window of 2 per minute: whole if 2 can still be taken at once without waiting. */
    private static Case blocking(String method, OnBlocking call) {
        BlockingLimiter<?> limiter = BlockingLimiter.of(FixedWindow.of(2, Duration.ofMinutes(1)));
        return new Case(method, () -> call.call(limiter), () -> limiter.tryAcquire(2));
    }

    @AfterEach
    void clearTheFlag() {
        Thread.interrupted(); // never leak an interrupt into the next test, whatever happened
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("waitingMethods")
    void waitingMethod_interruptedOnEntry_throwsConsumesTheFlagAndTakesNothing(Case c) {
        // Given a limiter that would admit at once, and a thread already interrupted
        Thread.currentThread().interrupt();

        // When the waiting method is called
        assertThrows(InterruptedException.class, c.call()::call, c.method());

        // Then the flag is consumed and nothing was taken
        assertFalse(Thread.currentThread().isInterrupted(), c.method() + ": the flag is consumed");
        assertTrue(c.whole().getAsBoolean(), c.method() + " took something");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("waitingMethods")
    void waitingMethod_notInterrupted_takesAtOnce(Case c) throws InterruptedException {
        // The same call on a thread not interrupted takes: the check above is not vacuous
        c.call().call();
        assertFalse(c.whole().getAsBoolean(), c.method() + " took nothing when it should have");
    }
}
