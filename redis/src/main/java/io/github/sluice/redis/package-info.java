/**
 * The distributed store: Sluice's policies shared by every instance of an application through
 * Redis, one Lua script (one round trip) per decision, with a circuit breaker and a failure policy
 * for when Redis does not answer. See {@code docs/redis.md}.
 *
 * <p>It is a {@link io.github.sluice.store.Store} like the in-memory registry, and uses only the
 * {@code core}, {@code algorithm} and {@code store} layers of filter-core: nothing about requests,
 * keys, policies or HTTP, so it serves the enforcer and any other user of the store SPI alike.
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.redis.RedisStore}: built with {@code RedisStore.builder()}, handed
 *       to the enforcer (or used directly through its key spaces), closed at shutdown;
 *   <li>{@link io.github.sluice.redis.FailurePolicy}: fail open, fail closed with a status, or
 *       decide locally with each limit divided by the number of instances.
 * </ul>
 *
 * <h2>SPI</h2>
 * None of its own. The store tells a {@link io.github.sluice.store.StoreListener} (the enforcer's
 * listener is one) when it degrades and recovers.
 *
 * <h2>Thread safety</h2>
 * The store and its key spaces are thread-safe; no request thread waits longer than the command
 * timeout, and listener calls and log lines come from the store's own event thread, one at a
 * time. The Lettuce client is an implementation detail: no exported signature exposes it.
 */
package io.github.sluice.redis;
