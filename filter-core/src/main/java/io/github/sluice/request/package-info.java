/**
 * What an adapter implements to plug a web framework into Sluice: a read-only view of the request,
 * and sinks for the response's header fields and denial body. The layer above {@code store}; it
 * uses nothing else of Sluice. The layers above it ({@code key}, {@code policy}, {@code http}) read
 * requests only through these types, so no framework type reaches the core.
 *
 * <h2>API</h2>
 * None: these are the adapter's side of the contract.
 *
 * <h2>SPI (for adapter implementers)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.request.RequestView}: method, path, header fields, peer address,
 *       principal, attributes; never throws, returns {@code null} for what the container does not
 *       know;
 *   <li>{@link io.github.sluice.request.HeaderSink}: receives formatted header fields;
 *   <li>{@link io.github.sluice.request.BodySink}: receives the bytes of a denial body.
 * </ul>
 * The servlet adapter's {@code ServletRequestView} and the JAX-RS adapter's {@code JaxRsRequest}
 * are the two implementations to read.
 *
 * <h2>Thread safety</h2>
 * Implementations need not be thread-safe: a view and its sinks are used by the thread handling
 * their request.
 */
package io.github.sluice.request;
