package io.github.sluice.policy;

import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Suggest;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Durations of the configuration language: a whole number of ASCII digits and a unit,
 * {@code ms s m h d}. A refusal says what the user should write instead, in the unit they used:
 * {@code write 1500ms} for {@code 1.5s}, {@code did you mean '1m'?} for {@code 1min},
 * {@code at most 38430716m} for a number of minutes past the longest duration.
 */
final class Durations {

    private static final List<String> UNITS = List.of("ms", "s", "m", "h", "d");
    private static final long[] UNIT_NANOS = {1_000_000L, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L,
        86_400_000_000_000L};
    private static final String UNIT_LIST = "ms, s, m (minutes), h, d";
    /** Units people write that mean one of ours. */
    private static final Map<String, String> ALIASES = Map.ofEntries(
            Map.entry("msec", "ms"), Map.entry("msecs", "ms"), Map.entry("millis", "ms"),
            Map.entry("millisecond", "ms"), Map.entry("milliseconds", "ms"),
            Map.entry("sec", "s"), Map.entry("secs", "s"), Map.entry("second", "s"), Map.entry("seconds", "s"),
            Map.entry("min", "m"), Map.entry("mins", "m"), Map.entry("minute", "m"), Map.entry("minutes", "m"),
            Map.entry("hr", "h"), Map.entry("hrs", "h"), Map.entry("hour", "h"), Map.entry("hours", "h"),
            Map.entry("day", "d"), Map.entry("days", "d"));

    private Durations() {
    }

    /**
     * Parses e.g. {@code 500ms}, {@code 1s}, {@code 1m}, {@code 2h}, {@code 1d}; a unit alone means
     * one of it ({@code m} is {@code 1m}) when {@code unitAlone} is true.
     *
     * @param subject what the duration is, to begin the message, e.g. {@code max-delay} or
     *     {@code the period of rate}
     * @param text the duration as written
     * @param unitAlone whether a unit without a number means one of it
     * @return the duration, at most {@link Checks#MAX_NANOS} long
     * @throws IllegalArgumentException with the whole reason, if the text is not such a duration
     */
    static Duration parse(String subject, String text, boolean unitAlone) {
        if (text.startsWith("-")) {
            throw new IllegalArgumentException(subject + " must not be negative");
        }
        int i = 0;
        while (i < text.length() && Character.isDigit(text.charAt(i))) {
            Args.requireAscii(subject, text.charAt(i));
            i++;
        }
        String number = text.substring(0, i);
        if (i < text.length() && text.charAt(i) == '.' && !number.isEmpty()) {
            throw new IllegalArgumentException(subject + " must be a whole number of its unit" + wholeForm(text, i));
        }
        String unit = text.substring(i);
        int u = UNITS.indexOf(unit);
        if (u < 0 && number.isEmpty()) {
            throw new IllegalArgumentException(subject
                    + " must be a whole number followed by ms, s, m, h or d, e.g. 500ms, 30s, 1m, 2h, 1d"
                    + calendarHint(unit));
        }
        if (u < 0) {
            throw new IllegalArgumentException(subject + " must end with one of the units " + UNIT_LIST
                    + unitHint(number.isEmpty() ? "1" : number, unit));
        }
        if (number.isEmpty()) {
            if (!unitAlone) {
                throw new IllegalArgumentException(subject
                        + " must be a whole number followed by ms, s, m, h or d, e.g. 500ms, 30s, 1m, 2h, 1d");
            }
            number = "1";
        }
        long max = Checks.MAX_NANOS / UNIT_NANOS[u];
        if (number.length() > 18 || Long.parseLong(number) > max) {
            throw new IllegalArgumentException(subject + " is too large: at most " + max + unit + " (about 73 years)");
        }
        return Duration.ofNanos(Long.parseLong(number) * UNIT_NANOS[u]);
    }

    /** {@code ; write 1500ms} for {@code 1.5s}, when a smaller unit holds the value exactly. */
    private static String wholeForm(String text, int dot) {
        int j = dot + 1;
        while (j < text.length() && text.charAt(j) >= '0' && text.charAt(j) <= '9') {
            j++;
        }
        String fraction = text.substring(dot + 1, j);
        int u = UNITS.indexOf(text.substring(j));
        if (u <= 0 || fraction.isEmpty() || dot > 15 || fraction.length() > 9) {
            return "";
        }
        long scale = 1;
        for (int k = 0; k < fraction.length(); k++) {
            scale *= 10;
        }
        long whole = Long.parseLong(text.substring(0, dot));
        long part = Long.parseLong(fraction);
        for (int smaller = u - 1; smaller >= 0; smaller--) {
            long ratio = UNIT_NANOS[u] / UNIT_NANOS[smaller];
            if ((part * ratio) % scale == 0) {
                return "; write " + (whole * ratio + part * ratio / scale) + UNITS.get(smaller);
            }
        }
        return "";
    }

    /**
     * A calendar word ({@code month}, {@code 1month}, {@code years}) is not a duration: saying
     * "did you mean 1m" for it would turn a month into a minute.
     */
    private static String calendarHint(String unit) {
        String lower = unit.toLowerCase(Locale.ROOT);
        String singular = lower.endsWith("s") ? lower.substring(0, lower.length() - 1) : lower;
        if (!CalendarSpec.UNITS.contains(singular)) {
            return "";
        }
        return "; a calendar " + singular + " (one, renewed on the calendar's boundary) is written N/" + singular
                + " in fixed-window only, e.g. fixed-window 10000/month zone=Europe/Paris; a duration is written"
                + " in ms, s, m, h or d, e.g. 30d";
    }

    private static String unitHint(String number, String unit) {
        String lower = unit.toLowerCase(Locale.ROOT);
        String calendar = calendarHint(unit);
        if (!calendar.isEmpty() && (lower.startsWith("month") || lower.startsWith("year"))) {
            return calendar;
        }
        if (lower.equals("ns") || lower.equals("us") || lower.equals("\u00b5s")) {
            return "; durations below a millisecond are not supported";
        }
        if (lower.equals("w") || lower.equals("week") || lower.equals("weeks")) {
            return number.length() < 12 ? "; write " + Long.parseLong(number) * 7 + "d for "
                    + (number.equals("1") ? "a week" : number + " weeks") : "";
        }
        String meant = ALIASES.get(lower);
        if (meant == null) {
            meant = Suggest.nearest(unit, UNITS);
        }
        return meant == null || unit.isEmpty() ? "" : "; did you mean '" + number + meant + "'?";
    }
}
