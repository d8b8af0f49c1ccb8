package io.github.sluice.example.webflux;

import io.github.sluice.webflux.RateLimited;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A Spring WebFlux application on Reactor Netty, limited by Sluice from {@code application.yml}:
 * {@code GET /hello} per client address by the starter's web filter, {@code GET /hello/annotated}
 * per {@code X-Api-Key} by {@code @RateLimited}.
 */
@SpringBootApplication
public class WebFluxExampleApplication {

    /** Not instantiated by hand; Spring creates the application's beans. */
    WebFluxExampleApplication() {
    }

    /**
     * Starts the application.
     *
     * @param args Spring Boot's command line, e.g. {@code --server.port=8080}
     */
    public static void main(String[] args) {
        SpringApplication.run(WebFluxExampleApplication.class, args);
    }

    /** The two endpoints. */
    @RestController
    static class Hello {

        /** @return a greeting; the per-ip policy (match=/hello) allows 5 per 10 s per client */
        @GetMapping("/hello")
        Mono<String> hello() {
            return Mono.just("Hello from Sluice on WebFlux\n");
        }

        /** @return a greeting; the per-key policy allows 5 per 10 s per X-Api-Key, else per client */
        @GetMapping("/hello/annotated")
        @RateLimited("per-key")
        Mono<String> annotated() {
            return Mono.just("Hello from @RateLimited on WebFlux\n");
        }
    }
}
