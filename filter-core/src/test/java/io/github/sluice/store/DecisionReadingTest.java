package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The clock reading a decision is taken at: the in-memory registry records it in every decision
 * ({@link MutableDecision#nanos()}), decides a claim at the reading its request took already
 * ({@link Claim#nanos(Clock)}) when it is a reading of the registry's own clock, and a holder never
 * carries the reading of an earlier decision.
 */
class DecisionReadingTest {

    private static final long MINUTE = Duration.ofMinutes(1).toNanos();

    private final FakeClock clock = new FakeClock();
    private final ShardedRegistry registry = ShardedRegistry.builder().clock(clock).build();
    private final KeySpace one = registry.keySpace("one", FixedWindow.of(1, Duration.ofMinutes(1)));

    /** A claim that took a reading of {@code of} before the store decides it. */
    private record Read(KeySpace space, String key, MutableDecision decision, Clock of, long reading) implements Claim {
        @Override
        public long cost() {
            return 1;
        }

        @Override
        public Claim next() {
            return null;
        }

        @Override
        public long nanos(Clock clock) {
            return clock == of ? reading : MutableDecision.NO_READING;
        }
    }

    @Test
    void acquire_recordsTheReadingItDecidedAt() {
        MutableDecision d = new MutableDecision();
        clock.advanceNanos(12_345);

        assertTrue(one.acquire("k", 1, d));
        assertEquals(clock.nanos(), d.nanos());

        clock.advance(Duration.ofSeconds(1));
        assertFalse(one.acquire("k", 1, d), "the window's one permit is taken");
        assertEquals(clock.nanos(), d.nanos(), "a denial records its reading too");
    }

    @Test
    void allowShapeDeny_clearTheReading_soAHolderNeverCarriesAnEarlierDecisionsReading() {
        MutableDecision d = new MutableDecision();
        assertEquals(MutableDecision.NO_READING, d.nanos());
        assertEquals(MutableDecision.NO_READING, d.at(7).allow(5, 4, 1).nanos());
        assertEquals(MutableDecision.NO_READING, d.at(7).shape(5, 0, 1, 30).nanos());
        assertEquals(MutableDecision.NO_READING, d.at(7).deny(5, 0, 1, 20).nanos());
        assertEquals(7, new MutableDecision().copyFrom(d.at(7)).nanos(), "a copy keeps it");
    }

    @Test
    void retryAfterAndDelay_shareAField_eachReadOnlyForItsOutcome() {
        MutableDecision d = new MutableDecision().shape(5, 0, 100, 30);
        assertEquals(Outcome.SHAPED, d.outcome());
        assertEquals(30, d.delayNanos());
        assertEquals(0, d.retryAfterNanos());
        d.deny(5, 0, 100, 20);
        assertEquals(20, d.retryAfterNanos());
        assertEquals(0, d.delayNanos());
        d.deny(5, 0, 100, 0);
        assertEquals(1, d.retryAfterNanos(), "a denial's retry-after is at least 1 ns");
        d.allow(5, 4, 100);
        assertEquals(0, d.retryAfterNanos());
        assertEquals(0, d.delayNanos());
        MutableDecision copy = new MutableDecision().copyFrom(new MutableDecision().shape(5, 0, 100, 30));
        assertEquals(30, copy.delayNanos());
        assertEquals(0, copy.retryAfterNanos());
        assertEquals(30, copy.toDecision().delayNanos());
    }

    @Test
    void acquireAll_claimWithAReadingOfTheRegistrysClock_isDecidedAtThatReading() {
        // Given a window of one permit a minute, and a request that read the clock in the last
        // nanosecond of a minute, while the clock has since moved into the next minute
        long minuteEnd = (clock.nanos() / MINUTE + 1) * MINUTE - 1;
        clock.set(minuteEnd);
        long read = clock.nanos();
        clock.advanceNanos(1);

        // When two such requests are decided
        MutableDecision first = new MutableDecision();
        MutableDecision second = new MutableDecision();
        boolean a = registry.acquireAll(new Read(one, "k", first, clock, read));
        boolean b = registry.acquireAll(new Read(one, "k", second, clock, read));

        // Then both are decided in the minute of their reading: the first takes its one permit,
        // the second is refused; a reading of the clock now (the next minute) would admit it
        assertTrue(a);
        assertFalse(b);
        assertEquals(read, first.nanos());
        assertEquals(read, second.nanos());
        assertTrue(one.acquire("k", 1, new MutableDecision()), "the next minute has its own permit");
    }

    @Test
    void acquireAll_readingOfAnotherClock_isIgnored_theRegistryReadsItsOwn() {
        long minuteEnd = (clock.nanos() / MINUTE + 1) * MINUTE - 1;
        clock.set(minuteEnd);
        assertTrue(one.acquire("k", 1, new MutableDecision()), "this minute's permit is taken");
        clock.advanceNanos(1);
        Clock other = new FakeClock(minuteEnd);

        MutableDecision d = new MutableDecision();
        assertTrue(registry.acquireAll(new Read(one, "k", d, other, minuteEnd)),
                "decided at the registry's own reading, in the next minute");
        assertEquals(clock.nanos(), d.nanos());
    }
}
