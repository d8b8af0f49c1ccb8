package io.github.sluice.webflux;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Applies {@link RateLimited} to the handler methods of annotated WebFlux controllers. WebFlux has
 * no handler interceptors, so this web filter asks the application's
 * {@link RequestMappingHandlerMapping} which handler method an exchange goes to (the lookup the
 * {@code DispatcherHandler} makes again afterwards; it is skipped entirely when no handler method
 * is annotated), and applies that method's policies through {@link ExchangeEnforcement}: a denied
 * request gets the filter's denial and the handler does not run; permits are released exactly
 * once when the response completes, fails, or the client goes away. A request that maps to no
 * handler method (404, 405, a CORS pre-flight) passes untouched.
 *
 * <p>Its order is {@link Ordered#LOWEST_PRECEDENCE}: after every other web filter, Spring
 * Security's included, so that a {@code principal} key sees the authenticated user.
 *
 * <p>Thread-safe. The per-request path takes no lock: the selections are in a map filled at
 * start-up.
 */
public final class RateLimitedWebFilter implements WebFilter, Ordered {

    private static final Object UNLIMITED = new Object();

    private final ExchangeEnforcement enforcement;
    private final RequestMappingHandlerMapping mapping;
    /** Each handler method seen: its {@link PolicySet}, or {@link #UNLIMITED}. */
    private final Map<Method, Object> selections = new ConcurrentHashMap<>();
    /** False once {@link #resolveAll()} found no annotated method: requests then skip the lookup. */
    private volatile boolean any = true;

    /**
     * Creates the filter.
     *
     * @param enforcer the enforcer whose policies the annotations name
     * @param mapping the application's request mapping (the {@code DispatcherHandler}'s)
     * @throws NullPointerException if an argument is null
     */
    public RateLimitedWebFilter(Enforcer enforcer, RequestMappingHandlerMapping mapping) {
        this.enforcement = new ExchangeEnforcement(Objects.requireNonNull(enforcer, "enforcer"));
        this.mapping = Objects.requireNonNull(mapping, "mapping");
    }

    /**
     * Resolves the annotation of every handler method the mapping holds, so that a mistake fails
     * the start-up rather than a request. Call it once the mapping is initialised (the starter
     * does, once every singleton exists).
     *
     * @return the policy names the annotations use, in the order met
     * @throws IllegalStateException if an annotation names an unknown policy, a policy twice, no
     *     policy, or a cost above a named policy's limit; the message names the method
     */
    public Set<String> resolveAll() {
        Set<String> named = new LinkedHashSet<>();
        boolean found = false;
        for (HandlerMethod method : mapping.getHandlerMethods().values()) {
            if (selection(method) != null) {
                found = true;
                named.addAll(Arrays.asList(annotation(method).value()));
            }
        }
        any = found;
        return named;
    }

    /**
     * Applies the policies of the exchange's handler method, if it is annotated.
     *
     * @param exchange the exchange
     * @param chain the rest of the chain
     * @return completes when the response is written
     */
    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (!any) {
            return chain.filter(exchange);
        }
        return mapping.getHandler(exchange)
                .map(handler -> handler instanceof HandlerMethod m && selection(m) != null ? selection(m) : UNLIMITED)
                .onErrorReturn(UNLIMITED) // no handler method (a 405, a 406): the dispatcher answers it
                .defaultIfEmpty(UNLIMITED)
                .flatMap(s -> s == UNLIMITED ? chain.filter(exchange)
                        : enforcement.filter(exchange, (PolicySet) s, chain::filter));
    }

    private PolicySet selection(HandlerMethod handler) {
        Object known = selections.get(handler.getMethod());
        if (known == null) {
            known = selections.computeIfAbsent(handler.getMethod(), m -> find(handler));
        }
        return known == UNLIMITED ? null : (PolicySet) known;
    }

    private static RateLimited annotation(HandlerMethod handler) {
        RateLimited a = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RateLimited.class);
        return a != null ? a : AnnotatedElementUtils.findMergedAnnotation(handler.getBeanType(), RateLimited.class);
    }

    private Object find(HandlerMethod handler) {
        RateLimited a = annotation(handler);
        if (a == null) {
            return UNLIMITED;
        }
        try {
            return enforcement.enforcer().select(List.of(a.value()), a.cost());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@RateLimited(" + Arrays.toString(a.value()) + (a.cost() == 0 ? ""
                    : ", cost=" + a.cost()) + ") on " + handler.getBeanType().getName() + "."
                    + handler.getMethod().getName() + ": " + e.getMessage(), e);
        }
    }

    /** @return {@link Ordered#LOWEST_PRECEDENCE}: after every other web filter */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public String toString() {
        return "RateLimitedWebFilter{" + enforcement.enforcer() + ", " + selections.size() + " handler methods}";
    }
}
