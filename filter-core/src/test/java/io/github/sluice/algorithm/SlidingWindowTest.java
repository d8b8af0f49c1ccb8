package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.SlidingWindow.SlotCell;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.Invariants;
import io.github.sluice.testing.ModelCheck;
import io.github.sluice.testing.SlidingWindowModel;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SlidingWindowTest {

    private static final long S = 1_000_000_000L;
    /** 2026-01-01T00:00:00Z, a whole minute. */
    private static final long MINUTE_START = 1_767_225_600_000_000_000L;

    private final MutableDecision out = new MutableDecision();

    @Test
    void acquire_windowAdvancesSlotBySlot() {
        // Given 6 per minute over 6 slots of 10 s (seed 000)
        SlidingWindow sw = SlidingWindow.builder().limit(6).window(Duration.ofMinutes(1)).slots(6).build();
        SlotCell cell = sw.newCell(MINUTE_START);

        // When 2 are taken in the first slot and 4 in the third
        fill(sw, cell, MINUTE_START + 5 * S, 2);
        fill(sw, cell, MINUTE_START + 25 * S, 4);

        // Then the window is full until the first slot leaves it, at 60 s
        sw.acquire(cell, MINUTE_START + 59 * S, 1, out);
        assertEquals(new Decision(Outcome.DENIED, 6, 0, 21 * S, S, 0), out.toDecision());
        sw.acquire(cell, MINUTE_START + 60 * S, 2, out);
        assertEquals(new Decision(Outcome.ALLOWED, 6, 0, 60 * S, 0, 0), out.toDecision());
        // and a request of 3 must wait for the third slot to leave as well (at 80 s)
        sw.acquire(cell, MINUTE_START + 61 * S, 3, out);
        assertEquals(new Decision(Outcome.DENIED, 6, 0, 59 * S, 19 * S, 0), out.toDecision());
    }

    private static void fill(SlidingWindow sw, SlotCell cell, long now, int n) {
        for (int i = 0; i < n; i++) {
            assertEquals(Algorithm.ADMITTED, sw.acquire(cell, now, 1, null));
        }
    }

    @Test
    void acquire_costAboveLimit_isRefusedForeverWithoutWriting() {
        SlidingWindow sw = SlidingWindow.builder().limit(3).window(Duration.ofSeconds(3)).slots(3).build();
        SlotCell cell = sw.newCell(MINUTE_START);
        sw.acquire(cell, MINUTE_START, 1, null);
        long before = cell.word();

        sw.acquire(cell, MINUTE_START + 2 * S, 4, out);

        assertEquals(new Decision(Outcome.DENIED, 3, 2, S, Decision.NEVER, 0), out.toDecision());
        assertEquals(before, cell.word());
    }

    @Test
    void isFresh_onceTheWindowHoldsNothing_andRetireIfFreshRetires() {
        SlidingWindow sw = SlidingWindow.builder().limit(3).window(Duration.ofSeconds(3)).slots(3).build();
        SlotCell cell = sw.newCell(MINUTE_START);
        sw.acquire(cell, MINUTE_START, 1, null);
        sw.acquire(cell, MINUTE_START + S, 1, null);

        assertFalse(sw.retireIfFresh(cell, MINUTE_START + 3 * S), "the second slot still counts");
        assertTrue(sw.isFresh(cell, MINUTE_START + 4 * S));
        assertTrue(sw.retireIfFresh(cell, MINUTE_START + 4 * S));
        assertEquals(Algorithm.RETIRED, sw.acquire(cell, MINUTE_START + 4 * S, 1, out));
    }

    @Test
    void refund_whileTheHeadIsInItsSlot_lowersTheHeadsCount() {
        // Given 2 per 2 s in two slots of 1 s, both taken in slot 0
        SlidingWindow sw = SlidingWindow.builder().limit(2).window(Duration.ofSeconds(2)).slots(2).build();
        SlotCell cell = sw.newCell(MINUTE_START);
        sw.acquire(cell, MINUTE_START, 2, out);

        // When the admission is refunded (the clock has meanwhile reached slot 1: irrelevant)
        sw.refund(cell, 2, out.receipt(), () -> MINUTE_START + S);

        // Then both permits are free again
        assertEquals(Algorithm.ADMITTED, sw.acquire(cell, MINUTE_START + S, 2, out));
    }

    @Test
    void refund_afterTheHeadMovedOn_lowersTheFinalCountOfItsOwnSlot() {
        // Given 3 per 2 s in two slots of 1 s: one admission in slot 0, then one in slot 1
        SlidingWindow sw = SlidingWindow.builder().limit(3).window(Duration.ofSeconds(2)).slots(2).build();
        SlotCell cell = sw.newCell(MINUTE_START);
        sw.acquire(cell, MINUTE_START, 1, out);
        long first = out.receipt();
        sw.acquire(cell, MINUTE_START + S, 1, out);

        // When the slot-0 admission is refunded after the head moved to slot 1
        sw.refund(cell, 1, first, () -> MINUTE_START + S);

        // Then slot 0 counts nothing (two more fit now) and slot 1 keeps its permit (in slot 2,
        // whose window is slots 1 and 2, two fit, not three)
        assertEquals(Algorithm.ADMITTED, sw.acquire(cell, MINUTE_START + S, 2, out));
        assertEquals(0, out.remaining());
        assertEquals(Algorithm.ADMITTED, sw.acquire(cell, MINUTE_START + 2 * S, 0, out));
        assertEquals(0, out.remaining(), "slot 1 holds 3: the refund left it alone");
    }

    @Test
    void refund_ofASlotThatLeftEveryWindow_isDropped() {
        // Given 2 per 2 s in two slots: slot 0 took 2, then slots 2 and 3 took 2 (the ring entry
        // of slot 0 now holds slot 2)
        SlidingWindow sw = SlidingWindow.builder().limit(2).window(Duration.ofSeconds(2)).slots(2).build();
        SlotCell cell = sw.newCell(MINUTE_START);
        sw.acquire(cell, MINUTE_START, 2, out);
        long old = out.receipt();
        sw.acquire(cell, MINUTE_START + 2 * S, 1, null);
        sw.acquire(cell, MINUTE_START + 3 * S, 1, null);

        // When slot 0's admission is refunded only now
        sw.refund(cell, 2, old, () -> MINUTE_START + 3 * S);

        // Then nothing is given back: the window of slots 2 and 3 is still full
        assertEquals(Algorithm.DENIED, sw.acquire(cell, MINUTE_START + 3 * S, 1, out));
    }

    @Test
    void acquire_staleReadingBehindTheHead_isRefusedUntilItsReadingReachesTheHeadsSlot() {
        // Given 2 per 2 s in two slots: slot 0 took 2, slot 2 took 1
        SlidingWindow sw = SlidingWindow.builder().limit(2).window(Duration.ofSeconds(2)).slots(2).build();
        SlotCell cell = sw.newCell(MINUTE_START);
        sw.acquire(cell, MINUTE_START, 2, null);
        sw.acquire(cell, MINUTE_START + 2 * S, 1, null);
        long head = cell.word();

        // When a thread that read the clock in slot 1 (its window, slots 0 and 1, is full) decides
        int stale = sw.acquire(cell, MINUTE_START + S + S / 2, 1, out);

        // Then it is refused with a retry-after until slot 2, and nothing is written
        assertEquals(Algorithm.DENIED, stale);
        assertEquals(S / 2, out.retryAfterNanos());
        assertEquals(head, cell.word());
    }

    static Stream<Arguments> configurations() {
        return Stream.of(
                Arguments.of(10L, Duration.ofSeconds(1), 10, 31L),
                Arguments.of(6L, Duration.ofMinutes(1), 6, 32L),
                Arguments.of(1L, Duration.ofMillis(5), 1, 33L),
                Arguments.of(100L, Duration.ofSeconds(7), 7, 34L),
                Arguments.of(50L, Duration.ofNanos(1_000_003), 64, 35L));
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void acquire_randomWorkload_matchesSlotModel(long limit, Duration window, int slots, long seed) {
        SlidingWindow sw = SlidingWindow.builder().limit(limit).window(window).slots(slots).build();
        long slot = (window.toNanos() + slots - 1) / slots;

        ModelCheck.run(sw, new SlidingWindowModel(limit, slot, slots), seed, 100_000, slot, 0.1);
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void acquire_randomWorkload_neverAdmitsMoreThanTheLimitPerWindowOfSlots(long limit,
            Duration window, int slots, long seed) {
        SlidingWindow sw = SlidingWindow.builder().limit(limit).window(window).slots(slots).build();
        long slot = (window.toNanos() + slots - 1) / slots;

        // Refunds included: the admissions that stay never exceed the limit per window of slots
        List<ModelCheck.Event> admitted = ModelCheck.run(sw,
                new SlidingWindowModel(limit, slot, slots), seed + 100, 100_000, slot, 0.2);

        Invariants.slidingWindows(admitted, limit, slot, slots);
    }

    /**
     * A reading 2^64 ns before the head's slot (a clock that wrapped from {@code Long.MAX_VALUE}
     * to {@code Long.MIN_VALUE}) lies, in wrapping arithmetic, a few nanoseconds after the head
     * slot's start; it is a stale reading far before the head, refused without writing, never
     * counted in the head's slot.
     */
    @Test
    void acquire_readingThatWrappedAroundTheClocksRange_isStaleNotInTheHeadsSlot() {
        SlidingWindow sw = SlidingWindow.builder().limit(5).window(Duration.ofNanos(100)).build();
        SlotCell cell = sw.newCell(Long.MAX_VALUE); // slot start Long.MAX_VALUE - 7
        assertEquals(Algorithm.ADMITTED, sw.acquire(cell, Long.MAX_VALUE, 1, out));
        long head = cell.word();

        for (long wrapped = Long.MIN_VALUE; wrapped < Long.MIN_VALUE + 12; wrapped++) {
            assertEquals(Algorithm.DENIED, sw.acquire(cell, wrapped, 1, out), "reading " + wrapped);
            assertEquals(head, cell.word());
        }
    }

    static Stream<Arguments> clockRanges() {
        return Stream.of(
                Arguments.of(Long.MIN_VALUE + 3, 7L, 41L), // the origin slot's start lies below the clock's range
                Arguments.of(-5 * S - 1, 10L, 42L), // negative readings: floor, not truncation
                Arguments.of(0L, 1L, 43L),
                Arguments.of(MINUTE_START, 10L, 44L),
                Arguments.of(Long.MAX_VALUE - 5_000 * S, 6L, 45L)); // slot starts near the top of the range
    }

    /**
     * The slot of a reading is found by comparing it with the head slot's start rather than by
     * dividing; readings exactly at, just before and just after the boundaries of the head's slot,
     * the next one and the one after, plus jumps of whole windows, over the whole clock range
     * (origins whose slot start does not fit in a long, negative readings, readings near
     * {@code Long.MAX_VALUE}), must give the reference model's decisions.
     */
    @ParameterizedTest
    @MethodSource("clockRanges")
    void acquire_readingsOnSlotBoundariesOverTheWholeClockRange_matchSlotModel(long first, long limit,
            long seed) {
        long window = 3 * S + 7; // 10 slots of 300,000,001 ns: no boundary is a round number
        SlidingWindow sw = SlidingWindow.builder().limit(limit).window(Duration.ofNanos(window)).build();
        long slot = sw.slotNanos();
        SlidingWindowModel model = new SlidingWindowModel(limit, slot, sw.slots());
        SlotCell cell = sw.newCell(first);
        java.util.Random random = new java.util.Random(seed);
        long now = first;
        for (int i = 0; i < 20_000; i++) {
            long next = Math.floorDiv(now, slot) * slot + slot; // the start of the next slot
            long to = switch (random.nextInt(9)) {
                case 0 -> now;
                case 1 -> next - 1;
                case 2 -> next;
                case 3 -> next + 1;
                case 4 -> next + slot - 1;
                case 5 -> next + slot;
                case 6 -> next + 2 * slot - 1;
                case 7 -> now + window * (1 + random.nextInt(3));
                default -> now + Math.floorMod(random.nextLong(), slot);
            };
            if (to < now || to > Long.MAX_VALUE - 4 * window) {
                break; // the top of the clock's range is reached
            }
            now = to;
            long cost = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt((int) limit);
            Decision expected = model.acquire(now, cost);
            int result = sw.acquire(cell, now, cost, out);
            final long t = now;
            final int op = i;
            assertEquals(expected, out.toDecision(), () -> "operation " + op + " at " + t);
            assertEquals(expected.allowed(), result == Algorithm.ADMITTED);
        }
    }

    @Test
    void builder_badConfiguration_failsNamingTheParameterAndValue() {
        Expect.illegalArgument("slots must be between 1 and 1024 but was 0",
                () -> SlidingWindow.builder().slots(0));
        Expect.illegalArgument("slots must be between 1 and 1024 but was 1025",
                () -> SlidingWindow.builder().slots(1025));
        Expect.illegalArgument("window must be > 0 but was 0s",
                () -> SlidingWindow.builder().window(Duration.ZERO));
        Expect.illegalArgument("limit must be >= 1 but was -5", () -> SlidingWindow.builder().limit(-5));
        Expect.illegalArgument("window must be at least 10ns (one per slot) but was 9ns",
                () -> SlidingWindow.of(1, Duration.ofNanos(9)));
        Expect.illegalArgument("limit must be at most 127 for a slot of 100ns but was 128"
                        + " (one word per key holds the count and 146 years of slots)",
                () -> SlidingWindow.of(128, Duration.ofNanos(1000)));
        assertThrows(IllegalStateException.class, () -> SlidingWindow.builder().limit(1).build());
        assertEquals(10, SlidingWindow.builder().limit(1).window(Duration.ofSeconds(1)).build().slots());
    }

    @Test
    void slotNanos_windowNotAMultipleOfSlots_roundsTheSlotUp() {
        SlidingWindow sw = SlidingWindow.builder().limit(10).window(Duration.ofSeconds(1)).slots(3).build();

        assertEquals(333_333_334L, sw.slotNanos());
        assertEquals(S, sw.windowNanos());
        assertEquals(SlidingWindow.builder().limit(10).window(Duration.ofSeconds(1)).slots(3).build(), sw);
        assertEquals("sliding-window", sw.kind());
    }
}
