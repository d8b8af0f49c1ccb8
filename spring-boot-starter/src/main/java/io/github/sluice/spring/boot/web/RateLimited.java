package io.github.sluice.spring.boot.web;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Applies named Sluice policies to a Spring MVC handler method, or to every handler method of a
 * controller class.
 *
 * <pre>{@code
 * @GetMapping("/export")
 * @RateLimited(value = "exports", cost = 5)
 * public Report export() { ... }
 * }</pre>
 *
 * <p>The names refer to policies of the application's {@link io.github.sluice.http.Enforcer}
 * ({@code sluice.policies.<name>}); they are applied regardless of their {@code match} (write
 * {@code match=none} for a policy used only through this annotation, so that the filter does not
 * apply it by path as well). Every annotated handler method is resolved once, at start-up: an
 * unknown name, a name given twice, or a cost above a policy's limit fails the start-up, naming
 * the method.
 *
 * <p>An annotation on the method replaces the one on its class. A denied request gets the status,
 * headers and body of the filter's denials, and the handler does not run. Concurrency permits are
 * released exactly once when the request is over, whether the handler returns, throws, or
 * completes asynchronously ({@code DeferredResult}, {@code Callable}, {@code CompletableFuture}),
 * times out, or the client goes away.
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
     * The permits one request takes from every named policy, replacing each policy's own
     * {@code cost=}, also one read from the request ({@code cost=header:}, {@code body},
     * {@code bean:}).
     *
     * @return {@code >= 1}, or {@code 0} (the default) for each policy's own cost, read from the
     *     request if the policy's is
     */
    long cost() default 0;
}
