/**
 * Sluice in Spring Cloud Gateway (Server WebFlux): the gateway filter {@code Sluice}
 * ({@link io.github.sluice.gateway.SluiceGatewayFilterFactory}), for route configuration and the
 * Java route DSL, and {@link io.github.sluice.gateway.SluiceRateLimiter}, a {@code RateLimiter} the
 * gateway's own {@code RequestRateLimiter} filter can use as it uses {@code RedisRateLimiter}.
 * {@link io.github.sluice.gateway.SluiceGatewayAutoConfiguration} defines both when the
 * application has an {@link io.github.sluice.http.Enforcer} (the Spring Boot starter's). Every
 * exchange goes through {@link io.github.sluice.webflux.ExchangeEnforcement}, as in WebFlux. See
 * {@code docs/gateway.md}.
 */
package io.github.sluice.gateway;
