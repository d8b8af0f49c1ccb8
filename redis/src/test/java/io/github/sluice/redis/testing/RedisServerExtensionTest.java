package io.github.sluice.redis.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** A missing redis-server fails the build on CI and skips the tests elsewhere. */
class RedisServerExtensionTest {

    @Test
    void missingServer_onCi_isAFailure() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RedisServerExtension.missingServer("true"));
        assertTrue(e.getMessage().contains("CI=true"), e.getMessage());
    }

    @Test
    void missingServer_elsewhere_skipsWithAMessage() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> RedisServerExtension.missingServer(null));
        assertTrue(e.getMessage().contains("apt-get install redis-server"), e.getMessage());
        assertThrows(TestAbortedException.class, () -> RedisServerExtension.missingServer("false"));
    }
}
