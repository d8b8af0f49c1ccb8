package io.github.sluice.policy;

import io.github.sluice.internal.Suggest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The words of one policy specification: the algorithm, positional arguments and options, and
 * the checks of their values. Numbers are whole numbers of ASCII digits (other scripts' digits,
 * which {@link Character#isDigit} accepts, are refused by name); a number above a parameter's
 * maximum is "too large", with the maximum; an unknown option or flag near a known one gets a
 * "did you mean".
 */
final class Args {

    /** Options every policy accepts, whatever its algorithm. */
    static final Set<String> COMMON = Set.of("key", "match", "cost", "status", "dry-run", "allow", "unresolved",
            "cost-default");
    /** Options that may be written without a value. */
    private static final Set<String> FLAGS = Set.of("dry-run");
    /** The largest number any count of the language takes, where the parameter sets no lower bound. */
    static final long MAX_NUMBER = 1_000_000_000_000_000_000L;

    final Line ctx;
    final String kind;
    private final List<String> positional = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();
    /** Bare words written after the options: misplaced arguments or misspelt flags. */
    private final List<String> stray = new ArrayList<>();
    private final Set<String> used = new TreeSet<>();
    private int positionalUsed;

    private Args(Line ctx, String kind) {
        this.ctx = ctx;
        this.kind = kind;
    }

    static Args tokenize(Line ctx, String spec) {
        String[] words = spec.split("[ \t]+");
        Args a = new Args(ctx, words[0]);
        for (int i = 1; i < words.length; i++) {
            String w = words[i];
            int eq = w.indexOf('=');
            String name;
            String value;
            if (eq > 0) {
                name = w.substring(0, eq);
                value = w.substring(eq + 1);
            } else if (eq == 0) {
                throw ctx.error("option", w, "an option must be written name=value");
            } else if (FLAGS.contains(w)) {
                name = w;
                value = "true";
            } else {
                if (a.options.isEmpty() && a.stray.isEmpty()) {
                    a.positional.add(w);
                } else {
                    a.stray.add(w);
                }
                continue;
            }
            if (a.options.containsKey(name)) {
                throw ctx.error(name, value, "'" + name + "' is given twice");
            }
            a.options.put(name, value);
        }
        return a;
    }

    /**
     * @return the option's value, or {@code null} if absent, without marking it as understood (the
     *     known options listed in messages stay those of the algorithm)
     */
    String peek(String name) {
        return options.get(name);
    }

    /** @return the option's value, or {@code null} if absent; marks it as understood */
    String option(String name) {
        used.add(name);
        return options.get(name);
    }

    /**
     * @return {@code "; did you mean 'name' instead of 'x'?"} if an option the algorithm did not
     *     understand is a near miss of the missing {@code name}, else the empty string
     */
    String misspelt(String name) {
        for (String o : options.keySet()) {
            if (!o.equals(name) && name.equals(Suggest.nearest(o, List.of(name)))) {
                return "; did you mean '" + name + "' instead of '" + o + "'?";
            }
        }
        return "";
    }

    /** @return the next positional argument without taking it, or {@code null} if there is none */
    String peekPositional() {
        return positionalUsed < positional.size() ? positional.get(positionalUsed) : null;
    }

    /** @return the next positional argument; fails naming {@code parameter} if missing */
    String positional(String parameter, String form) {
        if (positionalUsed >= positional.size()) {
            throw ctx.error(parameter, null, kind + " needs " + form + " right after its name");
        }
        return positional.get(positionalUsed++);
    }

    /**
     * Parses a whole number.
     *
     * @param parameter the parameter, for the message
     * @param text the number as written: ASCII digits, optionally after a minus sign
     * @param max the largest value the parameter takes
     * @param maxRule what follows "is too large: " in the message, e.g. {@code at most 1024}
     * @return the value, {@code <= max}; a negative value is returned for the builder to refuse
     * @throws ConfigException if it is not a whole number or it is above {@code max}
     */
    long longValue(String parameter, String text, long max, String maxRule) {
        boolean negative = text.startsWith("-");
        String digits = negative ? text.substring(1) : text;
        if (digits.isEmpty()) {
            throw ctx.error(parameter, text, parameter + " must be a whole number, e.g. " + example(parameter));
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (Character.isDigit(c)) {
                requireAscii(ctx, parameter, text, parameter, c);
            } else {
                throw ctx.error(parameter, text, parameter + " must be a whole number, e.g. " + example(parameter));
            }
        }
        if (digits.length() > 18) {
            if (negative) {
                throw ctx.error(parameter, text, parameter + " must be a whole number of at most 18 digits");
            }
            throw ctx.error(parameter, text, parameter + " is too large: " + maxRule);
        }
        long v = Long.parseLong(text);
        if (v > max) {
            throw ctx.error(parameter, text, parameter + " is too large: " + maxRule);
        }
        return v;
    }

    /** A whole number whose maximum is {@code max}, stated plainly. */
    long longValue(String parameter, String text, long max) {
        return longValue(parameter, text, max, "at most " + max);
    }

    /**
     * Parses a decimal number such as {@code 3} or {@code 2.5}.
     *
     * @throws ConfigException if it is not one, or above {@code max}
     */
    double doubleValue(String parameter, String text, double max) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isDigit(text.charAt(i))) {
                requireAscii(ctx, parameter, text, parameter, text.charAt(i));
            }
        }
        if (!text.matches("[0-9]{1,18}(\\.[0-9]{1,9})?")) {
            throw ctx.error(parameter, text, parameter + " must be a decimal number such as 3 or 2.5");
        }
        double v = Double.parseDouble(text);
        if (v > max) {
            throw ctx.error(parameter, text, parameter + " is too large: at most " + plain(max));
        }
        return v;
    }

    boolean booleanValue(String parameter, String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ctx.error(parameter, text, parameter + " must be true or false"
                    + Suggest.didYouMean(text, List.of("true", "false")));
        };
    }

    Duration duration(String parameter, String text) {
        try {
            return Durations.parse(parameter, text, false);
        } catch (IllegalArgumentException e) {
            throw ctx.error(parameter, text, e.getMessage());
        }
    }

    /**
     * A rate {@code permits/period}, e.g. {@code 100/1m} or {@code 10/s}.
     *
     * @param parameter its name, {@code rate} or {@code limit}
     * @param perNanosecond whether the algorithm spaces permits evenly, so that at most one per
     *     nanosecond is possible (else the language's largest number is the bound here, and the
     *     algorithm's own bound is checked by its builder)
     */
    Rate rate(String parameter, boolean perNanosecond) {
        String text = positional(parameter, parameter + " as permits/period (e.g. 100/1m)");
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw ctx.error(parameter, text, parameter + " must be written permits/period, e.g. 100/1m");
        }
        String permitsText = text.substring(0, slash);
        String permitsName = "the permits of " + parameter;
        for (int i = 0; i < permitsText.length(); i++) {
            if (Character.isDigit(permitsText.charAt(i))) {
                requireAscii(ctx, parameter, text, permitsName, permitsText.charAt(i));
            }
        }
        if (!permitsText.matches("[0-9]+")) {
            throw ctx.error(parameter, text, parameter + " must be written permits/period with whole permits, e.g. 100/1m");
        }
        Duration period;
        try {
            period = Durations.parse("the period of " + parameter, text.substring(slash + 1), true);
        } catch (IllegalArgumentException e) {
            throw ctx.error(parameter, text, e.getMessage());
        }
        long nanos = period.toNanos();
        long max = perNanosecond && nanos > 0 ? Math.min(nanos, MAX_NUMBER) : MAX_NUMBER;
        if (permitsText.length() > 18 || Long.parseLong(permitsText) > max) {
            String p = text.substring(slash + 1);
            throw ctx.error(parameter, text, permitsName + " are too large: at most " + max
                    + (max == nanos ? " per " + (Character.isDigit(p.charAt(0)) ? p : "1" + p) + " (one per nanosecond)" : ""));
        }
        return new Rate(text, Long.parseLong(permitsText), period);
    }

    /** A whole number positional argument. */
    long count(String parameter, long max) {
        String text = positional(parameter, parameter + " as a whole number");
        return longValue(parameter, text, max);
    }

    /** Fails on options the algorithm did not read, or words left over. */
    void requireAllUsed() {
        for (String name : options.keySet()) {
            if (!used.contains(name)) {
                String near = Suggest.nearest(name, used);
                throw ctx.error(name, options.get(name), "unknown option for " + kind
                        + (near == null ? "; known options: " : "; did you mean '" + near + "'? Known options: ") + used);
            }
        }
        List<String> leftover = new ArrayList<>(positional.subList(positionalUsed, positional.size()));
        boolean misplaced = leftover.isEmpty();
        leftover.addAll(stray);
        if (leftover.isEmpty()) {
            return;
        }
        String w = leftover.get(0);
        String flag = Suggest.nearest(w, FLAGS);
        if (flag != null) {
            throw ctx.error("flag", w, "unknown flag; did you mean '" + flag + "'? The only flag is "
                    + String.join(", ", FLAGS) + "; other options are written name=value");
        }
        if (used.contains(w)) {
            throw ctx.error("argument", w, w + " needs a value: write " + w + "=...");
        }
        if (misplaced) {
            throw ctx.error("argument", w, "positional arguments must come right after the algorithm, before name=value options");
        }
        throw ctx.error("argument", w, "unexpected argument for " + kind
                + "; options are written name=value, known options: " + used);
    }

    /** Refuses a digit of another script, which {@link Character#isDigit} accepts and a reader may not notice. */
    static void requireAscii(String subject, char c) {
        if (c < '0' || c > '9') {
            throw new IllegalArgumentException(asciiRule(subject, c));
        }
    }

    private static void requireAscii(Line ctx, String parameter, String text, String subject, char c) {
        if (c < '0' || c > '9') {
            throw ctx.error(parameter, text, asciiRule(subject, c));
        }
    }

    private static String asciiRule(String subject, char c) {
        return subject + " must be written with the ASCII digits 0-9, but '" + c + "' ("
                + String.format("U+%04X", (int) c) + ") is not one";
    }

    private static String example(String parameter) {
        return switch (parameter) {
            case "status" -> "429";
            case "slots", "slack" -> "10";
            case "max-in-flight" -> "50";
            case "cost" -> "1";
            case "capacity" -> "100";
            default -> "20";
        };
    }

    private static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** A parsed rate, as written and as numbers; {@link #value()} applies the rules of a rate. */
    record Rate(String text, long permits, Duration period) {

        /**
         * @return the rate as a value
         * @throws IllegalArgumentException if the permits are below 1
         */
        io.github.sluice.core.Rate value() {
            return io.github.sluice.core.Rate.of(permits, period);
        }
    }
}
