package io.github.sluice.store;

import java.util.Locale;

/** Writes counts and sizes for messages: {@code 1,000,000} and {@code 268,435,456 bytes (256 MiB)}. */
final class Bytes {

    private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

    private Bytes() {
    }

    /** @return {@code n} with thousands separated by commas */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** @return {@code bytes} as a count, followed by a binary unit in brackets from 1 KiB up */
    static String describe(long bytes) {
        if (bytes == Long.MAX_VALUE) {
            return "more than " + count(Long.MAX_VALUE) + " bytes";
        }
        String exact = count(bytes) + (bytes == 1 ? " byte" : " bytes");
        if (bytes < 1024) {
            return exact;
        }
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < UNITS.length - 1) {
            value /= 1024;
            unit++;
        }
        String rounded = String.format(Locale.ROOT, "%.1f", value);
        if (rounded.endsWith(".0")) {
            rounded = rounded.substring(0, rounded.length() - 2);
        }
        return exact + " (" + rounded + " " + UNITS[unit] + ")";
    }
}
