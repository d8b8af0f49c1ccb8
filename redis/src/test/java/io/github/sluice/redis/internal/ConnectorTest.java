package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the store says about where Redis is, in logs and toString, never its password. */
class ConnectorTest {

    private static String describe(String uri) {
        try (Connector c = new Connector(uri, Duration.ofMillis(50), Duration.ofSeconds(1))) {
            return c.describe();
        }
    }

    @Test
    void describe_hostAndPort_withoutThePassword() {
        assertEquals("cache.internal:6380", describe("redis://s3cret@cache.internal:6380/2"));
    }

    @Test
    void describe_sentinel_namesTheMaster() {
        assertEquals("sentinel master mymaster",
                describe("redis-sentinel://h1:26379,h2:26379/0#mymaster"));
    }

    @Test
    void async_beforeConnecting_isNull() {
        try (Connector c = new Connector("redis://127.0.0.1:1", Duration.ofMillis(50), Duration.ofSeconds(1))) {
            assertNull(c.async());
        }
    }

    @Test
    void constructor_malformedUri_isRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new Connector("not a uri", Duration.ofMillis(50), Duration.ofSeconds(1)));
    }
}
