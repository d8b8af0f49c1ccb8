package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.CalendarPeriod.Unit;
import io.github.sluice.algorithm.FixedWindow.WindowCell;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import java.lang.management.ManagementFactory;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Calendar windows of the fixed window: explicit facts at month ends, leap days, both
 * daylight-saving changes in several zones (Australia/Sydney's are reversed, Asia/Kolkata's
 * offset is a half hour, Pacific/Apia skipped 30 December 2011), and a reference model, written
 * with other java.time operations than the algorithm's ({@code TemporalAdjusters},
 * {@code plusMonths}), that the algorithm must match decision by decision on a fake clock.
 */
class CalendarWindowTest {

    private static long nanos(String zonedLocal, String zone) {
        ZonedDateTime t = LocalDateTime.parse(zonedLocal).atZone(ZoneId.of(zone));
        return t.toEpochSecond() * 1_000_000_000L + t.getNano();
    }

    private static long nanos(Instant i) {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    private static final long HOUR = Duration.ofHours(1).toNanos();

    // ---- explicit facts -------------------------------------------------------------------

    @ParameterizedTest(name = "{0} at {1} {2}: window ends in {3}")
    @CsvSource({
        // Europe/Paris: spring forward 2026-03-29 02:00 -> 03:00; the day has 23 hours
        "DAY, 2026-03-29T00:30, Europe/Paris, PT22H30M",
        // fall back 2026-10-25 03:00 -> 02:00; the day has 25 hours
        "DAY, 2026-10-25T00:30, Europe/Paris, PT24H30M",
        // America/New_York: 2026-03-08 (23 h) and 2026-11-01 (25 h)
        "DAY, 2026-03-08T00:00, America/New_York, PT23H",
        "DAY, 2026-11-01T00:00, America/New_York, PT25H",
        // Australia/Sydney, reversed: DST ends 2026-04-05 (25 h), begins 2026-10-04 (23 h)
        "DAY, 2026-04-05T00:00, Australia/Sydney, PT25H",
        "DAY, 2026-10-04T00:00, Australia/Sydney, PT23H",
        // a month that holds the change: March 2026 in Paris is 31 days less an hour
        "MONTH, 2026-03-01T00:00, Europe/Paris, PT743H",
        "MONTH, 2026-10-01T00:00, Europe/Paris, PT745H",
        // Asia/Kolkata, +05:30 all year: months of their real length
        "MONTH, 2026-01-31T23:59, Asia/Kolkata, PT1M",
        "MONTH, 2026-02-01T00:00, Asia/Kolkata, PT672H",
        // leap years: February 2028 has 29 days, 2028 has 366, 2100 is not a leap year
        "MONTH, 2028-02-01T00:00, UTC, PT696H",
        "MONTH, 2100-02-01T00:00, UTC, PT672H",
        "MONTH, 2028-02-29T00:00, UTC, PT24H",
        "YEAR, 2028-01-01T00:00, UTC, PT8784H",
        "YEAR, 2027-12-31T23:00, Asia/Kolkata, PT1H",
        "DAY, 2028-02-28T12:00, UTC, PT12H",
        // Pacific/Apia skipped 2011-12-30: the 29th ends where the 31st begins
        "DAY, 2011-12-29T12:00, Pacific/Apia, PT12H",
        // weeks start on Monday by default: Thursday 2026-01-01 noon to Monday 2026-01-05
        "WEEK, 2026-01-01T12:00, UTC, PT84H",
    })
    void calendarWindow_atAReading_resetsAtTheRealBoundary(Unit unit, String local, String zone, Duration left) {
        // Given a calendar window with one permit taken at the reading
        FixedWindow fw = FixedWindow.of(3, CalendarPeriod.of(unit, ZoneId.of(zone)));
        long now = nanos(local, zone);
        WindowCell cell = fw.newCell(now);
        MutableDecision out = new MutableDecision();

        // When it admits, then refuses what is over the limit
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, now, 3, out));
        assertEquals(left.toNanos(), out.resetNanos(), "t");
        assertEquals(Algorithm.DENIED, fw.acquire(cell, now, 1, out));

