/**
 * Adaptive concurrency limits: a concurrency limit per key that moves between a minimum and a
 * maximum with the latency and the drops of the requests that end, so that the server keeps its
 * goodput and its latency under overload without a hand-tuned limit (see
 * {@code docs/adaptive.md}). A peer of {@code algorithm}, one layer above it: it may use only
 * {@code core} and {@code internal}.
 *
 * <h2>API (for users)</h2>
 * Immutable configurations, built with {@code builder()} (bare-noun setters validated by
 * {@code build()}), one per rule that moves the limit:
 * <ul>
 *   <li>{@link io.github.sluice.adaptive.Gradient}: the ratio of long-term to short-term
 *       latency (the idea of Netflix's Gradient2);
 *   <li>{@link io.github.sluice.adaptive.Vegas}: the queue estimated from the no-load and the
 *       current latency, kept within bounds (TCP Vegas);
 *   <li>{@link io.github.sluice.adaptive.Aimd}: additive increase per batch, multiplicative
 *       decrease on a drop or a request slower than the objective;
 *   <li>{@link io.github.sluice.adaptive.Bbr}: above a CPU threshold, admits only what the
 *       server has shown it carries, most requests per bucket times the lowest latency (Kratos's
 *       BBR shedding).
 * </ul>
 * {@link io.github.sluice.adaptive.AdaptiveLimit} is their common base and documents admission,
 * samples and partitions; {@link io.github.sluice.adaptive.AdaptiveCell} and
 * {@link io.github.sluice.adaptive.Bbr.BbrCell} are public only as the state types of their
 * algorithms.
 *
 * <h2>SPI</h2>
 * {@link io.github.sluice.adaptive.CpuGauge}: where {@code Bbr} reads the CPU load; the default
 * reads the process CPU load through {@code java.management}, and a test or a container may
 * give its own.
 *
 * <h2>Thread safety</h2>
 * Algorithms are immutable and thread-safe. Admission is one compare-and-set on the cell's word
 * (limit and permits in flight together); a release adds its sample with atomic additions, and
 * the thread that wins the cell's flag recomputes the limit once per batch while the others go
 * on. Nothing takes a lock or allocates on the request path.
 */
package io.github.sluice.adaptive;
