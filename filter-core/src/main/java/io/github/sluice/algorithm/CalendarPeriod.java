package io.github.sluice.algorithm;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A calendar period in a time zone: the windows of a {@link FixedWindow} that resets on the
 * calendar, a day, a week (from a chosen first day), a month or a year, each starting at the first
 * instant of its first day in the zone ({@link LocalDate#atStartOfDay(ZoneId)}).
 *
 * <p>The windows come from the zone's rules ({@link java.time.zone.ZoneRules}), so they have their
 * real lengths: a month of 28, 29, 30 or 31 days, a year of 365 or 366, and a day of 23 or 25
 * hours across a daylight-saving change is one day (one window). A day the zone skipped (Samoa
 * went from 29 to 31 December 2011) is a window of no length that no instant falls in; a day whose
 * midnight a daylight-saving change skips starts at the first instant the day has.
 *
 * <p>Windows are numbered by an <em>ordinal</em>: for a day, the local date's epoch day
 * ({@link LocalDate#toEpochDay()}); for a week, the weeks since the week (of the chosen first day)
 * that holds 1970-01-01; for a month, {@code (year - 1970) * 12 + month - 1}; for a year,
 * {@code year - 1970}. Ordinals grow with time (a zone's offset changes by less than a day at once,
 * except where the zone skipped or repeated a whole date, where an ordinal is skipped or an
 * earlier one comes back for a day; see {@link #ordinal}).
 *
 * <p>The conversions here read the zone's rules and may allocate: they are for the slow path, once
 * per window. {@link FixedWindow} caches the window that holds the latest reading.
 *
 * <p>Immutable and thread-safe. Two periods are equal when their unit, zone and first day of the
 * week are.
 */
public final class CalendarPeriod {

    /** The calendar unit of a window. */
    public enum Unit {
        /** A calendar day, from midnight to midnight in the zone (23, 24 or 25 hours, or another length at a zone change). */
        DAY,
        /** A week of seven calendar days, from the chosen first day. */
        WEEK,
        /** A calendar month: 28 to 31 days. */
        MONTH,
        /** A calendar year: 365 or 366 days. */
        YEAR
    }

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long DAY_NANOS = 86_400L * NANOS_PER_SECOND;

    private final Unit unit;
    private final ZoneId zone;
    private final DayOfWeek weekStart;
    /** The epoch day of the first day of week 0 (a {@link #weekStart} day within 6 days of 1970-01-01). */
    private final long weekZero;

    private CalendarPeriod(Unit unit, ZoneId zone, DayOfWeek weekStart) {
        this.unit = unit;
        this.zone = zone;
        this.weekStart = weekStart;
        // 1970-01-01 (epoch day 0) was a Thursday (ISO value 4).
        this.weekZero = weekStart == null ? 0 : weekStart.getValue() - 4;
    }

    /**
     * A day, month or year in a zone ({@code fixed-window 10000/month zone=Europe/Paris}:
     * {@code CalendarPeriod.of(Unit.MONTH, ZoneId.of("Europe/Paris"))}). A week starts on Monday
     * (ISO 8601); for another first day use {@link #week(DayOfWeek, ZoneId)}.
     *
     * @param unit the calendar unit
     * @param zone the zone whose calendar the windows follow, e.g. {@code ZoneOffset.UTC}
     * @return the period
     * @throws NullPointerException if an argument is null
     */
    public static CalendarPeriod of(Unit unit, ZoneId zone) {
        Objects.requireNonNull(unit, "unit");
        return new CalendarPeriod(unit, Objects.requireNonNull(zone, "zone").normalized(),
                unit == Unit.WEEK ? DayOfWeek.MONDAY : null);
    }

    /**
     * A week that starts on {@code weekStart} in a zone ({@code fixed-window 500/week
     * week-start=sunday zone=America/New_York}).
     *
     * @param weekStart the first day of the week
     * @param zone the zone whose calendar the windows follow
     * @return the period
     * @throws NullPointerException if an argument is null
     */
    public static CalendarPeriod week(DayOfWeek weekStart, ZoneId zone) {
        return new CalendarPeriod(Unit.WEEK, Objects.requireNonNull(zone, "zone").normalized(),
                Objects.requireNonNull(weekStart, "weekStart"));
    }

    /** @return the calendar unit */
    public Unit unit() {
        return unit;
    }

    /** @return the zone, {@linkplain ZoneId#normalized() normalized} (a fixed offset named by a region is its offset) */
    public ZoneId zone() {
        return zone;
    }

    /** @return the first day of a week, or {@code null} unless the unit is {@link Unit#WEEK} */
    public DayOfWeek weekStart() {
        return weekStart;
    }

    /**
     * The length announced for a window of this period ({@code w} in {@code RateLimit-Policy}): its
     * longest length without a daylight-saving change, 1 day, 7 days, 31 days or 366 days. The real
     * length of a window is {@code end - start} of its {@link Window}.
     *
     * @return the nominal window, nanoseconds
     */
    public long nominalNanos() {
        return switch (unit) {
            case DAY -> DAY_NANOS;
            case WEEK -> 7 * DAY_NANOS;
            case MONTH -> 31 * DAY_NANOS;
            case YEAR -> 366 * DAY_NANOS;
        };
    }

    /**
     * The shortest a window that holds an instant can be (12 hours: no zone has shortened a day
     * further without skipping it whole); bounds the limit a window's word can count.
     *
     * @return nanoseconds
     */
    long shortestNanos() {
        return DAY_NANOS / 2;
    }

    /**
     * The number of the window that holds an instant.
     *
     * @param epochNanos an instant, nanoseconds since the epoch (a {@link io.github.sluice.core.Clock} reading)
     * @return its window's ordinal
     */
    public long ordinal(long epochNanos) {
        Instant instant = Instant.ofEpochSecond(Math.floorDiv(epochNanos, NANOS_PER_SECOND));
        ZoneOffset offset = zone.getRules().getOffset(instant);
        long localDay = Math.floorDiv(instant.getEpochSecond() + offset.getTotalSeconds(), 86_400L);
        return switch (unit) {
            case DAY -> localDay;
            case WEEK -> Math.floorDiv(localDay - weekZero, 7);
            case MONTH -> {
                LocalDate d = LocalDate.ofEpochDay(localDay);
                yield (d.getYear() - 1970L) * 12 + d.getMonthValue() - 1;
            }
            case YEAR -> LocalDate.ofEpochDay(localDay).getYear() - 1970L;
        };
    }

    /**
     * The first instant of a window: the start of its first day in the zone.
     *
     * @param ordinal the window's ordinal
     * @return nanoseconds since the epoch, saturated to the range of a {@code long}
     */
    public long startNanos(long ordinal) {
        LocalDate first;
        try {
            first = switch (unit) {
                case DAY -> LocalDate.ofEpochDay(ordinal);
                case WEEK -> LocalDate.ofEpochDay(Math.addExact(Math.multiplyExact(ordinal, 7), weekZero));
                case MONTH -> LocalDate.of(Math.toIntExact(1970 + Math.floorDiv(ordinal, 12)),
                        Math.floorMod(ordinal, 12) + 1, 1);
                case YEAR -> LocalDate.of(Math.toIntExact(1970 + ordinal), 1, 1);
            };
        } catch (ArithmeticException | DateTimeException e) {
            return ordinal < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        long seconds = first.atStartOfDay(zone).toEpochSecond();
        if (seconds > Long.MAX_VALUE / NANOS_PER_SECOND) {
            return Long.MAX_VALUE;
        }
        if (seconds < Long.MIN_VALUE / NANOS_PER_SECOND) {
            return Long.MIN_VALUE;
        }
        return seconds * NANOS_PER_SECOND;
    }

    /**
     * The window that holds an instant, with its neighbours' bounds. Computes with the zone's
     * rules and allocates: call it once per window, not per decision.
     *
     * @param epochNanos an instant, nanoseconds since the epoch
     * @return the window
     */
    public Window windowAt(long epochNanos) {
        long ordinal = ordinal(epochNanos);
        long start = startNanos(ordinal);
        long end = startNanos(ordinal + 1);
        // A repeated date (a zone that moved back across a whole day) may put the instant before
        // its own date's start or after its end: the window is then the span of readings that
        // share the ordinal around it, clipped to hold the instant.
        if (epochNanos < start) {
            start = epochNanos;
        }
        if (epochNanos >= end) {
            end = epochNanos + 1;
        }
        return new Window(ordinal, startNanos(ordinal - 1), start, end, startNanos(ordinal + 2));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CalendarPeriod p && p.unit == unit && p.zone.equals(zone)
                && Objects.equals(p.weekStart, weekStart);
    }

    @Override
    public int hashCode() {
        return Objects.hash(unit, zone, weekStart);
    }

    /**
     * @return the policy language's words, e.g. {@code month zone=Europe/Paris} or
     *     {@code week week-start=sunday zone=UTC}
     */
    @Override
    public String toString() {
        return unit.name().toLowerCase(java.util.Locale.ROOT)
                + (unit == Unit.WEEK && weekStart != DayOfWeek.MONDAY
                        ? " week-start=" + weekStart.name().toLowerCase(java.util.Locale.ROOT) : "")
                + " zone=" + (zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId());
    }

    /**
     * One window of a calendar period, {@code [start, end)} in nanoseconds since the epoch, with
     * the start of the window before it and the end of the window after it (what the Redis store
     * sends its script, so that the script picks the window by its own clock). Immutable.
     */
    public static final class Window {
        private final long ordinal;
        private final long previousStart;
        private final long start;
        private final long end;
        private final long nextEnd;

        Window(long ordinal, long previousStart, long start, long end, long nextEnd) {
            this.ordinal = ordinal;
            this.previousStart = previousStart;
            this.start = start;
            this.end = end;
            this.nextEnd = nextEnd;
        }

        /** @return the window's ordinal (see {@link CalendarPeriod}) */
        public long ordinal() {
            return ordinal;
        }

        /** @return the start of the window before this one, nanoseconds since the epoch */
        public long previousStart() {
            return previousStart;
        }

        /** @return the first instant of the window, nanoseconds since the epoch */
        public long start() {
            return start;
        }

        /** @return the first instant after the window (the next window's start), nanoseconds since the epoch */
        public long end() {
            return end;
        }

        /** @return the end of the window after this one, nanoseconds since the epoch */
        public long nextEnd() {
            return nextEnd;
        }

        /**
         * @param epochNanos an instant
         * @return whether the window holds it
         */
        public boolean holds(long epochNanos) {
            // Plain comparisons: a bound saturated at the range of a long must not wrap.
            return epochNanos >= start && epochNanos < end;
        }

        @Override
        public String toString() {
            return "[" + Instant.ofEpochSecond(0, start) + ", " + Instant.ofEpochSecond(0, end) + ")";
        }
    }
}
