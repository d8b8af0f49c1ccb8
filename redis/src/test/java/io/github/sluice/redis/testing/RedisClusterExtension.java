package io.github.sluice.redis.testing;

import io.github.sluice.redis.RedisStore;
import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link RedisCluster} for the whole test run, shared by every test class that uses this
 * extension (a cluster costs seconds to start): started by the first of them, kept in the root
 * context, and stopped (its files deleted) when the run ends, whatever the tests did; a JVM
 * shutdown hook stops it too if the run is cut short. Before each test the cluster is checked
 * ready, its keys are deleted and its command statistics reset. Test methods and constructors
 * receive it as a {@link RedisCluster} parameter.
 *
 * <p>Tests that kill nodes start a cluster of their own ({@link RedisCluster#start}) instead.
 *
 * <p>If {@code redis-server} or {@code redis-cli} is not installed, the tests are skipped with a
 * message, except when the environment variable {@code CI} is {@code true}: then it is a failure.
 */
public final class RedisClusterExtension implements BeforeAllCallback, BeforeEachCallback,
        ParameterResolver {

    /** {@code cluster-node-timeout} of the shared cluster: long, so that load never fails a node. */
    static final long NODE_TIMEOUT_MILLIS = 15_000;

    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(RedisClusterExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        RedisCluster c = cluster(context);
        c.awaitReady();
        c.flush();
        c.resetStats();
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == RedisCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        return cluster(e);
    }

    /**
     * Builds and closes one store with a generous connect timeout: the first cluster connection
     * of a JVM spends up to seconds (on a loaded machine) loading the cluster client's classes,
     * and a store whose first connection takes longer than its connect timeout starts degraded,
     * which tests that expect Redis to decide from their first call cannot tell from a failure.
     */
    private static void warmUp(RedisCluster c) {
        try (RedisStore store = RedisStore.builder().uri(c.uri())
                .connectTimeout(Duration.ofSeconds(30))
                // Lettuce's own timeout is the command timeout, and FUNCTION LOAD goes through it
                .commandTimeout(Duration.ofSeconds(10)).build()) {
            if (store.degraded()) {
                c.close();
                throw new IllegalStateException("the cluster did not answer the warm-up: " + store);
            }
        }
    }

    private static RedisCluster cluster(ExtensionContext context) {
        // The root store closes what it holds (an AutoCloseable) when the run ends.
        return context.getRoot().getStore(NS).getOrComputeIfAbsent(RedisCluster.class, k -> {
            try {
                RedisCluster c = RedisCluster.start(NODE_TIMEOUT_MILLIS);
                warmUp(c);
                return c;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the cluster", e);
            }
        }, RedisCluster.class);
    }
}
