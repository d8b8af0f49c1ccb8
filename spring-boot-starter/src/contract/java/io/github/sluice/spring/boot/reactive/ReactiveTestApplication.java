package io.github.sluice.spring.boot.reactive;

import io.github.sluice.key.KeyResolver;
import io.github.sluice.webflux.RateLimited;
import java.time.Duration;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** A WebFlux application limited from the test {@code application.yml}: the starter's reactive side. */
@SpringBootApplication
public class ReactiveTestApplication {

    /** @return the resolver {@code key=bean:tenantResolver} names: the {@code X-Tenant} header */
    @Bean
    KeyResolver tenantResolver() {
        return request -> request.header("X-Tenant");
    }

    /** Endpoints limited by the web filter (by path), by the bean key, and by {@code @RateLimited}. */
    @RestController
    static class Endpoints {

        @GetMapping("/hello")
        Mono<String> hello() {
            return Mono.just("hello");
        }

        @GetMapping("/tenant")
        Mono<String> tenant() {
            return Mono.just("tenant");
        }

        @GetMapping("/annotated")
        @RateLimited("per-key")
        Mono<String> annotated() {
            return Mono.just("annotated");
        }

        @GetMapping("/inflight/slow")
        @RateLimited({"inflight", "per-request"})
        Mono<String> slow() {
            return Mono.delay(Duration.ofMillis(50)).thenReturn("slow");
        }

        @GetMapping("/inflight/throw")
        @RateLimited({"inflight", "per-request"})
        Mono<String> fail() {
            return Mono.error(new IllegalStateException("the handler failed"));
        }
    }
}
