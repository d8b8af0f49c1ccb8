package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency.PermitCell;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.testing.ConcurrencyModel;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.Invariants;
import io.github.sluice.testing.ModelCheck;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConcurrencyTest {

    private static final long RETRY = Concurrency.RETRY_AFTER_MILLIS * 1_000_000L;

    private final MutableDecision out = new MutableDecision();

    @Test
    void acquire_upToMaxInFlight_thenDeniedUntilARelease() {
        Concurrency c = Concurrency.of(2);
        PermitCell cell = c.newCell(0);

        c.acquire(cell, 0, 1, out);
        assertEquals(new Decision(Outcome.ALLOWED, 2, 1, 0, 0, 0), out.toDecision());
        c.acquire(cell, 0, 1, out);
        c.acquire(cell, 0, 1, out);
        assertEquals(new Decision(Outcome.DENIED, 2, 0, 0, RETRY, 0), out.toDecision());

        c.release(cell, 0, 1);

        assertEquals(Algorithm.ADMITTED, c.acquire(cell, 0, 1, out));
        assertEquals(2, cell.inFlight());
    }

    @Test
    void acquire_costAboveMax_isRefusedForever() {
        Concurrency c = Concurrency.of(2);
        PermitCell cell = c.newCell(0);

        c.acquire(cell, 0, 3, out);

        assertEquals(new Decision(Outcome.DENIED, 2, 2, 0, Decision.NEVER, 0), out.toDecision());
    }

    @Test
    void release_moreThanHeld_neverGoesBelowZero() {
        Concurrency c = Concurrency.of(2);
        PermitCell cell = c.newCell(0);
        c.acquire(cell, 0, 1, null);

        c.release(cell, 0, 1);
        c.release(cell, 0, 1);
        c.release(cell, 0, 5);

        assertEquals(0, cell.inFlight());
        assertEquals(Algorithm.ADMITTED, c.acquire(cell, 0, 2, null));
        assertEquals(Algorithm.DENIED, c.acquire(cell, 0, 1, null));
    }

    @Test
    void isFresh_onlyWithNoPermitHeld() {
        Concurrency c = Concurrency.of(2);
        PermitCell cell = c.newCell(0);
        c.acquire(cell, 0, 1, null);

        assertFalse(c.isFresh(cell, Long.MAX_VALUE));
        assertFalse(c.retireIfFresh(cell, Long.MAX_VALUE));
        c.release(cell, 0, 1);
        assertTrue(c.retireIfFresh(cell, 0));
        assertEquals(Algorithm.RETIRED, c.acquire(cell, 0, 1, null));
    }

    @Test
    void properties_haveNoWindowAndHandPermitsBack() {
        Concurrency c = Concurrency.builder().maxInFlight(5).maxWait(Duration.ofMillis(30)).build();

        assertTrue(c.concurrency());
        assertEquals(0, c.windowNanos());
        assertEquals(5, c.limit());
        assertEquals(30_000_000L, c.maxWaitNanos());
        assertEquals("concurrency", c.kind());
        assertEquals(c, Concurrency.builder().maxInFlight(5).maxWait(Duration.ofMillis(30)).build());
        assertFalse(c.equals(Concurrency.of(5)));
    }

    @ParameterizedTest
    @CsvSource({"1, 61", "3, 62", "50, 63"})
    void acquire_randomWorkload_matchesSemaphoreModel(long max, long seed) {
        Concurrency c = Concurrency.of(max);

        List<ModelCheck.Event> events = ModelCheck.run(c, new ConcurrencyModel(max, RETRY), seed,
                100_000, 1_000_000, 0.45);

        Invariants.inFlight(events, max);
    }

    @Test
    void builder_badConfiguration_failsNamingTheParameterAndValue() {
        Expect.illegalArgument("maxInFlight must be >= 1 but was 0",
                () -> Concurrency.builder().maxInFlight(0));
        Expect.illegalArgument("maxWait must be >= 0 but was -1ms",
                () -> Concurrency.builder().maxWait(Duration.ofMillis(-1)));
        assertThrows(IllegalStateException.class, () -> Concurrency.builder().build());
        assertThrows(NullPointerException.class, () -> Concurrency.builder().maxWait(null));
    }
}
