package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.redis.RedisStore;
import io.github.sluice.servlet.SluiceFilter;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How the demo reads where Redis is ({@code sluice.redis.url}, the per-deployment form of
 * {@code SLUICE_REDIS_URL}): a server's {@code redis://} URL or a cluster's
 * {@code redis-cluster://} seed nodes; a malformed one fails the deployment with a message naming
 * the setting and the value without its password.
 */
class DemoStoreListenerTest {

    /** A servlet context with one init-param and a map of attributes; nothing else is used. */
    private static ServletContext context(String url, Map<String, Object> attributes) {
        return (ServletContext) Proxy.newProxyInstance(ServletContext.class.getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getInitParameter" -> DemoStoreListener.PARAM.equals(args[0]) ? url : null;
                    case "setAttribute" -> attributes.put((String) args[0], args[1]);
                    case "getAttribute" -> attributes.get((String) args[0]);
                    case "removeAttribute" -> attributes.remove((String) args[0]);
                    case "log" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void clusterUrl_buildsAClusterStore_degradedWhileNoSeedAnswers() throws IOException {
        Map<String, Object> attributes = new HashMap<>();
        int a = closedPort();
        int b = closedPort();
        ServletContext context = context("redis-cluster://127.0.0.1:" + a + ",127.0.0.1:" + b, attributes);
        DemoStoreListener listener = new DemoStoreListener();

        listener.contextInitialized(new ServletContextEvent(context));
        try {
            RedisStore store = assertInstanceOf(RedisStore.class, attributes.get(SluiceFilter.STORE_ATTRIBUTE));
            assertTrue(store.toString().contains("cluster 127.0.0.1:" + a + ",127.0.0.1:" + b), store::toString);
            assertTrue(store.degraded(), "no seed answers: the store starts degraded, the demo still deploys");
        } finally {
            listener.contextDestroyed(new ServletContextEvent(context));
        }
        assertNull(attributes.get(SluiceFilter.STORE_ATTRIBUTE));
    }

    @Test
    void malformedClusterUrl_failsTheDeployment_namingTheSettingAndValueWithoutPassword() {
        Map<String, Object> attributes = new HashMap<>();
        ServletContext context = context("redis-cluster://app:hunter2@10.0.0.1:7000,,10.0.0.2:7001", attributes);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DemoStoreListener().contextInitialized(new ServletContextEvent(context)));

        assertTrue(e.getMessage().startsWith("sluice.redis.url must be a Redis URL such as redis://127.0.0.1:6379,"
                + " or a cluster's seed nodes such as redis-cluster://10.0.0.1:6379,10.0.0.2:6379, but was"
                + " 'redis-cluster://***@10.0.0.1:7000,,10.0.0.2:7001'"), e.getMessage());
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        assertEquals(Map.of(), attributes);
    }
}
