package io.github.sluice.internal;

import java.time.Duration;

/**
 * Durations and counts written the way users write them in messages: {@code 10ms}, {@code 1.5s},
 * {@code 2m}, {@code 7d}; never ISO-8601 ({@code PT0.01S}) and never raw nanoseconds.
 *
 * <p>Stateless and thread-safe.
 */
public final class Units {

    /** The units, largest first, with their suffixes. */
    private static final long[] NANOS = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
        1_000_000_000L, 1_000_000L, 1_000L, 1L};
    private static final String[] SUFFIX = {"d", "h", "m", "s", "ms", "us", "ns"};

    /**
     * The longest duration any algorithm accepts ({@link Checks#MAX_NANOS}), in words:
     * {@code 26687d (about 73 years)}.
     */
    public static final String MAX_DURATION = Checks.MAX_NANOS / NANOS[0] + "d (about 73 years)";

    private Units() {
    }

    /**
     * Formats nanoseconds compactly: exactly, in the largest unit or the next that needs at most
     * one decimal ({@code 10ms}, {@code 1.5s}, {@code 90m}), or as two exact parts
     * ({@code 7d 1ms}); otherwise rounded, in the largest unit, after the word {@code about}
     * ({@code about 333.3ms}).
     *
     * @param nanos a duration in nanoseconds, any sign
     * @return e.g. {@code 1.5s}
     */
    public static String duration(long nanos) {
        if (nanos == 0) {
            return "0s";
        }
        if (nanos < 0) {
            return nanos == Long.MIN_VALUE ? "about -106751d" : "-" + duration(-nanos);
        }
        int top = 0;
        while (nanos < NANOS[top]) {
            top++;
        }
        // Exact in the largest unit or the next one, with at most one decimal.
        for (int u = top; u < Math.min(top + 2, NANOS.length); u++) {
            long unit = NANOS[u];
            long rest = nanos % unit;
            if (rest == 0) {
                return nanos / unit + SUFFIX[u];
            }
            if (unit % 10 == 0 && rest % (unit / 10) == 0) {
                return nanos / unit + "." + rest / (unit / 10) + SUFFIX[u];
            }
        }
        // Exact as two parts, such as 7d 1ms (a value just past a bound must not read as the bound).
        long rest = nanos % NANOS[top];
        for (int u = top + 1; u < NANOS.length; u++) {
            if (rest >= NANOS[u]) {
                if (rest % NANOS[u] == 0) {
                    return nanos / NANOS[top] + SUFFIX[top] + " " + rest / NANOS[u] + SUFFIX[u];
                }
                break;
            }
        }
        return "about " + rounded((double) nanos / NANOS[top]) + SUFFIX[top];
    }

    /**
     * Formats a duration compactly, as {@link #duration(long)}; one beyond the range of
     * nanoseconds in a {@code long} is written in days.
     *
     * @param d the duration
     * @return e.g. {@code 2m}
     * @throws NullPointerException if {@code d} is null
     */
    public static String duration(Duration d) {
        long s = d.getSeconds();
        if (s > -9_000_000_000L && s < 9_000_000_000L) {
            return duration(d.toNanos());
        }
        long days = s / 86_400;
        return s % 86_400 == 0 && d.getNano() == 0 ? days + "d" : "about " + days + "d";
    }

    /** One decimal at most, without a trailing {@code .0}. */
    private static String rounded(double v) {
        long tenths = Math.round(v * 10);
        return tenths % 10 == 0 ? Long.toString(tenths / 10) : tenths / 10 + "." + tenths % 10;
    }
}
