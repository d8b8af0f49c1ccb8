package io.github.sluice.webflux;

import io.github.sluice.http.Enforcer;
import java.util.Objects;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * A Spring WebFlux {@link WebFilter} that applies an enforcer's policies to every request, by
 * their {@code match}: the reactive counterpart of the servlet {@code SluiceFilter}, with the same
 * policy language, keys, exempt methods, rate-limit fields and problem bodies. What happens per
 * exchange is {@link ExchangeEnforcement}'s: denied requests get the denial and do not reach the
 * handler; admitted ones get their fields before the handler runs, shaped ones wait on a timer,
 * and concurrency permits are released exactly once when the response completes, fails, or the
 * client goes away.
 *
 * <p>Its {@linkplain #getOrder() order} places it among the application's web filters (Spring
 * Boot sorts {@code WebFilter} beans by it). Spring Security's {@code WebFilterChainProxy} runs at
 * -100: a filter before it ({@link #DEFAULT_ORDER}) refuses floods before any authentication work,
 * and sees no principal; a policy keyed by {@code principal} needs an order above -100, or
 * {@link RateLimited} / {@link SluiceHandlerFilter}, which run in the handler, after every filter.
 *
 * <p>Thread-safe. The enforcer belongs to the caller, who closes it.
 */
public final class SluiceWebFilter implements WebFilter, Ordered {

    /** The default order, -110: before Spring Security's web filter chain (-100), as the servlet filter. */
    public static final int DEFAULT_ORDER = -110;

    private final ExchangeEnforcement enforcement;
    private final int order;

    /**
     * Creates a filter at {@link #DEFAULT_ORDER}.
     *
     * @param enforcer the enforcer; the caller keeps ownership and closes it
     * @throws NullPointerException if {@code enforcer} is null
     */
    public SluiceWebFilter(Enforcer enforcer) {
        this(enforcer, DEFAULT_ORDER);
    }

    /**
     * Creates a filter.
     *
     * @param enforcer the enforcer; the caller keeps ownership and closes it
     * @param order the filter's order among the web filters; lower runs first
     * @throws NullPointerException if {@code enforcer} is null
     */
    public SluiceWebFilter(Enforcer enforcer, int order) {
        this.enforcement = new ExchangeEnforcement(Objects.requireNonNull(enforcer, "enforcer"));
        this.order = order;
    }

    /**
     * Applies the policies to the exchange; see the class description.
     *
     * @param exchange the exchange
     * @param chain the rest of the chain
     * @return completes when the response is written
     */
    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return enforcement.filter(exchange, null, chain::filter);
    }

    /** @return the filter's order among the web filters */
    @Override
    public int getOrder() {
        return order;
    }

    /** @return the enforcer */
    public Enforcer enforcer() {
        return enforcement.enforcer();
    }

    @Override
    public String toString() {
        return "SluiceWebFilter{" + enforcement.enforcer() + ", order=" + order + '}';
    }
}
