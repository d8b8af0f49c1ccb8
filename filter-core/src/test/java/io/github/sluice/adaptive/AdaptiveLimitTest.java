package io.github.sluice.adaptive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.Test;

/** What every adaptive limit shares: admission against the moving limit, releases, partitions, forgetting. */
class AdaptiveLimitTest {

    private static final long MS = 1_000_000L;
    private static final long RETRY = AdaptiveLimit.RETRY_AFTER_MILLIS * MS;

    private final MutableDecision out = new MutableDecision();

    /** An AIMD whose limit cannot move: admission alone is under test. */
    private static Aimd fixed(long limit) {
        return Aimd.builder().min(limit).max(limit).initial(limit).build();
    }

    @Test
    void acquire_upToTheLimit_thenDeniedWithTheLimitAsQ() {
        Aimd a = fixed(2);
        AdaptiveCell cell = a.newCell(0);

        assertEquals(Algorithm.ADMITTED, a.acquire(cell, 0, 1, out));
        assertEquals(new Decision(Outcome.ALLOWED, 2, 1, 0, 0, 0), out.toDecision());
        assertEquals(Algorithm.ADMITTED, a.acquire(cell, 0, 1, out));
        assertEquals(Algorithm.DENIED, a.acquire(cell, 0, 1, out));

        assertEquals(new Decision(Outcome.DENIED, 2, 0, 0, RETRY, 0), out.toDecision());
        assertEquals(2, cell.inFlight());
    }

    @Test
    void acquire_costAboveMax_isRefusedForever() {
        Aimd a = Aimd.builder().min(1).max(4).initial(2).build();
        AdaptiveCell cell = a.newCell(0);

        assertEquals(Algorithm.DENIED, a.acquire(cell, 0, 5, out));

        assertEquals(Decision.NEVER, out.toDecision().retryAfterNanos());
        assertEquals(0, cell.inFlight());
    }

    @Test
    void acquire_zeroCost_peeksWithoutWriting() {
        Aimd a = fixed(3);
        AdaptiveCell cell = a.newCell(0);
        a.acquire(cell, 0, 1, null);

        assertEquals(Algorithm.ADMITTED, a.acquire(cell, 0, 0, out));

        assertEquals(new Decision(Outcome.ALLOWED, 3, 2, 0, 0, 0), out.toDecision());
        assertEquals(1, cell.inFlight());
    }

    @Test
    void release_moreThanHeld_neverGoesBelowZero() {
        Aimd a = fixed(2);
        AdaptiveCell cell = a.newCell(0);
        a.acquire(cell, 0, 1, out);
        long receipt = out.receipt();

        a.release(cell, MS, 1, receipt, false);
        a.release(cell, MS, 1, receipt, false);
        a.release(cell, MS, 7);

        assertEquals(0, cell.inFlight());
        assertEquals(Algorithm.ADMITTED, a.acquire(cell, MS, 2, null));
        assertEquals(Algorithm.DENIED, a.acquire(cell, MS, 1, null));
    }

    @Test
    void release_withoutReceipt_freesThePermitsAndTeachesNothing() {
        Aimd a = Aimd.builder().min(1).max(100).initial(2).samples(1).build();
        AdaptiveCell cell = a.newCell(0);
        a.acquire(cell, 0, 1, null);
        a.acquire(cell, 0, 1, null);

        a.release(cell, MS, 1, MutableDecision.NO_RECEIPT, false);
        a.release(cell, MS, 1);

        assertEquals(0, cell.inFlight());
        assertEquals(2, cell.limit(), "no sample, no growth");
    }

    @Test
    void refund_ofAnAdmissionThatNeverRan_teachesNothing() {
        Aimd a = Aimd.builder().min(1).max(100).initial(4).samples(1).build();
        AdaptiveCell cell = a.newCell(0);
        for (int i = 0; i < 4; i++) {
            a.acquire(cell, 0, 1, out);
        }

        a.refund(cell, 1, out.receipt(), null);

        assertEquals(3, cell.inFlight());
        assertEquals(4, cell.limit());
        assertEquals(0, cell.pending());
    }

    @Test
    void release_feedsTheLatencyFromAdmissionOnTheCallersClock() {
        Aimd a = Aimd.builder().min(1).max(100).initial(10).samples(3).build();
        AdaptiveCell cell = a.newCell(5 * MS);
        long[] receipts = new long[3];
        for (int i = 0; i < 3; i++) {
            a.acquire(cell, 10 * MS + i * MS, 1, out);
            receipts[i] = out.receipt();
        }

        a.release(cell, 30 * MS, 1, receipts[0], false); // 20 ms
        a.release(cell, 31 * MS, 1, receipts[1], false); // 20 ms
        a.release(cell, 42 * MS, 1, receipts[2], false); // 30 ms: the batch is full

        assertEquals(70 * MS / 3, cell.lastLatencyNanos());
    }

