package io.github.sluice.example.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Cloud Gateway in front of {@code --backend=<url>}: {@code application.yml} routes
 * {@code /get/**} there unchanged, through the {@code Sluice} gateway filter (5 requests per 10 s per
 * client address, the window starting at the client's first request), which adds the
 * {@code RateLimit} fields to the proxied responses.
 */
@SpringBootApplication
public class GatewayExampleApplication {

    /** Not instantiated by hand; Spring creates the application's beans. */
    GatewayExampleApplication() {
    }

    /**
     * Starts the gateway.
     *
     * @param args Spring Boot's command line: {@code --backend=http://localhost:9000}, and e.g.
     *     {@code --server.port=8080}
     */
    public static void main(String[] args) {
        SpringApplication.run(GatewayExampleApplication.class, args);
    }
}
