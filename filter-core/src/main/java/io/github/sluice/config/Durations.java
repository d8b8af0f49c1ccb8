package io.github.sluice.config;

import java.time.Duration;

/** Durations of the configuration language: a whole number and a unit, {@code ms s m h d}. */
final class Durations {

    private Durations() {
    }

    /**
     * Parses e.g. {@code 500ms}, {@code 1s}, {@code 1m}, {@code 2h}, {@code 1d}; a unit alone means
     * one of it ({@code m} is {@code 1m}) when {@code unitAlone} is true.
     *
     * @throws IllegalArgumentException with the rule, if the text is not a duration
     */
    static Duration parse(String text, boolean unitAlone) {
        int i = 0;
        while (i < text.length() && Character.isDigit(text.charAt(i))) {
            i++;
        }
        String number = text.substring(0, i);
        String unit = text.substring(i);
        if (number.isEmpty() && !unitAlone) {
            throw new IllegalArgumentException("a duration must be a whole number followed by ms, s, m, h or d");
        }
        long n;
        try {
            n = number.isEmpty() ? 1 : Long.parseLong(number);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a duration's number must be at most " + Long.MAX_VALUE);
        }
        try {
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> throw new IllegalArgumentException(
                        "a duration must end with one of the units ms, s, m, h, d");
            };
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("a duration must be at most " + Long.MAX_VALUE + " seconds");
        }
    }
}
