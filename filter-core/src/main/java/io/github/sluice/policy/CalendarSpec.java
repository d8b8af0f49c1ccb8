package io.github.sluice.policy;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.internal.Suggest;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The calendar words of {@code fixed-window}: {@code N/day}, {@code N/week}, {@code N/month},
 * {@code N/year}, with {@code zone=} (an IANA zone such as {@code Europe/Paris}, or an offset;
 * default {@code UTC}) and, for a week, {@code week-start=} (default {@code monday}). A duration
 * such as {@code 1d} stays a window of fixed length aligned to the epoch. Each misplaced word is
 * refused by name: a zone or week start on a duration, a week start on another unit, an
 * {@code align} on a calendar window.
 */
final class CalendarSpec {

    /** The words that name a calendar unit after the slash. */
    static final List<String> UNITS = List.of("day", "week", "month", "year");
    private static final List<String> DAYS = List.of("monday", "tuesday", "wednesday", "thursday", "friday",
            "saturday", "sunday");

    private CalendarSpec() {
    }

    /**
     * @param positional the first positional argument, as written ({@code 10000/month})
     * @return whether its period is a calendar word
     */
    static boolean isCalendar(String positional) {
        int slash = positional == null ? -1 : positional.indexOf('/');
        return slash >= 0 && UNITS.contains(positional.substring(slash + 1));
    }

    /** {@code fixed-window N/unit [zone=Z] [week-start=D]}: a calendar window. */
    static FixedWindow fixedWindow(Args a) {
        Line ctx = a.ctx;
        String text = a.positional("limit", "limit as permits/period (e.g. 10000/month)");
        int slash = text.indexOf('/');
        String permits = text.substring(0, slash);
        String word = text.substring(slash + 1);
        if (!permits.matches("[0-9]+")) {
            throw ctx.error("limit", text, "limit must be written permits/period with whole permits, e.g. 10000/month");
        }
        long n = a.longValue("limit", permits, Args.MAX_NUMBER);
        CalendarPeriod.Unit unit = CalendarPeriod.Unit.valueOf(word.toUpperCase(Locale.ROOT));
        String align = a.option("align");
        if (align != null) {
            throw ctx.error("align", align, "align does not apply to a calendar window (" + text + "): its"
                    + " windows start on the calendar's boundaries in its zone, the same for every key; remove"
                    + " align, or write a duration (e.g. 30d align=first-request) for a window that starts at a"
                    + " key's first request");
        }
        ZoneId zone = zone(a);
        String weekStart = a.option("week-start");
        CalendarPeriod period;
        if (weekStart != null) {
            if (unit != CalendarPeriod.Unit.WEEK) {
                throw ctx.error("week-start", weekStart, "week-start applies only to a calendar week (N/week)"
                        + " but the period is " + word);
            }
            period = CalendarPeriod.week(dayOfWeek(ctx, weekStart), zone);
        } else {
            period = CalendarPeriod.of(unit, zone);
        }
        FixedWindow.Builder b = FixedWindow.builder();
        ctx.call("limit", text, () -> b.limit(n));
        b.calendar(period);
        return ctx.call("limit", text, b::build);
    }

    /** Refuses {@code zone=} and {@code week-start=} on a window that is a duration. */
    static void refuseOnDuration(Args a, String limitText) {
        for (String option : List.of("zone", "week-start")) {
            String v = a.peek(option);
            if (v != null) {
                a.option(option);
                throw a.ctx.error(option, v, option + " applies only to a calendar period (N/day, N/week, N/month,"
                        + " N/year) but the window is a duration (" + limitText + "), which is aligned to the epoch");
            }
        }
    }

    private static ZoneId zone(Args a) {
        String text = a.option("zone");
        if (text == null) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(text);
        } catch (DateTimeException e) {
            List<String> known = new ArrayList<>(ZoneId.getAvailableZoneIds());
            known.add("UTC");
            throw a.ctx.error("zone", text, "zone must be a time zone ID such as Europe/Paris, America/New_York"
                    + " or UTC, or an offset such as +05:30 (an ID of the IANA time zone database, as"
                    + " java.time.ZoneId reads it)" + Suggest.didYouMean(text, known));
        }
    }

    private static DayOfWeek dayOfWeek(Line ctx, String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        int i = DAYS.indexOf(lower);
        if (i < 0) {
            throw ctx.error("week-start", text, "week-start must be a day of the week: " + String.join(", ", DAYS)
                    + Suggest.didYouMean(lower, DAYS));
        }
        return DayOfWeek.of(i + 1);
    }
}
