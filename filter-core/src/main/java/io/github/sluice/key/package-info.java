/**
 * Who a request counts against: {@link io.github.sluice.key.KeyResolver}s (client address behind
 * trusted proxies, header, principal, attribute, constant, fallback chains, custom functions),
 * IP and CIDR parsing that never consults DNS and never throws, and the bounding of key length.
 * Above {@code request}, below {@code policy}: keys are read from a
 * {@link io.github.sluice.request.RequestView} and know nothing of policies or HTTP responses.
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.key.KeyResolvers}: the built-in resolvers, each a value whose
 *       {@code toString()} is its form in the configuration language;
 *   <li>{@link io.github.sluice.key.ClientAddress} and
 *       {@link io.github.sluice.key.ForwardedHeader}: the {@code ip} key, behind trusted proxies;
 *   <li>{@link io.github.sluice.key.Cidr}: IPv4 and IPv6 networks;
 *   <li>{@link io.github.sluice.key.Keys}: the bound on key length, and the digest that replaces
 *       a longer key.
 * </ul>
 *
 * <h2>SPI (for implementers)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.key.KeyResolver}: a custom key (a tenant from a token, say); it
 *       must be fast and thread-safe, and must never throw on request content.
 * </ul>
 *
 * <h2>Thread safety</h2>
 * Every type here is immutable or stateless, and thread-safe. Parsing request content never
 * throws: requests are hostile input.
 */
package io.github.sluice.key;
