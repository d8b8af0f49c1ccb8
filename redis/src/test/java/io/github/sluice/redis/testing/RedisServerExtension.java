package io.github.sluice.redis.testing;

import io.github.sluice.redis.RedisStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@code redis-server} per test class on a free port ({@code --save '' --appendonly
 * no}), flushes it before each test, restarts it if a test killed it, and stops it at the end.
 * Test methods and constructors receive it as a {@link RedisServer} parameter.
 *
 * <p>If {@code redis-server} is not installed, the tests are skipped with a message, except when
 * the environment variable {@code CI} is {@code true}: then it is a failure.
 */
public final class RedisServerExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, ParameterResolver {

    private static final AtomicBoolean WARMED = new AtomicBoolean();
    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(RedisServerExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        String exe = RedisServer.find();
        if (exe == null) {
            missingServer(System.getenv("CI"));
        }
        RedisServer server = new RedisServer(exe);
        server.start();
        context.getStore(NS).put(RedisServer.class, server);
        warmUpOnce(server);
    }

    /**
     * Builds and closes one store per JVM with a generous connect timeout: the first connection
     * of a JVM spends up to seconds (on a loaded machine) loading the client's classes, and a
     * store whose first connection takes longer than its connect timeout starts degraded (then
     * recovers by its probe, see SlowRedisTest), which tests that expect Redis to decide from
     * their first call cannot tell from a failure.
     */
    private static void warmUpOnce(RedisServer server) {
        if (WARMED.compareAndSet(false, true)) {
            try (RedisStore store = RedisStore.builder().uri(server.uri())
                    .connectTimeout(Duration.ofSeconds(30))
                // Lettuce's own timeout is the command timeout, and FUNCTION LOAD goes through it
                .commandTimeout(Duration.ofSeconds(10)).build()) {
                if (store.degraded()) {
                    throw new IllegalStateException("redis-server did not answer the warm-up: " + store);
                }
            }
        }
    }

    /**
     * What a missing redis-server means: a failure on CI, a skip elsewhere.
     *
     * @param ci the value of the environment variable {@code CI}, or {@code null}
     * @throws IllegalStateException when {@code ci} is {@code true}
     * @throws org.opentest4j.TestAbortedException otherwise (the tests are skipped)
     */
    static void missingServer(String ci) {
        String msg = "redis-server is not installed (apt-get install redis-server); the Redis"
                + " store's tests need a real server";
        if ("true".equalsIgnoreCase(ci)) {
            throw new IllegalStateException(msg + " and CI=true forbids skipping them");
        }
        Assumptions.assumeTrue(false, msg + "; skipped (set CI=true to make this a failure)");
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        RedisServer server = server(context);
        server.start();
        server.call("CLIENT", "UNPAUSE");
        server.call("FLUSHALL");
        server.call("SCRIPT", "FLUSH");
        server.call("FUNCTION", "FLUSH");
        server.call("CONFIG", "RESETSTAT");
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        RedisServer server = context.getStore(NS).remove(RedisServer.class, RedisServer.class);
        if (server != null) {
            server.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        return server(e);
    }

    private static RedisServer server(ExtensionContext context) {
        ExtensionContext c = context;
        while (c != null) {
            RedisServer s = c.getStore(NS).get(RedisServer.class, RedisServer.class);
            if (s != null) {
                return s;
            }
            c = c.getParent().orElse(null);
        }
        throw new IllegalStateException("no redis-server started for " + context.getDisplayName());
    }
}
