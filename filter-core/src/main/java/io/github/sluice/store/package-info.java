/**
 * Where limiter state lives: the store SPI, and the in-memory store. Policies hold one
 * {@link io.github.sluice.store.KeySpace} each and never know whether their state is in this JVM
 * or shared (the Redis store, module {@code io.github.sluice.redis}, implements the same SPI).
 * Above {@code limiter}, below {@code request}: it may use {@code core}, {@code algorithm},
 * {@code limiter} and {@code internal}, and nothing about requests or HTTP, so that any store
 * serves any user of the SPI (the Redis store itself may use only {@code core},
 * {@code algorithm} and {@code store}).
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.store.ShardedRegistry}: the in-memory store, bounded in keys and
 *       in bytes, with lossless idle eviction; the enforcer's default.
 *   <li>{@link io.github.sluice.store.Inheritance}: what each key keeps when its policy's limit
 *       changes at run time.
 * </ul>
 *
 * <h2>SPI (for implementers)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.store.Store} and {@link io.github.sluice.store.KeySpace}: a new
 *       store returns a key space per policy, decides acquisitions into a
 *       {@link io.github.sluice.core.MutableDecision}, refunds by receipt and releases
 *       concurrency permits, and rebinds a policy changed at run time ({@code Store.rebind}); it may read a key's state without consuming
 *       ({@link io.github.sluice.store.KeySpace#inspect}) and forget it
 *       ({@link io.github.sluice.store.KeySpace#reset}, refused by default);
 *   <li>{@link io.github.sluice.store.EvictionListener}: told when the in-memory store drops a
 *       key;
 *   <li>{@link io.github.sluice.store.StoreListener}: told when a shared store degrades (its
 *       failure policy decides) and recovers. The enforcer's listener extends both, so one object
 *       can hear the enforcer and its store.
 *   <li>{@link io.github.sluice.store.KeyBytes}: the lossless bytes of a key, for a store that
 *       hashes or writes keys, so that two keys never share state.
 *   <li>{@link io.github.sluice.store.StoreLatency}: a fixed-bucket histogram of a shared store's
 *       round trips per operation, returned by {@code Store.latency()}, which the enforcer hands
 *       to its metrics (exported by {@code sluice-micrometer} as {@code sluice.store.latency}).
 *   <li>The asynchronous decision: {@code Store.acquireAllAsync} and {@code KeySpace.acquireAsync}
 *       decide without blocking the calling thread (their defaults decide at once, right for a
 *       store in memory; a remote store overrides them), returning the shared completed stages of
 *       {@link io.github.sluice.store.Decided} whenever nothing had to wait;
 *       {@code Store.acquireInTurn} decides a chain over several stores.
 * </ul>
 *
 * <h2>Thread safety</h2>
 * Stores and key spaces are thread-safe; the in-memory one takes no lock to decide for an existing
 * key. Listeners are called on the threads each store documents and must be thread-safe.
 */
package io.github.sluice.store;
