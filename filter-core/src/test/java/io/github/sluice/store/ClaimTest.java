package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A chain of claims as callers other than the enforcer build it, and the default acquireAll. */
class ClaimTest {

    private final ShardedRegistry registry = ShardedRegistry.builder().clock(new FakeClock()).build();
    private final KeySpace two = registry.keySpace("two", FixedWindow.of(2, Duration.ofMinutes(1)));
    private final KeySpace one = registry.keySpace("one", FixedWindow.of(1, Duration.ofMinutes(1)));

    @Test
    void of_negativeCost_failsNamingTheCostAndTheKeySpace() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Claim.of(two, "k", -1, new MutableDecision(), null));
        assertEquals("cost must be >= 0 but was -1 (key space 'two')", e.getMessage());
    }

    @Test
    void of_nullParts_failNamingTheParameter() {
        MutableDecision d = new MutableDecision();
        assertEquals("space", assertThrows(NullPointerException.class, () -> Claim.of(null, "k", 1, d, null)).getMessage());
        assertEquals("key", assertThrows(NullPointerException.class, () -> Claim.of(two, null, 1, d, null)).getMessage());
        assertEquals("decision", assertThrows(NullPointerException.class, () -> Claim.of(two, "k", 1, null, null)).getMessage());
        assertEquals("claims", assertThrows(NullPointerException.class, () -> registry.acquireAll(null)).getMessage());
    }

    @Test
    void acquireAll_secondClaimDenies_refundsTheFirstAndPeeksTheRest() {
        // Given a chain of three claims whose second space has one permit, already taken
        MutableDecision a = new MutableDecision();
        MutableDecision b = new MutableDecision();
        MutableDecision c = new MutableDecision();
        assertTrue(one.acquire("k", 1, new MutableDecision()));
        Claim third = Claim.of(two, "other", 1, c, null);
        Claim chain = Claim.of(two, "k", 1, a, Claim.of(one, "k", 1, b, third));
        assertSame(third, chain.next().next());

        // When the chain is acquired
        boolean admitted = registry.acquireAll(chain);

        // Then nothing is taken: the first claim's permit came back, the third was only peeked
        assertFalse(admitted);
        assertTrue(a.allowed());
        assertFalse(b.allowed());
        assertEquals(2, c.remaining());
        MutableDecision probe = new MutableDecision();
        two.acquire("k", 0, probe);
        assertEquals(2, probe.remaining(), "the first claim's permit was refunded");
        two.acquire("other", 0, probe);
        assertEquals(2, probe.remaining(), "the third claim took nothing");
    }
}
