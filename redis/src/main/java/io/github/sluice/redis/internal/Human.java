package io.github.sluice.redis.internal;

/**
 * Durations for log lines and messages, never ISO-8601 ({@code PT1S}) or raw nanoseconds: exact
 * in the largest unit that holds them ({@code 10s}, {@code 2m}, {@code 1h}), in milliseconds
 * below a second ({@code 150ms}), else in seconds with one decimal ({@code 23.9s}).
 *
 * <p>Stateless and thread-safe.
 */
public final class Human {

    private static final long[] UNITS = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L};
    private static final String[] NAMES = {"h", "m", "s"};

    private Human() {
    }

    /**
     * @param nanos a duration in nanoseconds
     * @return e.g. {@code 1s}, {@code 150ms}, {@code 23.9s}
     */
    public static String duration(long nanos) {
        if (nanos <= 0) {
            return "0s";
        }
        for (int i = 0; i < UNITS.length; i++) {
            if (nanos % UNITS[i] == 0) {
                return nanos / UNITS[i] + NAMES[i];
            }
        }
        if (nanos < 1_000_000_000L) {
            return nanos % 1_000_000 == 0 ? nanos / 1_000_000 + "ms" : "about " + Math.max(1, nanos / 1_000_000) + "ms";
        }
        long tenths = nanos / 100_000_000L;
        return tenths / 10 + "." + tenths % 10 + "s";
    }
}