    @Test
    void concurrencyIsAlwaysTrue_soTheRegistryKeepsKeysHoldingPermits() {
        Aimd a = fixed(2);
        AdaptiveCell cell = a.newCell(0);
        a.acquire(cell, 0, 1, null);

        assertTrue(a.concurrency());
        assertFalse(a.isFresh(cell, Long.MAX_VALUE / 2));
        assertFalse(a.retireIfFresh(cell, Long.MAX_VALUE / 2));
    }

    // ---- partitions -----------------------------------------------------------------------------

    @Test
    void partition_withinItsShare_isAdmittedWhileOthersFillTheLimit() {
        // 70 % for paying users, 30 % for the rest, limit 10.
        Aimd a = Aimd.builder().min(10).max(10).initial(10).partition("paid", 0.7).partition("free", 0.3)
                .build();
        AdaptiveCell cell = a.newCell(0);
        int paid = a.partition("paid");
        int free = a.partition("free");

        // The free tier borrows the whole idle limit...
        for (int i = 0; i < 10; i++) {
            assertEquals(Algorithm.ADMITTED, a.acquire(cell, 0, 1, free, null), "free " + i);
        }
        assertEquals(Algorithm.DENIED, a.acquire(cell, 0, 1, free, null));
        // ...and paying users still get their 7 guaranteed permits at once.
        for (int i = 0; i < 7; i++) {
            assertEquals(Algorithm.ADMITTED, a.acquire(cell, 0, 1, paid, out), "paid " + i);
        }
        assertEquals(Algorithm.DENIED, a.acquire(cell, 0, 1, paid, null), "beyond its share, a partition only borrows");
        assertEquals(7, cell.inFlight(paid));
        assertEquals(10, cell.inFlight(free));
        assertEquals(17, cell.inFlight());
    }

    @Test
    void partition_overTheLimitAfterBorrowing_othersAreRefusedUntilTheTotalIsBackUnder() {
        Aimd a = Aimd.builder().min(10).max(10).initial(10).partition("paid", 0.7).partition("free", 0.3)
                .build();
        AdaptiveCell cell = a.newCell(0);
        int paid = a.partition("paid");
        int free = a.partition("free");
        Deque<Long> freeReceipts = new ArrayDeque<>();
        for (int i = 0; i < 10; i++) {
            a.acquire(cell, 0, 1, free, out);
            freeReceipts.push(out.receipt());
        }
        for (int i = 0; i < 7; i++) {
            a.acquire(cell, 0, 1, paid, null);
        }

        // Free holds 10 of its guaranteed 3: each release shrinks the total, free stays refused
        // until the total is under the limit.
        for (int i = 0; i < 7; i++) {
            a.release(cell, MS, 1, freeReceipts.pop(), false);
            assertEquals(Algorithm.DENIED, a.acquire(cell, MS, 1, free, null), "after " + (i + 1));
        }
        a.release(cell, MS, 1, freeReceipts.pop(), false);
        assertEquals(9, cell.inFlight());
        assertEquals(Algorithm.ADMITTED, a.acquire(cell, MS, 1, free, null), "its share again");
    }

    @Test
    void partition_release_givesThePermitsBackToThePartitionItsReceiptNames() {
        Aimd a = Aimd.builder().min(4).max(4).initial(4).partition("a", 0.5).partition("b", 0.5).build();
        AdaptiveCell cell = a.newCell(0);
        a.acquire(cell, 0, 2, a.partition("b"), out);
        long receipt = out.receipt();

        a.release(cell, MS, 2, receipt, false);

        assertEquals(0, cell.inFlight(a.partition("b")));
        assertEquals(0, cell.inFlight());
    }

    @Test
    void partition_unknownIndex_onlyBorrows() {
        Aimd a = Aimd.builder().min(2).max(2).initial(2).partition("a", 1.0).build();
        AdaptiveCell cell = a.newCell(0);

        assertEquals(Algorithm.ADMITTED, a.acquire(cell, 0, 2, 7, null));
        assertEquals(Algorithm.DENIED, a.acquire(cell, 0, 1, Algorithm.NO_PARTITION, null));
        assertEquals(Algorithm.ADMITTED, a.acquire(cell, 0, 1, a.partition("a"), null));
        assertEquals(Algorithm.NO_PARTITION, a.partition("nobody"));
    }

    @Test
    void guaranteed_roundsUpAndGivesAPositiveShareAtLeastOnePermit() {
        Aimd a = Aimd.builder().partition("big", 0.7).partition("tiny", 0.001).partition("none", 0).build();

        assertEquals(7, a.guaranteed(10, 0));
        assertEquals(8, a.guaranteed(11, 0));
        assertEquals(1, a.guaranteed(10, 1));
        assertEquals(0, a.guaranteed(10, 2));
    }

    // ---- forgetting -----------------------------------------------------------------------------

