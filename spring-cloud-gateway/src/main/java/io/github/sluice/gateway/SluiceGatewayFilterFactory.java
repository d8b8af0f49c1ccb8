package io.github.sluice.gateway;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.webflux.ExchangeEnforcement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The gateway filter {@code Sluice}: applies Sluice policies to a route's exchanges, with the
 * rate-limit fields, problem bodies, shaping on a timer and exactly-once release of the WebFlux
 * adapter ({@link ExchangeEnforcement}).
 *
 * <pre>{@code
 * spring.cloud.gateway.server.webflux.routes:
 *   - id: api
 *     uri: https://backend.example
 *     predicates: [Path=/api/**]
 *     filters: [{name: Sluice, args: {policy: per-key}}]     # or the shortcut: Sluice=per-key
 * }</pre>
 * In the Java route DSL: {@code r.path("/api/**").filters(f -> f.filter(sluice.policies("per-key"))).uri(...)}.
 *
 * <p>{@code policy} names the policies (comma-separated, all or nothing), applied regardless of
 * their {@code match}; without it, the route applies every policy whose {@code match} the request
 * meets. {@code cost} overrides each policy's cost. An unknown name fails the route's
 * construction, naming it. Thread-safe.
 */
public class SluiceGatewayFilterFactory extends AbstractGatewayFilterFactory<SluiceGatewayFilterFactory.Config> {

    private final ExchangeEnforcement enforcement;

    /**
     * Creates the factory.
     *
     * @param enforcer the enforcer whose policies routes name; the caller closes it
     * @throws NullPointerException if {@code enforcer} is null
     */
    public SluiceGatewayFilterFactory(Enforcer enforcer) {
        super(Config.class);
        this.enforcement = new ExchangeEnforcement(Objects.requireNonNull(enforcer, "enforcer"));
    }

    /** @return {@code policy}: the shortcut {@code Sluice=per-key} sets it */
    @Override
    public List<String> shortcutFieldOrder() {
        return List.of("policy");
    }

    /** @return {@code Sluice} */
    @Override
    public String name() {
        return "Sluice";
    }

    /**
     * The filter for one route.
     *
     * @param config the route's arguments
     * @return the filter
     * @throws IllegalArgumentException if {@code policy} names an unknown policy or one twice, or
     *     {@code cost} is above a named policy's limit
     */
    @Override
    public GatewayFilter apply(Config config) {
        String names = config.getPolicy();
        PolicySet selection = null;
        if (names != null && !names.isBlank()) {
            List<String> list = new ArrayList<>();
            for (String n : names.split(",")) {
                list.add(n.strip());
            }
            selection = enforcement.enforcer().select(list, config.getCost());
        }
        return filter(selection, names);
    }

    /**
     * The filter applying the named policies, for the Java route DSL.
     *
     * @param policies policy names, at least one
     * @return the filter
     * @throws IllegalArgumentException if a name is unknown or repeated, or none is given
     */
    public GatewayFilter policies(String... policies) {
        return filter(enforcement.enforcer().select(policies), String.join(",", policies));
    }

    private GatewayFilter filter(PolicySet selection, String names) {
        ExchangeEnforcement e = enforcement;
        return new GatewayFilter() {
            @Override
            public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
                return e.filter(exchange, selection, chain::filter);
            }

            @Override
            public String toString() {
                return "[Sluice policy = '" + (selection == null ? "by match" : names) + "']";
            }
        };
    }

    /** The route's arguments. */
    public static class Config {
        private String policy;
        private long cost;

        /** Creates empty arguments; the gateway binds them. */
        public Config() {
        }

        /** @return the policy names, comma-separated, or {@code null} for the policies by match */
        public String getPolicy() {
            return policy;
        }

        /**
         * @param policy the policy names, comma-separated
         * @return these arguments
         */
        public Config setPolicy(String policy) {
            this.policy = policy;
            return this;
        }

        /** @return the permits one request takes, or 0 for each policy's own cost */
        public long getCost() {
            return cost;
        }

        /**
         * @param cost the permits one request takes from every named policy; 0 for their own
         * @return these arguments
         */
        public Config setCost(long cost) {
            this.cost = cost;
            return this;
        }
    }
}
