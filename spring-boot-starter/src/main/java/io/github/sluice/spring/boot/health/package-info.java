/**
 * The Sluice health contributor for Spring Boot 4.0 ({@code spring-boot-health}); loaded only when
 * Boot 4.0's health API is on the class path. Boot 3.x uses
 * {@link io.github.sluice.spring.boot.actuate.SluiceHealthIndicator} instead.
 */
package io.github.sluice.spring.boot.health;
