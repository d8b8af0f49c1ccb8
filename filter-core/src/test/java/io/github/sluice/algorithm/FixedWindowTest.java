package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow.Alignment;
import io.github.sluice.algorithm.FixedWindow.WindowCell;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.FixedWindowModel;
import io.github.sluice.testing.Invariants;
import io.github.sluice.testing.ModelCheck;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FixedWindowTest {

    private static final long S = 1_000_000_000L;
    /** 2026-01-01T00:00:00Z, a whole minute. */
    private static final long MINUTE_START = 1_767_225_600_000_000_000L;

    private final MutableDecision out = new MutableDecision();

    @Test
    void acquire_epochAligned_windowsStartOnTheMinuteForEveryKey() {
        // Given 3 per minute, epoch-aligned, and a key first seen 40 s into a minute
        FixedWindow fw = FixedWindow.of(3, Duration.ofMinutes(1));
        long t = MINUTE_START + 40 * S;
        WindowCell cell = fw.newCell(t);

        // When it uses its quota
        fw.acquire(cell, t, 1, out);
        assertEquals(new Decision(Outcome.ALLOWED, 3, 2, 20 * S, 0, 0), out.toDecision());
        fw.acquire(cell, t, 1, out);
        fw.acquire(cell, t, 1, out);

        // Then the third admission is go-zero's HitQuota (allowed, nothing remaining), the fourth
        // is OverQuota until the minute ends, and the next minute starts afresh
        assertEquals(new Decision(Outcome.ALLOWED, 3, 0, 20 * S, 0, 0), out.toDecision());
        fw.acquire(cell, t + 19 * S, 1, out);
        assertEquals(new Decision(Outcome.DENIED, 3, 0, S, S, 0), out.toDecision());
        fw.acquire(cell, MINUTE_START + 60 * S, 1, out);
        assertEquals(new Decision(Outcome.ALLOWED, 3, 2, 60 * S, 0, 0), out.toDecision());
    }

    @Test
    void acquire_firstRequestAligned_windowStartsAtTheFirstRequestAndAgainAfterItEnds() {
        // Given 2 per 10 s starting at a key's first request (limit 2: cells of 2 ns, so a window
        // lasts 10 s and 2 ns from the start of its first request's cell)
        FixedWindow fw = FixedWindow.builder().limit(2).window(Duration.ofSeconds(10))
                .alignment(Alignment.FIRST_REQUEST).build();
        long t = MINUTE_START + 7 * S;
        WindowCell cell = fw.newCell(t);

        fw.acquire(cell, t, 1, out);
        assertEquals(new Decision(Outcome.ALLOWED, 2, 1, 10 * S, 0, 0), out.toDecision());
        fw.acquire(cell, t + 9 * S, 1, out);
        fw.acquire(cell, t + 9 * S, 1, out);
        assertEquals(new Decision(Outcome.DENIED, 2, 0, S + 2, S + 2, 0), out.toDecision());

        // When nothing comes for a while after the window ended
        fw.acquire(cell, t + 25 * S, 1, out);

        // Then the next window starts at that request, not at a multiple of the window
        assertEquals(new Decision(Outcome.ALLOWED, 2, 1, 10 * S, 0, 0), out.toDecision());
        fw.acquire(cell, t + 34 * S, 1, out);
        assertEquals(new Decision(Outcome.ALLOWED, 2, 0, S + 2, 0, 0), out.toDecision());
    }

    @Test
    void acquire_firstRequestOffTheRounding_reportsTheWindowNotTheRoundedEnd() {
        // Given 5 per 10 s from a key's first request (cells of 4 ns), and a first request 1 ns
        // into its cell: its window, whole cells from that cell's start, really ends 10 s + 3 ns
        // after the request
        FixedWindow fw = FixedWindow.builder().limit(5).window(Duration.ofSeconds(10))
                .alignment(Alignment.FIRST_REQUEST).build();
        long t = MINUTE_START + 1;
        WindowCell cell = fw.newCell(t);

        // When it opens the window
        fw.acquire(cell, t, 1, out);

        // Then the reset reads exactly the window (so headers say t=10, not 11)
        assertEquals(new Decision(Outcome.ALLOWED, 5, 4, 10 * S, 0, 0), out.toDecision());

        // And the enforcement keeps the true end: full until then, a new window after
        fw.acquire(cell, t, 4, out);
        fw.acquire(cell, t + 10 * S + 2, 1, out);
        assertEquals(new Decision(Outcome.DENIED, 5, 0, 1, 1, 0), out.toDecision());
        fw.acquire(cell, t + 10 * S + 3, 1, out);
        assertEquals(new Decision(Outcome.ALLOWED, 5, 4, 10 * S, 0, 0), out.toDecision());
    }

    @Test
    void acquire_freshKeyPeek_reportsWholeQuotaWithNothingToReset() {
        FixedWindow fw = FixedWindow.of(5, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);

        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, MINUTE_START + S, 0, out));
        assertEquals(new Decision(Outcome.ALLOWED, 5, 5, 0, 0, 0), out.toDecision());
        assertEquals(0, cell.word(), "a peek never writes");
    }

    @Test
    void acquire_costAboveLimit_isRefusedForeverWithoutWriting() {
        FixedWindow fw = FixedWindow.of(5, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);
        fw.acquire(cell, MINUTE_START, 2, out);
        long before = cell.word();

        fw.acquire(cell, MINUTE_START, 6, out);

        assertEquals(new Decision(Outcome.DENIED, 5, 3, 60 * S, Decision.NEVER, 0), out.toDecision());
        assertEquals(before, cell.word());
    }

    @Test
    void isFresh_passedWindowOrZeroCount_andRetireIfFreshIsAtomic() {
        FixedWindow fw = FixedWindow.of(5, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);
        assertTrue(fw.isFresh(cell, MINUTE_START));
        fw.acquire(cell, MINUTE_START, 1, null);

        assertFalse(fw.isFresh(cell, MINUTE_START + 59 * S));
        assertFalse(fw.retireIfFresh(cell, MINUTE_START + 59 * S));
        assertTrue(fw.retireIfFresh(cell, MINUTE_START + 60 * S));
        assertEquals(Algorithm.RETIRED, fw.acquire(cell, MINUTE_START + 60 * S, 1, out));
    }

    @Test
    void refund_inItsOwnWindow_givesThePermitsBackButNeverBelowZero() {
        // Given 2 per minute, both taken
        FixedWindow fw = FixedWindow.of(2, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);
        fw.acquire(cell, MINUTE_START, 2, out);
        long receipt = out.receipt();

        // When the admission is refunded later in the same window, with a cost too large
        fw.refund(cell, 5, receipt, () -> MINUTE_START + 30 * S);

        // Then the window counts nothing again, not less than nothing
        assertTrue(fw.isFresh(cell, MINUTE_START + S));
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, MINUTE_START + S, 2, out));
        assertEquals(Algorithm.DENIED, fw.acquire(cell, MINUTE_START + S, 1, out));
    }

    @Test
    void refund_afterTheKeyMovedToTheNextWindow_isDropped() {
        // Given 2 per minute: an admission in the first minute, then the second minute full
        FixedWindow fw = FixedWindow.of(2, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);
        fw.acquire(cell, MINUTE_START + S, 2, out);
        long late = out.receipt();
        fw.acquire(cell, MINUTE_START + 61 * S, 2, out);

        // When the first minute's admission is refunded only now
        fw.refund(cell, 2, late, () -> MINUTE_START + 61 * S);

        // Then the new window does not owe it anything
        assertEquals(Algorithm.DENIED, fw.acquire(cell, MINUTE_START + 61 * S, 1, out));
    }

    @Test
    void refund_withNoReceipt_givesNothingBack() {
        FixedWindow fw = FixedWindow.of(2, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);
        fw.acquire(cell, MINUTE_START, 2, null);

        fw.refund(cell, 2, MutableDecision.NO_RECEIPT, () -> MINUTE_START);

        assertEquals(Algorithm.DENIED, fw.acquire(cell, MINUTE_START, 1, out));
    }

    @Test
    void acquire_staleReadingAfterRefundsEmptiedTheNextWindow_isRefusedAndTheIndexNeverMovesBack() {
        // Given 2 per minute: minute 0 full, then minute 1 opened by an admission refunded at once
        FixedWindow fw = FixedWindow.of(2, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);
        fw.acquire(cell, MINUTE_START + S, 2, out);
        fw.acquire(cell, MINUTE_START + 61 * S, 1, out);
        fw.refund(cell, 1, out.receipt(), () -> MINUTE_START + 61 * S);
        long word = cell.word();

        // When a thread that read the clock at 59 s decides only now
        int stale = fw.acquire(cell, MINUTE_START + 59 * S, 1, out);

        // Then it is refused until its reading would have reached minute 1, nothing is written,
        // and minute 1 keeps its whole quota
        assertEquals(Algorithm.DENIED, stale);
        assertEquals(new Decision(Outcome.DENIED, 2, 2, 0, S, 0), out.toDecision());
        assertEquals(word, cell.word(), "the window index moved back");
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, MINUTE_START + 62 * S, 2, out));
    }

    @Test
    void acquire_staleReadingBehindAnOpenWindow_isRefusedNotCountedInTheLaterWindow() {
        // Given 2 per minute: one admission in minute 1
        FixedWindow fw = FixedWindow.of(2, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);
        fw.acquire(cell, MINUTE_START + 61 * S, 1, out);

        // When a thread that read the clock in minute 0 decides (minute 0's count is unknown now)
        int stale = fw.acquire(cell, MINUTE_START + 30 * S, 1, out);

        // Then it is refused (retry when minute 1 begins) and minute 1 still has one left
        assertEquals(Algorithm.DENIED, stale);
        assertEquals(30 * S, out.retryAfterNanos());
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, MINUTE_START + 61 * S, 1, out));
        assertEquals(0, out.remaining());
    }

    @Test
    void acquire_firstRequestStaleReadingBeforeTheStoredWindow_isRefused() {
        // Given 2 per 10 s from a key's first request: the window opened at 0 s is full, and one
        // opened at 20 s was refunded back to zero
        FixedWindow fw = FixedWindow.builder().limit(2).window(Duration.ofSeconds(10))
                .alignment(Alignment.FIRST_REQUEST).build();
        WindowCell cell = fw.newCell(MINUTE_START);
        fw.acquire(cell, MINUTE_START, 2, out);
        fw.acquire(cell, MINUTE_START + 20 * S, 1, out);
        fw.refund(cell, 1, out.receipt(), () -> MINUTE_START + 20 * S);
        long word = cell.word();

        // When a thread that read the clock at 9 s decides only now
        int stale = fw.acquire(cell, MINUTE_START + 9 * S, 1, out);

        // Then it is refused, and the window opened at 20 s stays where it is
        assertEquals(Algorithm.DENIED, stale);
        assertEquals(11 * S, out.retryAfterNanos());
        assertEquals(word, cell.word());
    }

    @Test
    void acquire_stalePeek_reportsTheStoredWindowWithoutWriting() {
        FixedWindow fw = FixedWindow.of(3, Duration.ofMinutes(1));
        WindowCell cell = fw.newCell(MINUTE_START);
        fw.acquire(cell, MINUTE_START + 61 * S, 1, out);
        long word = cell.word();

        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, MINUTE_START + 59 * S, 0, out));

        assertEquals(2, out.remaining());
        assertEquals(word, cell.word());
    }

    static Stream<Arguments> configurations() {
        return Stream.of(
                Arguments.of(5L, Duration.ofSeconds(1), Alignment.EPOCH, 21L),
                Arguments.of(100L, Duration.ofMinutes(1), Alignment.EPOCH, 22L),
                Arguments.of(1L, Duration.ofMillis(3), Alignment.EPOCH, 23L),
                Arguments.of(5L, Duration.ofSeconds(1), Alignment.FIRST_REQUEST, 24L),
                Arguments.of(100L, Duration.ofMinutes(1), Alignment.FIRST_REQUEST, 25L),
                Arguments.of(1000L, Duration.ofNanos(7_777), Alignment.FIRST_REQUEST, 26L));
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void acquire_randomWorkload_matchesPeriodLimitModel(long limit, Duration window,
            Alignment alignment, long seed) {
        FixedWindow fw = FixedWindow.builder().limit(limit).window(window).alignment(alignment).build();

        ModelCheck.run(fw, model(limit, window, alignment), seed, 100_000, window.toNanos(), 0.1);
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void acquire_randomWorkload_neverAdmitsMoreThanTheLimitPerWindow(long limit, Duration window,
            Alignment alignment, long seed) {
        FixedWindow fw = FixedWindow.builder().limit(limit).window(window).alignment(alignment).build();

        // Refunds included: the admissions that stay never exceed the limit per window
        List<ModelCheck.Event> admitted = ModelCheck.run(fw, model(limit, window, alignment),
                seed + 100, 100_000, window.toNanos(), 0.2);

        if (alignment == Alignment.EPOCH) {
            Invariants.epochWindows(admitted, limit, window.toNanos());
        } else {
            Invariants.firstRequestWindows(admitted, limit, window.toNanos(),
                    Long.highestOneBit(limit));
        }
    }

    private static FixedWindowModel model(long limit, Duration window, Alignment alignment) {
        // The documented cell of first-request windows: 2^(bit length of limit - 1) ns.
        return new FixedWindowModel(limit, window.toNanos(), alignment == Alignment.EPOCH,
                Long.highestOneBit(limit));
    }

    @Test
    void builder_badConfiguration_failsNamingTheParameterAndValue() {
        Expect.illegalArgument("limit must be >= 1 but was 0", () -> FixedWindow.builder().limit(0));
        Expect.illegalArgument("window must be > 0 but was 0s",
                () -> FixedWindow.builder().window(Duration.ZERO));
        Expect.illegalArgument("window must be > 0 but was -1s",
                () -> FixedWindow.builder().window(Duration.ofSeconds(-1)));
        Expect.illegalArgument("window must be at most 26687d (about 73 years) but was 36500d",
                () -> FixedWindow.builder().window(Duration.ofDays(36500)));
        Expect.illegalArgument("limit must be at most 1023 for a window of 1us but was 1024"
                        + " (one word per key holds the count and 146 years of windows)",
                () -> FixedWindow.of(1024, Duration.ofNanos(1000)));
        assertThrows(IllegalStateException.class, () -> FixedWindow.builder().limit(1).build());
        assertThrows(NullPointerException.class, () -> FixedWindow.builder().alignment(null));
        assertEquals(1023, FixedWindow.of(1023, Duration.ofNanos(1000)).limit());
    }

    @Test
    void equals_sameConfiguration_isEqual() {
        FixedWindow a = FixedWindow.of(10, Duration.ofSeconds(1));
        assertEquals(a, FixedWindow.builder().limit(10).window(Duration.ofSeconds(1))
                .alignment(Alignment.EPOCH).build());
        assertEquals(a.hashCode(), FixedWindow.of(10, Duration.ofSeconds(1)).hashCode());
        assertNotEquals(a, FixedWindow.builder().limit(10).window(Duration.ofSeconds(1))
                .alignment(Alignment.FIRST_REQUEST).build());
        assertEquals("fixed-window", a.kind());
        assertEquals(S, a.windowNanos());
    }
}
