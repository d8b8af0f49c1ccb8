package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.Store;
import io.github.sluice.testing.FakeRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * {@code sluice.redis.url}: the starter's {@link RedisStore}, against a real {@code redis-server}
 * this test starts on a free port. Two application contexts (two instances of an application)
 * share the limits; a Redis that goes away, or is down at start-up, makes the health contributor
 * OUT_OF_SERVICE. One contract for every Boot generation: each says where its health API lives.
 */
public abstract class RedisStarterContract {

    private Process redis;
    private int port;
    private Path dir;

    /** @return the generation's health auto-configuration (the rest of the starter's is common) */
    protected abstract Class<?> healthAutoConfiguration();

    /** @return the {@code sluice} health contributor's status code in {@code context} ("UP", ...) */
    protected abstract String healthStatus(ApplicationContext context);

    /** @return the {@code sluice} health contributor's details in {@code context} */
    protected abstract Map<String, Object> healthDetails(ApplicationContext context);

    private WebApplicationContextRunner runner() {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SluiceSettingsAutoConfiguration.class,
                        SluiceAutoConfiguration.class,
                        io.github.sluice.spring.boot.actuate.SluiceActuatorAutoConfiguration.class,
                        healthAutoConfiguration()))
                .withPropertyValues("sluice.listener=none", "sluice.policies.per-client=fixed-window 1/1h key=ip");
    }

    @BeforeEach
    void startRedis() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        dir = Files.createTempDirectory("sluice-boot-redis");
        redis = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!ping()) {
            assertTrue(redis.isAlive() && System.nanoTime() < deadline,
                    () -> "redis-server did not start: " + log());
            Thread.sleep(20);
        }
    }

    @AfterEach
    void stopRedis() throws Exception {
        if (redis != null) {
            redis.destroy();
            redis.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("redis.log"));
        } catch (IOException e) {
            return e.toString();
        }
    }

    private boolean ping() {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] b = new byte[7];
            return in.readNBytes(b, 0, 7) == 7 && new String(b, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException notYet) {
            return false;
        }
    }

    /** A request from one client address. */
    private static RequestView from(String address) {
        return FakeRequest.get("/").peer(address);
    }

    @Test
    void redisUrl_twoInstances_shareTheLimits() {
        String url = "sluice.redis.url=redis://127.0.0.1:" + port;
        runner().withPropertyValues(url).run(first -> runner().withPropertyValues(url).run(second -> {
            Enforcer a = first.getBean(Enforcer.class);
            Enforcer b = second.getBean(Enforcer.class);
            assertTrue(first.getBean(Store.class) instanceof RedisStore, first.getBean(Store.class).toString());
            assertSame(first.getBean(Store.class), a.store());
            assertTrue(a.enforce(from("198.51.100.7")).admitted());
            assertTrue(b.enforce(from("198.51.100.7")).denied(),
                    "the second instance sees the request the first admitted: one limit across instances");
            assertTrue(b.enforce(from("198.51.100.8")).admitted());
        }));
    }

    @Test
    void redisGoesAway_healthIsOutOfService() throws Exception {
        runner().withPropertyValues("sluice.redis.url=redis://127.0.0.1:" + port).run(context -> {
            Enforcer e = context.getBean(Enforcer.class);
            assertTrue(e.enforce(from("198.51.100.9")).admitted());
            assertEquals("UP", healthStatus(context));

            redis.destroy();
            assertTrue(redis.waitFor(10, TimeUnit.SECONDS));
            // The store finds out on the next decisions (a failed call, then its circuit breaker).
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!healthStatus(context).equals("OUT_OF_SERVICE") && System.nanoTime() < deadline) {
                e.enforce(from("198.51.100.10"));
                Thread.sleep(20);
            }
            assertEquals("OUT_OF_SERVICE", healthStatus(context), () -> healthDetails(context).toString());
            assertFalse(healthDetails(context).isEmpty());
        });
    }

    /**
     * The store exists before the enforcer: its "degraded" at start-up must still reach the health
     * contributor (the starter's store listener replays it when the enforcer is built).
     */
    @Test
    void redisDownAtStartUp_healthIsOutOfService() throws Exception {
        redis.destroy();
        assertTrue(redis.waitFor(10, TimeUnit.SECONDS));
        runner().withPropertyValues("sluice.redis.url=redis://127.0.0.1:" + port).run(context -> {
            assertTrue(context.getStartupFailure() == null, () -> String.valueOf(context.getStartupFailure()));
            Enforcer e = context.getBean(Enforcer.class);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!healthStatus(context).equals("OUT_OF_SERVICE") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals("OUT_OF_SERVICE", healthStatus(context), () -> healthDetails(context).toString());
            assertTrue(e.enforce(from("198.51.100.11")).admitted(), "the default failure policy fails open");
        });
    }
}
