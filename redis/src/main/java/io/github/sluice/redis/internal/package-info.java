/**
 * The Redis store's implementation: the Lua script and its bindings to the algorithms, key names,
 * the connection, the circuit breaker, the denial cache, the book of concurrency leases, the
 * event reporter and microsecond arithmetic.
 *
 * <p><b>Not an API.</b> The module does not export this package; its types may change in any
 * release. It sits below {@code io.github.sluice.redis} and never uses it; it uses only
 * filter-core's {@code core}, {@code algorithm} and {@code store} layers.
 *
 * <p>Each type states its own thread safety.
 */
package io.github.sluice.redis.internal;
