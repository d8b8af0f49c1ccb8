package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Regression: the first request of a key used to retire its own fresh cell and spin forever. */
class ShardedRegistryFirstRequestTest {

    @Test
    void acquire_firstRequestOfAKey_isDecided() {
        // Given an empty registry
        KeySpace space = ShardedRegistry.builder().clock(new FakeClock()).build()
                .keySpace("p", TokenBucket.builder().rate(Rate.perSecond(1)).burst(3).build());
        MutableDecision out = new MutableDecision();

        // When a key is seen for the first time, and again
        boolean first = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> space.acquire("k", 1, out));
        boolean peek = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> space.acquire("other", 0, new MutableDecision()));

        // Then both are decided, and the first took its token
        assertTrue(first);
        assertTrue(peek);
        assertEquals(2, out.remaining());
    }
}
