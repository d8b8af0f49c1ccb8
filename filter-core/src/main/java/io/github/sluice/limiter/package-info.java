/**
 * Standalone limiters, for code that limits one resource without policies, keys or a store (the
 * place of a Guava {@code RateLimiter}, a Bucket4j bucket or a {@code Semaphore}). Above
 * {@code algorithm}: it may use only {@code algorithm}, {@code core} and {@code internal}.
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.limiter.Limiter}: any algorithm over one key;
 *   <li>{@link io.github.sluice.limiter.BlockingLimiter}: Guava's {@code RateLimiter} API
 *       ({@code acquire} that waits, {@code tryAcquire} with a timeout) over any rate algorithm;
 *   <li>{@link io.github.sluice.limiter.TokenBucketLimiter} and its
 *       {@link io.github.sluice.limiter.Reservation}: the {@code golang.org/x/time/rate} API
 *       (allow, reserve and cancel, wait until a deadline, change rate and burst at runtime);
 *   <li>{@link io.github.sluice.limiter.ConcurrencyLimiter} and its
 *       {@link io.github.sluice.limiter.Permit}: a permit per unit of work, released exactly once.
 * </ul>
 *
 * <h2>SPI</h2>
 * None: the types are final.
 *
 * <h2>Thread safety</h2>
 * Every type is thread-safe. {@code Limiter.tryAcquire} is lock-free and allocates nothing;
 * {@code TokenBucketLimiter} reads optimistically and writes under a sequence lock; the
 * concurrency limiter is a {@link java.util.concurrent.Semaphore}.
 */
package io.github.sluice.limiter;
