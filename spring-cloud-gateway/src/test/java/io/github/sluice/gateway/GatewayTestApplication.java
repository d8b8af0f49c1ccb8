package io.github.sluice.gateway;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/** A gateway in front of the test's own backend: routes from the test's properties, and one in the Java DSL. */
@SpringBootApplication
public class GatewayTestApplication {

    /** @return the gateway's key for RequestRateLimiter: the {@code X-Client} header */
    @Bean
    KeyResolver clientKeyResolver() {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"));
    }

    /** @return {@code /dsl/**} to the backend, limited by {@code per-client} through the Java route DSL */
    @Bean
    RouteLocator dslRoutes(RouteLocatorBuilder routes, SluiceGatewayFilterFactory sluice,
            @Value("${backend}") String backend) {
        return routes.routes()
                .route("dsl", r -> r.path("/dsl/**").filters(f -> f.filter(sluice.policies("per-client"))).uri(backend))
                .build();
    }
}
