package io.github.sluice.example.boot;

import io.github.sluice.spring.boot.web.RateLimited;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Sluice's Spring Boot example: {@code GET /hello} limited per client address by the filter, from
 * {@code application.yml}; {@code GET /hello/annotated} limited per API key by
 * {@code @RateLimited}. Run it with
 * {@code java -jar examples/spring-boot/target/sluice-spring-boot-example.jar --server.port=8080}.
 */
@SpringBootApplication
public class ExampleApplication {

    /** Not instantiated by hand; Spring creates the application's beans. */
    ExampleApplication() {
    }

    /**
     * Starts the application.
     *
     * @param args Spring Boot's command line, e.g. {@code --server.port=8080}
     */
    public static void main(String[] args) {
        SpringApplication.run(ExampleApplication.class, args);
    }

    /** The two endpoints. */
    @RestController
    static class Hello {

        /** @return a greeting; the per-ip policy (match=/hello) allows 5 per 10 s per client */
        @GetMapping("/hello")
        String hello() {
            return "Hello from Sluice\n";
        }

        /** @return a greeting; the per-key policy allows 5 per 10 s per X-Api-Key, else per client */
        @GetMapping("/hello/annotated")
        @RateLimited("per-key")
        String annotated() {
            return "Hello from @RateLimited\n";
        }
    }
}