        // Then retry-after is the real time to the boundary, and the boundary itself admits again
        assertEquals(left.toNanos(), out.retryAfterNanos(), "Retry-After");
        assertEquals(Algorithm.DENIED, fw.acquire(cell, now + left.toNanos() - 1, 1, out));
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, now + left.toNanos(), 1, out));
    }

    @Test
    void weekStart_sunday_resetsOnSundayMidnightInTheZone() {
        // Given a week from Sunday in New York, and a reading on Saturday 2026-03-07 at 23:00
        FixedWindow sunday = FixedWindow.of(1, CalendarPeriod.week(DayOfWeek.SUNDAY, ZoneId.of("America/New_York")));
        FixedWindow monday = FixedWindow.of(1, CalendarPeriod.of(Unit.WEEK, ZoneId.of("America/New_York")));
        long now = nanos("2026-03-07T23:00", "America/New_York");
        MutableDecision out = new MutableDecision();

        // Then the Sunday week ends in an hour; the Monday week ends after Sunday 8 March, which
        // loses an hour to daylight saving
        fw(sunday, now, out);
        assertEquals(HOUR, out.resetNanos());
        fw(monday, now, out);
        assertEquals(HOUR + 23 * HOUR, out.resetNanos());
    }

    private static void fw(FixedWindow fw, long now, MutableDecision out) {
        assertEquals(Algorithm.ADMITTED, fw.acquire(fw.newCell(now), now, 1, out));
    }

    @Test
    void refund_receiptOfThePassedMonth_isDropped() {
        // Given a month spent at 31 January 23:00 in Kolkata
        FixedWindow fw = FixedWindow.of(2, CalendarPeriod.of(Unit.MONTH, ZoneId.of("Asia/Kolkata")));
        long jan = nanos("2026-01-31T23:00", "Asia/Kolkata");
        WindowCell cell = fw.newCell(jan);
        MutableDecision first = new MutableDecision();
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, jan, 2, first));

        // When February has begun and takes a permit, and January's admission is refunded
        long feb = nanos("2026-02-01T00:00", "Asia/Kolkata");
        MutableDecision out = new MutableDecision();
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, feb, 2, out));
        fw.refund(cell, 2, first.receipt(), null);

        // Then February owes January nothing: it stays spent; its own refund gives back
        assertEquals(Algorithm.DENIED, fw.acquire(cell, feb, 1, out));
        fw.refund(cell, 1, out.receipt() == MutableDecision.NO_RECEIPT ? 0 : out.receipt(), null);
        MutableDecision again = new MutableDecision();
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, feb, 0, again));
        assertEquals(0, again.remaining());
    }

    @Test
    void staleReading_beforeTheStoredMonth_isRefusedUntilItsStart() {
        // Given a key whose February (UTC) was opened by a later reading
        FixedWindow fw = FixedWindow.of(5, CalendarPeriod.of(Unit.MONTH, ZoneOffset.UTC));
        long feb = nanos("2026-02-01T00:00", "UTC");
        WindowCell cell = fw.newCell(feb - HOUR);
        MutableDecision out = new MutableDecision();
        assertEquals(Algorithm.ADMITTED, fw.acquire(cell, feb, 1, out));

        // When a thread whose reading is still in January decides
        assertEquals(Algorithm.DENIED, fw.acquire(cell, feb - 10, 1, out));

        // Then it is refused until its reading reaches February
        assertEquals(10, out.retryAfterNanos());
    }

    @Test
    void limit_tooLargeForHalfADay_failsAtBuild() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FixedWindow.of(1L << 60, CalendarPeriod.of(Unit.DAY, ZoneOffset.UTC)));
        assertTrue(e.getMessage().contains("calendar day"), e.getMessage());
    }

    @Test
    void builder_calendarWithWindowOrOtherAlignment_isRefused() {
        CalendarPeriod month = CalendarPeriod.of(Unit.MONTH, ZoneOffset.UTC);
        assertThrows(IllegalStateException.class,
                () -> FixedWindow.builder().limit(5).window(Duration.ofDays(30)).calendar(month).build());
        assertThrows(IllegalArgumentException.class, () -> FixedWindow.builder().limit(5).calendar(month)
                .alignment(FixedWindow.Alignment.FIRST_REQUEST).build());
        assertThrows(IllegalStateException.class, () -> FixedWindow.builder().limit(5)
                .alignment(FixedWindow.Alignment.CALENDAR).window(Duration.ofDays(30)).build());
        assertEquals(FixedWindow.of(5, month), FixedWindow.builder().limit(5).calendar(month)
                .alignment(FixedWindow.Alignment.CALENDAR).build());
    }

    @Test
    void calendarDayInUtc_decidesAsTheEpochAlignedDay() {
        // A UTC day has no daylight saving: the calendar and the epoch give the same windows.
        FixedWindow calendar = FixedWindow.of(4, CalendarPeriod.of(Unit.DAY, ZoneOffset.UTC));
        FixedWindow epoch = FixedWindow.of(4, Duration.ofDays(1));
        assertEquals(0, run(calendar, epoch, 7, Duration.ofMinutes(97).toNanos(), 3_000, nanos("2026-01-01T00:00", "UTC")));
    }

    @Test
    void setRate_onACalendarWindow_keepsTheCalendarAndTheMonthsCount() {
        // Given a month in Paris with 3 of 5 taken
        io.github.sluice.testing.FakeClock clock = new io.github.sluice.testing.FakeClock(nanos("2026-03-30T12:00", "Europe/Paris"));
        FixedWindow fw = FixedWindow.of(5, CalendarPeriod.of(Unit.MONTH, ZoneId.of("Europe/Paris")));
        io.github.sluice.limiter.BlockingLimiter<?> limiter = io.github.sluice.limiter.BlockingLimiter.of(fw, clock,
                nanos -> { });
        for (int i = 0; i < 3; i++) {
            assertTrue(limiter.tryAcquire());
        }

        // When the limit is lowered to 2, then raised to 4 per (nominal) month
        limiter.setRate(io.github.sluice.core.Rate.of(2, Duration.ofNanos(fw.windowNanos())));
        assertFalse(limiter.tryAcquire());
        limiter.setRate(io.github.sluice.core.Rate.of(4, Duration.ofNanos(fw.windowNanos())));

        // Then the 3 taken stay taken: one more, and the window is still March in Paris
        assertTrue(limiter.tryAcquire());
        assertFalse(limiter.tryAcquire());
        clock.set(nanos("2026-04-01T00:00", "Europe/Paris"));
        assertTrue(limiter.tryAcquire());

        // And a rate of another period is refused: the calendar stays
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> limiter.setRate(io.github.sluice.core.Rate.of(4, Duration.ofDays(30))));
        assertTrue(e.getMessage().contains("month zone=Europe/Paris"), e.getMessage());
    }

    // ---- the reference model --------------------------------------------------------------

    /** A window by other java.time operations than {@link CalendarPeriod}'s. */
    private static long[] referenceWindow(Unit unit, ZoneId zone, DayOfWeek weekStart, long now) {
        LocalDate d = Instant.ofEpochSecond(Math.floorDiv(now, 1_000_000_000L)).atZone(zone).toLocalDate();
        LocalDate first;
        LocalDate next;
        switch (unit) {
            case DAY -> {
                first = d;
                next = d.plusDays(1);
            }
            case WEEK -> {
                first = d.with(TemporalAdjusters.previousOrSame(weekStart));
                next = first.plusWeeks(1);
            }
            case MONTH -> {
                first = d.with(TemporalAdjusters.firstDayOfMonth());
                next = first.plusMonths(1);
            }
            default -> {
                first = d.with(TemporalAdjusters.firstDayOfYear());
                next = first.plusYears(1);
            }
        }
        return new long[] {nanos(first.atStartOfDay(zone).toInstant()), nanos(next.atStartOfDay(zone).toInstant())};
    }

    @ParameterizedTest(name = "{0} in {1}")
    @CsvSource({
        "DAY, Europe/Paris, 2026-03-27T00:00, 20",
        "DAY, Europe/Paris, 2026-10-23T00:00, 20",
        "DAY, America/New_York, 2026-03-06T00:00, 20",
        "DAY, America/New_York, 2026-10-30T00:00, 20",
        "DAY, Australia/Sydney, 2026-04-03T00:00, 20",
        "DAY, Australia/Sydney, 2026-10-02T00:00, 20",
        "DAY, Asia/Kolkata, 2026-02-27T00:00, 20",
        "DAY, Pacific/Apia, 2011-12-27T00:00, 20",
        "DAY, America/Sao_Paulo, 2018-11-02T00:00, 20",
        "WEEK, Europe/Paris, 2026-03-16T00:00, 150",
        "WEEK, Australia/Sydney, 2026-09-20T00:00, 150",
        "MONTH, Europe/Paris, 2026-01-15T00:00, 600",
        "MONTH, America/New_York, 2027-12-20T00:00, 600",
        "MONTH, Australia/Sydney, 2028-01-10T00:00, 600",
        "MONTH, Asia/Kolkata, 2028-01-20T00:00, 600",
        "YEAR, Europe/Paris, 2027-06-01T00:00, 8000",
        "YEAR, Asia/Kolkata, 2027-11-01T00:00, 8000",
    })
    void calendarWindow_randomWalkAcrossBoundaries_matchesTheReferenceModel(Unit unit, String zone, String from,
            long maxStepMinutes) {
        ZoneId z = ZoneId.of(zone);
        long start = nanos(from, zone);
        for (DayOfWeek weekStart : unit == Unit.WEEK ? List.of(DayOfWeek.MONDAY, DayOfWeek.SUNDAY, DayOfWeek.THURSDAY)
                : List.of(DayOfWeek.MONDAY)) {
            CalendarPeriod period = unit == Unit.WEEK ? CalendarPeriod.week(weekStart, z) : CalendarPeriod.of(unit, z);
            for (long seed = 1; seed <= 4; seed++) {
                FixedWindow fw = FixedWindow.of(5, period);
                SplittableRandom random = new SplittableRandom(seed * 7919 + unit.ordinal());
                long now = start;
                WindowCell cell = fw.newCell(now);
                long windowStart = Long.MIN_VALUE;
                long count = 0;
                MutableDecision out = new MutableDecision();
                for (int step = 0; step < 400; step++) {
                    now += random.nextLong(Duration.ofMinutes(maxStepMinutes).toNanos()) + (random.nextInt(4) == 0 ? 0 : 1);
                    long[] w = referenceWindow(unit, z, weekStart, now);
                    if (w[0] != windowStart) {
                        windowStart = w[0];
                        count = 0;
                    }
                    long cost = random.nextInt(3);
                    boolean admit = count + cost <= 5;
                    int result = fw.acquire(cell, now, cost, out);
                    String at = period + " at " + Instant.ofEpochSecond(0, now) + ", seed " + seed + ", step " + step;
                    assertEquals(admit ? Algorithm.ADMITTED : Algorithm.DENIED, result, at);
                    if (admit) {
                        count += cost;
                        assertEquals(5 - count, out.remaining(), at);
                        assertEquals(count > 0 ? w[1] - now : 0, out.resetNanos(), at);
                    } else {
                        assertEquals(w[1] - now, out.retryAfterNanos(), at);
                    }
                    if (admit && cost > 0 && random.nextInt(8) == 0) {
                        fw.refund(cell, 1, out.receipt(), null);
                        count -= 1;
                    }
                }
            }
        }
    }

    /** Runs two algorithms on the same readings; returns how many decisions differed. */
    private static int run(FixedWindow a, FixedWindow b, long seed, long maxStep, int steps, long start) {
        SplittableRandom random = new SplittableRandom(seed);
        long now = start;
        WindowCell ca = a.newCell(now);
        WindowCell cb = b.newCell(now);
        MutableDecision oa = new MutableDecision();
        MutableDecision ob = new MutableDecision();
        int differ = 0;
        for (int i = 0; i < steps; i++) {
            now += random.nextLong(maxStep);
            long cost = random.nextInt(3);
            int ra = a.acquire(ca, now, cost, oa);
            int rb = b.acquire(cb, now, cost, ob);
            if (ra != rb || oa.remaining() != ob.remaining() || oa.resetNanos() != ob.resetNanos()
                    || (ra == Algorithm.DENIED && oa.retryAfterNanos() != ob.retryAfterNanos())) {
                differ++;
            }
        }
        return differ;
    }

    // ---- concurrency and the cache --------------------------------------------------------

    @Test
    void manyThreads_acrossTheMonthEnd_neverAdmitMoreThanTheLimitPerMonth() throws Exception {
        // Given 8 threads released together on readings that straddle 1 March in Paris
        CalendarPeriod period = CalendarPeriod.of(Unit.MONTH, ZoneId.of("Europe/Paris"));
        long boundary = nanos("2026-03-01T00:00", "Europe/Paris");
        for (int round = 0; round < 20; round++) {
            FixedWindow fw = FixedWindow.of(50, period);
            WindowCell cell = fw.newCell(boundary - HOUR);
            AtomicLong february = new AtomicLong();
            AtomicLong march = new AtomicLong();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                long offset = (t % 2 == 0 ? -1 : 1) * (t + 1);
                threads.add(new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < 40; i++) {
                        long now = boundary + offset * (i + 1);
                        if (fw.acquire(cell, now, 1, null) == Algorithm.ADMITTED) {
                            (now < boundary ? february : march).incrementAndGet();
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            // Then neither month admitted more than its limit
            assertTrue(february.get() <= 50, "february " + february);
            assertTrue(march.get() <= 50, "march " + march);
            assertEquals(50, march.get(), "march, opened by the later readings, fills");
        }
    }

    @Test
    void cachedWindow_movesOnlyForward_andAStaleReadingIsAnsweredExactly() {
        FixedWindow fw = FixedWindow.of(5, CalendarPeriod.of(Unit.DAY, ZoneId.of("Europe/Paris")));
        long mar30 = nanos("2026-03-30T10:00", "Europe/Paris");
        long mar29 = nanos("2026-03-29T10:00", "Europe/Paris");
        CalendarPeriod.Window later = fw.calendarWindow(mar30);
        CalendarPeriod.Window earlier = fw.calendarWindow(mar29);
        // the stale reading gets its own (23-hour) day, and the cache keeps the later one
        assertEquals(23 * HOUR, earlier.end() - earlier.start());
        assertEquals(earlier.end(), later.start());
        assertTrue(fw.calendarWindow(mar30 + HOUR) == later, "the cached window is reused");
        assertFalse(later.holds(mar29));
    }

    @Test
    void decision_inTheCachedWindow_allocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        FixedWindow fw = FixedWindow.of(1_000_000_000L, CalendarPeriod.of(Unit.MONTH, ZoneId.of("Europe/Paris")));
        long now = nanos("2026-03-02T00:00", "Europe/Paris");
        WindowCell cell = fw.newCell(now);
        MutableDecision out = new MutableDecision();
        for (int i = 0; i < 50_000; i++) {
            fw.acquire(cell, now + i * 1000L, 1, out);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 50_000; i++) {
            fw.acquire(cell, now + 50_000_000L + i * 1000L, 1, out);
        }
        long bytes = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(bytes < 50_000, "allocated " + bytes + " bytes in 50,000 decisions");
    }
}
