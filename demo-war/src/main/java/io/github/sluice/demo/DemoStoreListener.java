package io.github.sluice.demo;

import io.github.sluice.redis.FailurePolicy;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.store.Store;
import io.github.sluice.store.StoreListener;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/**
 * Chooses where the demo's limits live. Without {@value #ENV} (the default) nothing is set and
 * the servlet filter and the JAX-RS feature each keep their policies in memory. With
 * {@value #ENV}{@code =redis://host:port}, or a Redis Cluster's seed nodes
 * {@value #ENV}{@code =redis-cluster://host:port,host:port,...} (or the context init-param
 * {@value #PARAM}), a {@link RedisStore} is built before any filter or
 * servlet starts and put in the servlet context under {@link SluiceFilter#STORE_ATTRIBUTE}, where
 * the servlet filter finds it and the JAX-RS application passes it to the feature: every policy
 * is then shared by every instance of the demo that uses the same Redis.
 *
 * <p>A malformed URL fails the deployment. An unreachable Redis does not: the store starts
 * degraded and keeps the limits locally (a local fallback with the full limits, the demo being
 * one instance) until Redis answers; responses decided that way carry {@code Sluice-Degraded}.
 * The README's Redis quick start is the marked part of {@link #contextInitialized}.
 */
public final class DemoStoreListener implements ServletContextListener {

    /** The environment variable that names the Redis server. */
    public static final String ENV = "SLUICE_REDIS_URL";
    /**
     * The context init-param that names the Redis server for one deployment (a container's
     * context configuration, or an embedding server); it takes precedence over {@value #ENV}.
     */
    public static final String PARAM = "sluice.redis.url";

    @Override
    public void contextInitialized(ServletContextEvent event) {
        String param = event.getServletContext().getInitParameter(PARAM);
        String name = param != null && !param.isBlank() ? PARAM : ENV;
        String url = name.equals(PARAM) ? param : System.getenv(ENV);
        if (url == null || url.isBlank()) {
            return;
        }
        url = url.strip();
        try {
            StoreListener storeEvents = new StoreEventsToMetrics(event.getServletContext());
            // README: Redis (begin)
            RedisStore store = RedisStore.builder()
                    .uri(url)                                       // e.g. "redis://127.0.0.1:6379"
                    .failurePolicy(FailurePolicy.localFallback(1))  // Redis down: the full limits, locally
                    .listener(storeEvents)                          // degraded, recovered: to the metrics
                    .build();
            event.getServletContext().setAttribute(SluiceFilter.STORE_ATTRIBUTE, store);
            // README: Redis (end)
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(name + " must be a Redis URL such as redis://127.0.0.1:6379, or a"
                    + " cluster's seed nodes such as redis-cluster://10.0.0.1:6379,10.0.0.2:6379, but was '"
                    + redact(url) + "': " + e.getMessage(), e);
        }
        event.getServletContext().log("Sluice demo: every policy is kept in Redis at " + redact(url));
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        // Filters and servlets are destroyed before listeners are told, so nothing uses it now.
        Object store = event.getServletContext().getAttribute(SluiceFilter.STORE_ATTRIBUTE);
        if (store instanceof Store s) {
            event.getServletContext().removeAttribute(SluiceFilter.STORE_ATTRIBUTE);
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
