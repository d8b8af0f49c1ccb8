package io.github.sluice.webflux;

import io.github.sluice.http.Enforcer;
import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The WebFlux application of the contract tests: annotated controllers and a functional route,
 * behind {@link SluiceWebFilter} and {@link RateLimitedWebFilter}, and a front filter that plays
 * the authentication in front of Sluice (a principal from {@code X-User}, known at once, or from
 * {@code X-Deferred-User}, known only by subscribing as Spring Security's is; the attribute
 * {@code tenant} from {@code X-Tenant}).
 */
@Configuration(proxyBeanMethods = false)
@EnableWebFlux
class TestApp {

    /** Handler entries of the slow kinds ({@code /slow}, {@code /stream}): aborts that reached the application. */
    static final AtomicInteger SLOW_ENTERED = new AtomicInteger();

    /** Requests that reached {@code /gate}, where each waits until the test opens {@link #GATE}. */
    static final AtomicInteger GATE_ENTERED = new AtomicInteger();

    /** What {@code /gate} waits for; a test closes it with a new sink and opens it by completing that. */
    static volatile Sinks.Empty<Void> GATE = Sinks.empty();

    @Bean
    SluiceWebFilter sluiceWebFilter(Enforcer enforcer) {
        return new SluiceWebFilter(enforcer);
    }

    @Bean
    RateLimitedWebFilter rateLimitedWebFilter(Enforcer enforcer, RequestMappingHandlerMapping mapping) {
        return new RateLimitedWebFilter(enforcer, mapping);
    }

    @Bean
    @Order(-200)
    WebFilter front() {
        return new WebFilter() {
            @Override
            public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
                String tenant = exchange.getRequest().getHeaders().getFirst("X-Tenant");
                if (tenant != null) {
                    exchange.getAttributes().put("tenant", tenant);
                }
                String user = exchange.getRequest().getHeaders().getFirst("X-User");
                String deferred = exchange.getRequest().getHeaders().getFirst("X-Deferred-User");
                if (user != null) {
                    Principal p = () -> user;
                    return chain.filter(exchange.mutate().principal(Mono.just(p)).build());
                }
                if (deferred != null) {
                    Principal p = () -> deferred;
                    return chain.filter(exchange.mutate().principal(Mono.defer(() -> Mono.just(p))).build());
                }
                return chain.filter(exchange);
            }
        };
    }

    @Bean
    RouterFunction<ServerResponse> functionalRoutes(Enforcer enforcer) {
        return RouterFunctions.route(RequestPredicates.GET("/fn"), r -> ServerResponse.ok().bodyValue("fn"))
                .filter(SluiceHandlerFilter.of(enforcer, "per-key"))
                .and(RouterFunctions.route(RequestPredicates.GET("/fn-stream"), r -> {
                    SLOW_ENTERED.incrementAndGet();
                    return ServerResponse.ok().body(Flux.interval(Duration.ofMillis(20)).map(i -> "chunk " + i + "\n")
                            .take(50), String.class);
                }).filter(SluiceHandlerFilter.of(enforcer, "per-key")));
    }

    @RestController
    static class Scenarios {

        @PostMapping("/api/login")
        Mono<String> login() {
            return Mono.just("login");
        }

        @GetMapping("/api/reports/{id}")
        Mono<String> report(@PathVariable("id") String id) {
            return Mono.just("report " + id);
        }

        @GetMapping("/ok")
        Mono<String> ok() {
            return Mono.just("ok");
        }

        @GetMapping("/throw")
        Mono<String> fail() {
            return Mono.error(new IllegalStateException("the application failed"));
        }

        @GetMapping("/teapot")
        Mono<String> teapot(ServerWebExchange exchange) {
            exchange.getResponse().setStatusCode(HttpStatusCode.valueOf(418)); // I_AM_A_TEAPOT is deprecated in Spring 7
            return Mono.just("teapot");
        }

        @GetMapping("/slow")
        Mono<String> slow() {
            SLOW_ENTERED.incrementAndGet();
            return Mono.delay(Duration.ofMillis(100)).thenReturn("slow");
        }

        @GetMapping("/gate")
        Mono<String> gate() {
            Sinks.Empty<Void> gate = GATE;
            GATE_ENTERED.incrementAndGet();
            return gate.asMono().thenReturn("gate");
        }

        @GetMapping("/stream")
        Flux<String> stream() {
            SLOW_ENTERED.incrementAndGet();
            return Flux.interval(Duration.ofMillis(10)).map(i -> "chunk " + i + "\n").take(10);
        }

        @GetMapping("/annotated")
        @RateLimited("per-key")
        Mono<String> annotated() {
            return Mono.just("annotated");
        }
    }
}
