package io.github.sluice.webflux;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Applies named Sluice policies to a Spring WebFlux handler method of an annotated controller,
 * or to every handler method of a controller class; applied by {@link RateLimitedWebFilter}.
 *
 * <pre>{@code
 * @GetMapping("/export")
 * @RateLimited(value = "exports", cost = 5)
 * public Mono<Report> export() { ... }
 * }</pre>
 *
 * <p>The names refer to policies of the application's {@link io.github.sluice.http.Enforcer}; they
 * are applied regardless of their {@code match} (write {@code match=none} for a policy used only
 * through this annotation, so that the {@link SluiceWebFilter} does not apply it by path as well).
 * Every annotated handler method is resolved at start-up ({@link RateLimitedWebFilter#resolveAll()}):
 * an unknown name, a name given twice, or a cost above a policy's limit fails the start-up, naming
 * the method. An annotation on the method replaces the one on its class.
 *
 * <p>For functional routes, {@link SluiceHandlerFilter} does the same. (The Spring Boot starter's
 * {@code io.github.sluice.spring.boot.web.RateLimited} is Spring MVC's.)
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RateLimited {

    /**
     * The policies to apply, all or nothing: if one denies, the permits the others took are given
     * back.
     *
     * @return policy names, at least one
     */
    String[] value();

    /**
     * The permits one request takes from every named policy.
     *
     * @return {@code >= 1}, or {@code 0} (the default) for each policy's own cost
     */
    long cost() default 0;
}
