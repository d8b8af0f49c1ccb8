package io.github.sluice.demo;

import io.github.sluice.redis.FailurePolicy;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.store.Store;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.time.Duration;

/**
 * Chooses where the demo's limits live. Without {@value #ENV} (the default) nothing is set and
 * the servlet filter and the JAX-RS feature each keep their policies in memory. With
 * {@value #ENV}{@code =redis://host:port}, a {@link RedisStore} is built before any filter or
 * servlet starts and put in the servlet context under {@value #STORE_ATTRIBUTE}, where the
 * servlet filter finds it and the JAX-RS application passes it to the feature: every policy is
 * then shared by every instance of the demo that uses the same Redis.
 *
 * <p>A malformed URL fails the deployment. An unreachable Redis does not: the store starts
 * degraded and keeps the limits locally (a local fallback with the full limit, since the demo
 * runs as one instance) until Redis answers.
 */
public final class DemoStoreListener implements ServletContextListener {

    /** The environment variable that names the Redis server. */
    public static final String ENV = "SLUICE_REDIS_URL";
    /** The servlet context attribute the Sluice servlet filter reads its store from. */
    public static final String STORE_ATTRIBUTE = SluiceFilter.STORE_ATTRIBUTE;

    /** Longer than the store's default (50 ms): the demo shares its machine with a build. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    @Override
    public void contextInitialized(ServletContextEvent event) {
        String url = System.getenv(ENV);
        if (url == null || url.isBlank()) {
            return;
        }
        ServletContext context = event.getServletContext();
        Store store;
        try {
            store = RedisStore.builder()
                    .uri(url.strip())
                    .name("sluice-demo")
                    .commandTimeout(COMMAND_TIMEOUT)
                    .failurePolicy(FailurePolicy.localFallback(1))
                    .build();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(ENV + " must be a Redis URL such as redis://127.0.0.1:6379 but was '"
                    + redact(url) + "': " + e.getMessage(), e);
        }
        context.setAttribute(STORE_ATTRIBUTE, store);
        context.log("Sluice demo: every policy is kept in Redis at " + redact(url));
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        Object store = event.getServletContext().getAttribute(STORE_ATTRIBUTE);
        if (store instanceof Store s) {
            event.getServletContext().removeAttribute(STORE_ATTRIBUTE);
            s.close();
        }
    }

    /** The URL without its password, for messages. */
    static String redact(String url) {
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        return scheme >= 0 && at > scheme ? url.substring(0, scheme + 3) + "***@" + url.substring(at + 1) : url;
    }
}
