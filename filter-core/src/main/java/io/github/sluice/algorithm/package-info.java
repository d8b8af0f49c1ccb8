/**
 * The ten limiting algorithms, each an {@link io.github.sluice.core.Algorithm} over its own
 * {@link io.github.sluice.core.Cell}, with the reference semantics in {@code docs/algorithms.md}.
 * Above {@code core}: it may use only {@code core} and {@code internal}.
 *
 * <h2>API (for users)</h2>
 * Each algorithm is an immutable configuration, built with {@code builder()} (bare-noun setters,
 * validated by {@code build()}) or {@code of(...)}, and handed to a
 * {@link io.github.sluice.limiter.Limiter}, a {@link io.github.sluice.store.Store} or a policy:
 * <ul>
 *   <li>{@link io.github.sluice.algorithm.FixedWindow},
 *       {@link io.github.sluice.algorithm.SlidingWindow},
 *       {@link io.github.sluice.algorithm.SlidingLog}: a limit per window;
 *   <li>{@link io.github.sluice.algorithm.TokenBucket}, {@link io.github.sluice.algorithm.Gcra},
 *       {@link io.github.sluice.algorithm.LeakyBucket}: a rate with a burst;
 *   <li>{@link io.github.sluice.algorithm.ShapingLeakyBucket}: requests spaced by delaying them;
 *   <li>{@link io.github.sluice.algorithm.WarmUp}: a rate that ramps up after idleness;
 *   <li>{@link io.github.sluice.algorithm.SmoothBursty}: Guava's default rate limiter, where a
 *       request pays for the previous one and idleness stores up to {@code maxBurst} of permits;
 *   <li>{@link io.github.sluice.algorithm.Concurrency}: requests in flight at once.
 * </ul>
 * {@link io.github.sluice.algorithm.SlidingLogCell} and
 * {@link io.github.sluice.algorithm.WarmUpCell} are public only because they are the state type
 * of their algorithm; they are created by the algorithm, never by users.
 * {@link io.github.sluice.algorithm.Reservable} is implemented by the two Guava algorithms, whose
 * callers may reserve a future ticket; the blocking facade
 * {@link io.github.sluice.limiter.BlockingLimiter} uses it.
 *
 * <h2>SPI</h2>
 * None here: a new algorithm extends {@link io.github.sluice.core.Algorithm} (see
 * {@code docs/architecture.md}, "Adding an algorithm"), and {@code TokenBucket} is the model to
 * copy.
 *
 * <h2>Thread safety</h2>
 * Algorithms are immutable and thread-safe; their decisions are lock-free compare-and-set loops
 * on the cell and allocate nothing.
 */
package io.github.sluice.algorithm;
