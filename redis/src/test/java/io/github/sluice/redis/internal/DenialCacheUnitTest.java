package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import org.junit.jupiter.api.Test;

class DenialCacheUnitTest {

    private static MutableDecision denial(long retryNanos) {
        return new MutableDecision().deny(10, 0, 2 * retryNanos, retryNanos);
    }

    @Test
    void lookup_liveDenial_answersWithTheTimeLeft() {
        DenialCache cache = new DenialCache(16);
        cache.put("k", 1, 1_000, denial(500));
        MutableDecision out = new MutableDecision();

        assertTrue(cache.lookup("k", 1, 1_200, 10, out));

        assertEquals(new Decision(io.github.sluice.core.Outcome.DENIED, 10, 0, 800, 300, 0), out.toDecision());
    }

    @Test
    void lookup_afterRetryAfter_otherKeyOrOtherCost_misses() {
        DenialCache cache = new DenialCache(16);
        cache.put("k", 2, 1_000, denial(500));
        MutableDecision out = new MutableDecision();

        assertFalse(cache.lookup("k", 2, 1_500, 10, out), "expired at its retry-after");
        assertFalse(cache.lookup("other", 2, 1_100, 10, out));
        assertFalse(cache.lookup("k", 1, 1_100, 10, out), "a cheaper request might pass");
    }

    @Test
    void put_neverRetryableOrAdmitted_isNotCached() {
        DenialCache cache = new DenialCache(16);
        cache.put("never", 1, 0, denial(Decision.NEVER));
        cache.put("allowed", 1, 0, new MutableDecision().allow(10, 9, 100));

        assertFalse(cache.lookup("never", 1, 1, 10, new MutableDecision()));
        assertFalse(cache.lookup("allowed", 1, 1, 10, new MutableDecision()));
    }

    @Test
    void capacity_isBoundedWhateverTheNumberOfKeys() {
        DenialCache cache = new DenialCache(100);
        for (int i = 0; i < 10_000; i++) {
            cache.put("k" + i, 1, 0, denial(1_000));
        }
        int hits = 0;
        for (int i = 0; i < 10_000; i++) {
            hits += cache.lookup("k" + i, 1, 1, 10, new MutableDecision()) ? 1 : 0;
        }
        assertEquals(128, cache.capacity());
        assertTrue(hits <= 128, "hits " + hits);
    }

    @Test
    void clear_forgetsEverything() {
        DenialCache cache = new DenialCache(8);
        cache.put("k", 1, 0, denial(1_000));

        cache.clear();

        assertFalse(cache.lookup("k", 1, 1, 10, new MutableDecision()));
    }
}
