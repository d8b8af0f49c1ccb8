/**
 * The starter's reactive side: {@link io.github.sluice.spring.boot.reactive.SluiceWebFluxAutoConfiguration}
 * configures {@code sluice-webflux} in Spring WebFlux applications. Loaded only when Spring WebFlux
 * and {@code sluice-webflux} are on the class path.
 */
package io.github.sluice.spring.boot.reactive;
