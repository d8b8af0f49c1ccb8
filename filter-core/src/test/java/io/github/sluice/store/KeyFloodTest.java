package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A flood of distinct keys (spoofed addresses, random API keys) against the hard bound. */
class KeyFloodTest {

    private static final int BOUND = 100_000;
    private static final int KEYS = 5_000_000;

    @Test
    void fiveMillionDistinctKeys_leaveAtMostTheBound_andTheHeapStaysBounded() {
        // Given a policy bounded at 100,000 keys, and a clock that barely moves (no key goes idle)
        FakeClock clock = new FakeClock();
        AtomicLong lossy = new AtomicLong();
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).maxKeys(BOUND).shards(16)
                .listener((policy, key, lossless) -> {
                    if (!lossless) {
                        lossy.incrementAndGet();
                    }
                }).build();
        KeySpace space = registry.keySpace("per-ip",
                TokenBucket.builder().rate(Rate.perMinute(1)).burst(10).build());
        MutableDecision out = new MutableDecision();
        long before = usedHeapAfterGc();

        // When 5,000,000 distinct keys each make one request
        long denied = 0;
        for (int i = 0; i < KEYS; i++) {
            if (!space.acquire("10." + (i >>> 16) + '.' + ((i >>> 8) & 255) + '.' + (i & 255), 1, out)) {
                denied++;
            }
            if ((i & 0xFFFF) == 0) {
                clock.advanceNanos(1 << 20);
                assertTrue(space.size() <= BOUND, "size " + space.size() + " after " + i + " keys");
            }
        }

        // Then at most 100,000 keys are held, every new key was admitted (an old key's history was
        // dropped for it), and the heap holds only about the bounded map
        assertTrue(space.size() <= BOUND, "size " + space.size());
        assertTrue(space.size() > BOUND * 9L / 10, "size " + space.size());
        assertEquals(0, denied);
        assertEquals(KEYS - space.size(), lossy.get());
        long growth = usedHeapAfterGc() - before;
        assertTrue(growth < 64L << 20, "heap grew by " + (growth >> 20) + " MB");
    }

    private static long usedHeapAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }
}
