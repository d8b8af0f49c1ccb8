package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.http.Enforcer;
import io.github.sluice.spring.boot.outcome.OutcomeApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Counting by outcome through {@code @RateLimited} on Tomcat: the status Spring MVC ends the
 * request with (a handler's, an exception it resolves, the 500 of one it does not, a
 * {@code DeferredResult}'s) keeps or refunds the reservation of a {@code count=401} policy.
 */
class OutcomeCountingStarterTest {

    private static ConfigurableApplicationContext context;
    private static Enforcer enforcer;
    private static HttpClient client;
    private static String base;

    @BeforeAll
    static void start() {
        context = new SpringApplicationBuilder(OutcomeApplication.class)
                .properties("spring.config.name=sluice-outcome-counting")
                .run("--server.port=0", "--sluice.listener=none",
                        "--sluice.policies.login=fixed-window 3/1h key=global match=none count=401",
                        "--sluice.policies.inflight=concurrency 100 key=global match=none");
        enforcer = context.getBean(Enforcer.class);
        client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @BeforeEach
    void fresh() {
        enforcer.reset("global");
    }

    private static int get(String path) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build();
        return client.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** @return what the login policy has charged, once every request has ended */
    private static long charged() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (enforcer.inspect("global", "inflight").remaining() != 100 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertEquals(100, enforcer.inspect("global", "inflight").remaining(), "every request ended");
        return 3 - enforcer.inspect("global", "login").remaining();
    }

    @Test
    void rightPasswordsNeverSpend_theFourthAfterThreeWrongIsRefused() throws Exception {
        for (int i = 0; i < 10; i++) {
            assertEquals(200, get("/login?password=open-sesame"));
        }
        assertEquals(0, charged());
        for (int i = 0; i < 3; i++) {
            assertEquals(401, get("/login?password=guess" + i));
        }
        assertEquals(3, charged());
        assertEquals(429, get("/login?password=open-sesame"));
    }

    @Test
    void exceptionResolvedTo401_isCharged_unresolvedOneCountsAs500() throws Exception {
        assertEquals(401, get("/login/refused"));
        assertEquals(1, charged());
        assertEquals(500, get("/login/throw"));
        assertEquals(1, charged());
    }

    @Test
    void deferredResult_countsItsStatus() throws Exception {
        assertEquals(200, get("/login/deferred?code=200"));
        assertEquals(0, charged());
        assertEquals(401, get("/login/deferred?code=401"));
        assertEquals(1, charged());
    }
}
