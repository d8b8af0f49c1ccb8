package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.CalendarPeriod.Unit;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The policy language's calendar windows: {@code fixed-window N/day|week|month|year [zone=] [week-start=]}. */
class CalendarPolicyTest {

    private static Algorithm<?> parsed(String spec) {
        return Policy.parse("p = " + spec + " key=global").algorithm();
    }

    @Test
    void month_withZone_equalsTheBuilder() {
        assertEquals(FixedWindow.of(10_000, CalendarPeriod.of(Unit.MONTH, ZoneId.of("Europe/Paris"))),
                parsed("fixed-window 10000/month zone=Europe/Paris"));
        assertEquals(FixedWindow.of(500, CalendarPeriod.week(DayOfWeek.SUNDAY, ZoneId.of("America/New_York"))),
                parsed("fixed-window 500/week week-start=sunday zone=America/New_York"));
        assertEquals(FixedWindow.of(500, CalendarPeriod.of(Unit.WEEK, ZoneOffset.UTC)),
                parsed("fixed-window 500/week week-start=Monday"));
        assertEquals(FixedWindow.of(5, CalendarPeriod.of(Unit.YEAR, ZoneId.of("+05:30"))),
                parsed("fixed-window 5/year zone=+05:30"));
    }

    @Test
    void noZone_isUtc_whateverTheJvmsDefaultZone() {
        TimeZone before = TimeZone.getDefault();
        try {
            // Given a JVM whose default zone is far from UTC
            TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Auckland"));

            // When a calendar policy names no zone
            FixedWindow fw = (FixedWindow) parsed("fixed-window 3/day");

            // Then its day is UTC's: it ends at the next UTC midnight
            assertEquals(ZoneOffset.UTC, fw.calendar().zone());
            long noonUtc = 1_767_268_800_000_000_000L; // 2026-01-01T12:00Z
            MutableDecision out = new MutableDecision();
            fw.acquire(fw.newCell(noonUtc), noonUtc, 1, out);
            assertEquals(12 * 3_600_000_000_000L, out.resetNanos());
        } finally {
            TimeZone.setDefault(before);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "fixed-window 10000/month zone=Europe/Paris",
        "fixed-window 7/day",
        "fixed-window 7/day zone=Asia/Kolkata",
        "fixed-window 9/week week-start=saturday zone=Australia/Sydney",
        "fixed-window 9/week zone=UTC",
        "fixed-window 1/year zone=Pacific/Apia",
    })
    void format_ofACalendarWindow_parsesBackToTheSameAlgorithm(String spec) {
        Algorithm<?> a = parsed(spec);
        String written = PolicyFormat.algorithm(a);
        assertEquals(a, parsed(written), written);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // unknown zones name the parameter and value, with the nearest known ID
        "fixed-window 5/month zone=Europe/Pari | zone | Europe/Pari | did you mean 'Europe/Paris'?",
        "fixed-window 5/month zone=europe/paris | zone | europe/paris | did you mean 'Europe/Paris'?",
        "fixed-window 5/month zone=CEST | zone | CEST | time zone ID",
        // week-start belongs to weeks only, and must be a day
        "fixed-window 5/month week-start=monday | week-start | monday | applies only to a calendar week",
        "fixed-window 5/week week-start=mon | week-start | mon | must be a day of the week",
        "fixed-window 5/week week-start=sundy | week-start | sundy | did you mean 'sunday'?",
        // align has no meaning on a calendar window
        "fixed-window 5/month align=first-request | align | first-request | does not apply to a calendar window",
        "fixed-window 5/day align=epoch | align | epoch | does not apply to a calendar window",
        // a zone or week start on a duration is a mistake, not silently ignored
        "fixed-window 5/1d zone=Europe/Paris | zone | Europe/Paris | applies only to a calendar period",
        "fixed-window 5/7d week-start=sunday | week-start | sunday | applies only to a calendar period",
        // other algorithms have no calendar periods; '1month' is never read as one minute
        "token-bucket 5/month | rate | 5/month | in fixed-window only",
        "fixed-window 5/1month | limit | 5/1month | in fixed-window only",
        "fixed-window 5/months | limit | 5/months | in fixed-window only",
        "fixed-window x/month | limit | x/month | whole permits",
        "fixed-window 0/month | limit | 0/month | limit must be >= 1",
        "fixed-window 70368744177664/month | limit | 70368744177664/month | limit must be at most 70368744177663 for a calendar month",
    })
    void badCalendarConfiguration_failsNamingParameterAndValue(String spec, String parameter, String value,
            String rule) {
        ConfigException e = assertThrows(ConfigException.class, () -> parsed(spec));
        assertEquals(parameter, e.parameter(), e.getMessage());
        assertEquals(value, e.value(), e.getMessage());
        assertTrue(e.getMessage().contains(rule), e.getMessage());
        assertFalse(e.getMessage().contains("'1m'"), e.getMessage());
    }
}
