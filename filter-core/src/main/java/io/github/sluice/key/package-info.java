/**
 * Who a request counts against: {@link io.github.sluice.key.KeyResolver}s (client address behind
 * trusted proxies, header, principal, attribute, constant, fallback chains, custom functions),
 * IP and CIDR parsing that never consults DNS and never throws, allow-lists, and the bounding of
 * key length.
 */
package io.github.sluice.key;