    @Test
    void quietKey_startsAgainFromTheInitialLimit() {
        Aimd a = Aimd.builder().min(1).max(100).initial(4).samples(1).idle(Duration.ofSeconds(10)).build();
        AdaptiveCell cell = a.newCell(0);
        for (int round = 0; round < 5; round++) {
            long[] receipts = new long[(int) cell.limit()];
            for (int i = 0; i < receipts.length; i++) {
                a.acquire(cell, round * MS, 1, out);
                receipts[i] = out.receipt();
            }
            for (long r : receipts) {
                a.release(cell, round * MS + MS, 1, r, false);
            }
        }
        long learned = cell.limit();
        assertTrue(learned > 4, "learned " + learned);
        long later = 5 * MS + Duration.ofSeconds(11).toNanos();

        assertTrue(a.isFresh(cell, later));
        a.acquire(cell, later, 1, out);

        assertEquals(4, out.toDecision().limit());
        assertEquals(4, cell.limit());
    }

    @Test
    void activeKey_isNotForgotten() {
        Aimd a = Aimd.builder().min(1).max(100).initial(4).idle(Duration.ofSeconds(10)).build();
        AdaptiveCell cell = a.newCell(0);
        a.acquire(cell, 0, 1, out);
        a.release(cell, Duration.ofSeconds(9).toNanos(), 1, out.receipt(), false);

        assertFalse(a.isFresh(cell, Duration.ofSeconds(18).toNanos()));
        assertTrue(a.isFresh(cell, Duration.ofSeconds(20).toNanos()));
    }

    // ---- configuration --------------------------------------------------------------------------

    @Test
    void builder_minAboveMax_namesBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Gradient.builder().min(50).max(10).build());
        assertEquals("min must be <= max (10) but was 50", e.getMessage());
    }

    @Test
    void builder_initialOutsideMinAndMax_namesIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Vegas.builder().min(5).max(10).initial(20).build());
        assertEquals("initial must be between min (5) and max (10) but was 20", e.getMessage());
    }

    @Test
    void builder_defaultInitialOutsideMinAndMax_isClampedIntoThem() {
        assertEquals(50, Gradient.builder().min(50).max(100).build().initial());
        assertEquals(10, Gradient.builder().min(1).max(10).build().initial());
    }

    @Test
    void builder_sharesAboveOne_areRefusedWithTheirTotal() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Aimd.builder().partition("paid", 0.7).partition("free", 0.4).build());
        assertTrue(e.getMessage().contains("add up to 110.0%"), e.getMessage());
    }

    @Test
    void builder_badPartitions_areRefusedNamingThem() {
        assertThrows(IllegalArgumentException.class, () -> Aimd.builder().partition("a", 0.1).partition("a", 0.1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Aimd.builder().partition("a", 1.5));
        assertEquals("share of partition 'a' must be between 0 and 1 but was 1.5", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Aimd.builder().partition("a b", 0.1));
        assertThrows(NullPointerException.class, () -> Aimd.builder().partition(null, 0.1));
    }

    @Test
    void builder_outOfRangeValues_nameTheParameterAndTheValue() {
        assertMessage("backoff must be at least 0.5 and below 1 but was 1.0", () -> Aimd.builder().backoff(1));
        assertMessage("tolerance must be between 1 and 10 but was 0.5", () -> Gradient.builder().tolerance(0.5));
        assertMessage("smoothing must be above 0 and at most 1 but was 0.0", () -> Gradient.builder().smoothing(0));
        assertMessage("queue must be between 0 and 1000000 but was -1", () -> Gradient.builder().queue(-1));
        assertMessage("alpha must be below beta (6) but was 6", () -> Vegas.builder().alpha(6).build());
        assertMessage("cpu must be above 0 and at most 1 (100%) but was 1.5", () -> Bbr.builder().cpu(1.5));
        assertThrows(IllegalArgumentException.class, () -> Gradient.builder().min(0));
        assertThrows(IllegalArgumentException.class, () -> Gradient.builder().max(AdaptiveLimit.MAX_LIMIT + 1));
        assertThrows(IllegalArgumentException.class, () -> Gradient.builder().samples(0));
        assertThrows(IllegalArgumentException.class, () -> Gradient.builder().window(Duration.ZERO));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, call).getMessage());
    }

    @Test
    void equalSettings_makeEqualAlgorithms() {
        assertEquals(Gradient.of(5, 500, 20), Gradient.of(5, 500, 20));
        assertEquals(Gradient.of(5, 500, 20).hashCode(), Gradient.of(5, 500, 20).hashCode());
        assertFalse(Gradient.of(5, 500, 20).equals(Gradient.of(5, 500, 21)));
        assertFalse(Gradient.of(5, 500, 20).equals(Vegas.of(5, 500, 20)));
        assertEquals("adaptive gradient", Gradient.of(5, 500, 20).kind());
        assertEquals(500, Gradient.of(5, 500, 20).limit());
    }
}
