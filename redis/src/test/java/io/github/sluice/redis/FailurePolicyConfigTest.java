package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad configuration fails when it is built, with a message naming the parameter and the value. */
class FailurePolicyConfigTest {

    private static String message(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    void failurePolicies_validateTheirParameters() {
        assertEquals("status must be between 400 and 599 but was 200",
                message(() -> FailurePolicy.failClosed(200)));
        assertEquals("instances must be >= 1 but was 0", message(() -> FailurePolicy.localFallback(0)));
        assertEquals(503, FailurePolicy.failClosed().status());
        assertEquals(FailurePolicy.localFallback(3), FailurePolicy.localFallback(3));
        assertEquals("local-fallback(3 instances)", FailurePolicy.localFallback(3).toString());
    }

    @Test
    void builder_badValues_areRefusedWithTheirName() {
        RedisStore.Builder b = RedisStore.builder();
        assertEquals("commandTimeout must be between 1ms and 10s but was 0s",
                message(() -> b.commandTimeout(Duration.ZERO)));
        assertEquals("failureThreshold must be >= 1 but was 0", message(() -> b.failureThreshold(0)));
        assertEquals("denialCacheSize must be between 0 and 1048576 but was -1",
                message(() -> b.denialCacheSize(-1)));
        assertEquals("prefix must be non-empty without ':', '{' or '}' but was 'a:b'",
                message(() -> b.prefix("a:b")));
        assertEquals("keySecret must be at least 16 characters but was 5", message(() -> b.keySecret("short")));
        assertEquals("uri (or cluster) must be set", assertThrows(IllegalStateException.class, b::build).getMessage());
        assertThrows(NullPointerException.class, () -> b.uri(null));
    }
}
