package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.CalendarPeriod.Unit;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.Inheritance;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Calendar windows on a real Redis: the script decides as the in-memory algorithm across month
 * ends, leap days and daylight-saving changes; instances whose clocks disagree count in the one
 * window Redis's clock is in; a calendar policy may change its limit but not its calendar.
 */
@ExtendWith(RedisServerExtension.class)
class CalendarRedisTest {

    private static final long HOUR = 3_600_000_000_000L;

    private final RedisServer redis;

    CalendarRedisTest(RedisServer redis) {
        this.redis = redis;
    }

    private static long nanos(String local, String zone) {
        return LocalDateTime.parse(local).atZone(ZoneId.of(zone)).toEpochSecond() * 1_000_000_000L;
    }

    @ParameterizedTest(name = "{0} in {1} from {2}")
    @CsvSource({
        "DAY, Europe/Paris, 2026-03-28T22:00, 3600",
        "DAY, Europe/Paris, 2026-10-24T22:00, 3600",
        "DAY, Australia/Sydney, 2026-04-04T20:00, 3600",
        "WEEK, America/New_York, 2026-03-01T00:00, 40000",
        "MONTH, America/New_York, 2026-10-29T00:00, 90000",
        "MONTH, UTC, 2028-02-27T00:00, 90000",
        "MONTH, Asia/Kolkata, 2026-01-30T00:00, 90000",
        "YEAR, Asia/Kolkata, 2027-12-30T00:00, 200000",
    })
    void calendarWindow_acrossBoundaries_decidesAsMemory(Unit unit, String zone, String from, long maxStepSeconds) {
        CalendarPeriod period = unit == Unit.WEEK ? CalendarPeriod.week(DayOfWeek.SUNDAY, ZoneId.of(zone))
                : CalendarPeriod.of(unit, ZoneId.of(zone));
        try (Differential d = new Differential(redis, 0)) {
            d.startAt(nanos(from, zone)).maxStep(maxStepSeconds * 1_000_000L).steps(300);
            for (long seed = 1; seed <= 2; seed++) {
                d.run(FixedWindow.of(4, period), seed);
            }
        }
    }

    /** A clock {@code offset} nanoseconds from the system's: an instance whose clock is off. */
    private static Clock skewed(long offset) {
        return () -> Clock.system().nanos() + offset;
    }

    /** A zone whose midnight was {@code ago} before now, so that a day began then. */
    private static ZoneId midnightAgo(Duration ago) {
        long now = Clock.system().nanos() / 1_000_000_000L;
        long secondsIntoDay = ago.toSeconds(); // local time of day now
        long offset = Math.floorMod(secondsIntoDay - Math.floorMod(now, 86_400L), 86_400L);
        return ZoneOffset.ofTotalSeconds((int) (offset > 64_800 ? offset - 86_400 : offset));
    }

    private RedisStore redisTime(long offset) {
        RedisStore.Builder b = RedisStore.builder().uri(redis.uri()).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5));
        b.systemClock = skewed(offset);
        return b.build();
    }

    @Test
    void instancesWithSkewedClocks_redisTime_countInRedisClocksDay() {
        // Given a day that began an hour ago by Redis's clock, and two instances: one on time, one
        // whose clock lags two hours and so still reads yesterday
        FixedWindow daily = FixedWindow.of(5, CalendarPeriod.of(Unit.DAY, midnightAgo(Duration.ofHours(1))));
        try (RedisStore onTime = redisTime(0); RedisStore lagging = redisTime(-2 * HOUR)) {
            KeySpace a = onTime.keySpace("daily", daily);
            KeySpace b = lagging.keySpace("daily", daily);
            MutableDecision out = new MutableDecision();

            // When both spend on the same key
            int admitted = 0;
            for (int i = 0; i < 6; i++) {
                admitted += (b.acquire("customer-1", 1, out) ? 1 : 0) + (a.acquire("customer-1", 1, out) ? 1 : 0);
                assertFalse(out.degraded());
            }

            // Then one day of Redis's clock holds them: 5 in all, not 5 per instance's day, and
            // the lagging instance is told the real time to Redis's midnight, about 23 hours
            assertEquals(5, admitted);
            b.acquire("customer-1", 1, out);
            assertFalse(out.allowed());
            long left = out.retryAfterNanos();
            assertTrue(left > 22 * HOUR && left <= 23 * HOUR, "retry-after " + Duration.ofNanos(left));
        }
    }

    @Test
    void instanceClockOffByMoreThanAWindow_redisTime_isAFailureNotACount() {
        // Given an instance whose clock is three days behind Redis's
        FixedWindow daily = FixedWindow.of(5, CalendarPeriod.of(Unit.DAY, ZoneOffset.UTC));
        try (RedisStore wrong = redisTime(-72 * HOUR)) {
            MutableDecision out = new MutableDecision();

            // When it decides
            wrong.keySpace("daily", daily).acquire("customer-1", 1, out);

            // Then the script refuses to count in a window no other instance reads: the failure
            // policy (fail open by default) decided, and nothing was written
            assertTrue(out.degraded());
            assertEquals(0L, ((Number) redis.call("DBSIZE")).longValue());
        }
    }

    @Test
    void limitChange_keepsTheMonthsCount_calendarChangeIsRefused() {
        FakeClock clock = new FakeClock(nanos("2026-02-27T12:00", "Europe/Paris"));
        FixedWindow five = FixedWindow.of(5, CalendarPeriod.of(Unit.MONTH, ZoneId.of("Europe/Paris")));
        FixedWindow eight = FixedWindow.of(8, CalendarPeriod.of(Unit.MONTH, ZoneId.of("Europe/Paris")));
        FixedWindow newYork = FixedWindow.of(5, CalendarPeriod.of(Unit.MONTH, ZoneId.of("America/New_York")));
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).build()) {
            KeySpace space = store.keySpace("monthly", five);
            MutableDecision out = new MutableDecision();
            for (int i = 0; i < 5; i++) {
                assertTrue(space.acquire("c", 1, out));
            }

            // When the limit is raised, the 5 taken this month stay taken
            KeySpace raised = store.rebind(space, eight, Inheritance.KEEP_CONSUMED);
            int more = 0;
            while (raised.acquire("c", 1, out)) {
                more++;
            }
            assertEquals(3, more);

            // And a change of zone is refused by name: the count is kept by the window's start
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.rebind(raised, newYork, Inheritance.KEEP_CONSUMED));
            assertTrue(e.getMessage().contains("its calendar, from month zone=Europe/Paris"), e.getMessage());
        }
    }
}
