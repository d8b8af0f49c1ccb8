package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.algorithm.FixedWindow.Alignment;
import io.github.sluice.algorithm.FixedWindow.WindowCell;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fixed window skips the division of the clock reading by the window while the stored window
 * holds the reading. This checks, decision by decision, that it decides exactly as the rule that
 * divides every reading: the same outcome, the same reported numbers, the same word afterwards.
 * The readings crowd the window edges (one nanosecond before, at, after), fall behind the stored
 * window (stale readings of other threads) and meet refunds that empty a window.
 */
class FixedWindowNoDivisionTest {

    private static final long MINUTE_START = 1_767_225_600_000_000_000L;

    @ParameterizedTest(name = "{0} per {1} ms, {2}")
    @CsvSource({
        "5, 1000, EPOCH", "1, 3, EPOCH", "100, 60000, EPOCH", "7, 1, EPOCH",
        "5, 1000, FIRST_REQUEST", "100, 60000, FIRST_REQUEST", "1, 3, FIRST_REQUEST",
        "1000, 1, FIRST_REQUEST"
    })
    void acquire_everyReading_decidesAsTheDividingRule(long limit, long windowMillis, Alignment alignment) {
        long window = Duration.ofMillis(windowMillis).toNanos();
        FixedWindow fw = FixedWindow.builder().limit(limit).window(Duration.ofNanos(window))
                .alignment(alignment).build();
        long unit = fw.startRoundingNanos();
        long span = fw.spanNanos() / unit;
        WindowWord layout = new WindowWord(limit, window, "window");
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed * 31 + limit);
            long now = MINUTE_START + random.nextLong(window);
            WindowCell cell = fw.newCell(now);
            MutableDecision out = new MutableDecision();
            MutableDecision expected = new MutableDecision();
            long latest = now;
            long lastReceipt = MutableDecision.NO_RECEIPT;
            for (int step = 0; step < 5_000; step++) {
                int move = random.nextInt(10);
                long start = Math.floorDiv(latest, unit) * unit;
                if (move < 3) {
                    // an edge of the cell holding the latest reading, or of the next one
                    long edge = start + (random.nextBoolean() ? 0 : unit) * (random.nextBoolean() ? 1 : span);
                    now = edge + random.nextInt(3) - 1;
                } else if (move < 5) {
                    now = latest - random.nextLong(2 * fw.spanNanos()); // a stale reading
                } else if (move < 6 && lastReceipt != MutableDecision.NO_RECEIPT) {
                    long before = cell.word();
                    long refunded = 1 + random.nextInt(2);
                    fw.refund(cell, refunded, lastReceipt, null);
                    long index = lastReceipt - cell.origin();
                    if (layout.index(before) == index && layout.count(before) > 0) {
                        assertEquals(layout.pack(index, Math.max(0, layout.count(before) - refunded)), cell.word(),
                                "a refund in the stored window lowers its count");
                    }
                    continue;
                } else {
                    now = latest + random.nextLong(fw.spanNanos() / 3 + 1);
                }
                latest = Math.max(latest, now);
                long cost = random.nextInt(8) == 0 ? 0 : 1 + (random.nextInt(4) == 0 ? random.nextInt((int) Math.min(limit + 1, 5)) : 0);
                long word = cell.word();
                int want = dividingRule(cell.origin(), word, now, cost, limit, window, unit, span, layout, expected);
                long wantWord = want == Algorithm.ADMITTED && cost > 0 ? nextWord : word;

                int got = fw.acquire(cell, now, cost, out);

                String where = "seed " + seed + " step " + step + " now " + (now - MINUTE_START) + " cost " + cost;
                assertEquals(want, got, where);
                assertEquals(wantWord, cell.word(), where);
                assertEquals(describe(expected), describe(out), where);
                if (got == Algorithm.ADMITTED && cost > 0) {
                    lastReceipt = out.receipt();
                }
            }
        }
    }

    private static String describe(MutableDecision d) {
        return d.allowed() + " limit=" + d.limit() + " remaining=" + d.remaining() + " reset=" + d.resetNanos()
                + " retry=" + d.retryAfterNanos() + " receipt=" + d.receipt();
    }

    /** The word an admission writes, set by {@link #dividingRule}. */
    private long nextWord;

    /** The rule as it was written before the shortcut: the reading divided at every decision. */
    private int dividingRule(long origin, long w, long now, long cost, long limit, long window, long unit,
            long span, WindowWord layout, MutableDecision out) {
        long c = Math.floorDiv(now, unit) - origin;
        long current = c < 0 ? -1 : Math.min(c, layout.maxIndex);
        long index = layout.index(w);
        long count = layout.count(w);
        boolean stale = current < index;
        if (!stale && !(count > 0 && current < index + span)) {
            index = current;
            count = 0;
        }
        long start = (origin + index) * unit;
        long end = start + span * unit;
        long reset = count > 0 ? Math.min(end - now, window) : 0;
        if (cost > limit) {
            out.deny(limit, limit - count, reset, Decision.NEVER);
            return Algorithm.DENIED;
        }
        if (stale && cost > 0) {
            out.deny(limit, limit - count, reset, count + cost <= limit ? start - now : end - now);
            return Algorithm.DENIED;
        }
        if (count + cost > limit) {
            out.deny(limit, limit - count, reset, end - now);
            return Algorithm.DENIED;
        }
        nextWord = layout.pack(index, count + cost);
        out.allow(limit, limit - count - cost, count + cost > 0 ? Math.min(end - now, window) : 0);
        if (cost > 0) {
            out.receipt(origin + index);
        }
        return Algorithm.ADMITTED;
    }
}
