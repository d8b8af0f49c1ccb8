package io.github.sluice.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The words of one policy specification: the algorithm, positional arguments and options. */
final class Args {

    /** Options every policy accepts, whatever its algorithm. */
    static final Set<String> COMMON = Set.of("key", "match", "cost", "status", "dry-run", "allow");
    /** Options that may be written without a value. */
    private static final Set<String> FLAGS = Set.of("dry-run");

    final Line ctx;
    final String kind;
    private final List<String> positional = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();
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
            if (eq >= 0) {
                name = w.substring(0, eq);
                value = w.substring(eq + 1);
                if (!name.matches("[a-z][a-z0-9-]*")) {
                    throw ctx.error("option", w, "an option must be written name=value with a lower-case name");
                }
            } else if (FLAGS.contains(w)) {
                name = w;
                value = "true";
            } else {
                if (!a.options.isEmpty()) {
                    throw ctx.error("argument", w,
                            "positional arguments must come right after the algorithm, before name=value options");
                }
                a.positional.add(w);
                continue;
            }
            if (a.options.containsKey(name)) {
                throw ctx.error(name, value, "'" + name + "' is given twice");
            }
            a.options.put(name, value);
        }
        return a;
    }

    /** @return the option's value, or {@code null} if absent; marks it as understood */
    String option(String name) {
        used.add(name);
        return options.get(name);
    }

    /** @return the next positional argument; fails naming {@code parameter} if missing */
    String positional(String parameter, String form) {
        if (positionalUsed >= positional.size()) {
            throw ctx.error(parameter, null, kind + " needs " + form + " right after its name");
        }
        return positional.get(positionalUsed++);
    }

    long longValue(String parameter, String text) {
        if (!text.matches("-?[0-9]{1,18}")) {
            throw ctx.error(parameter, text, parameter + " must be a whole number");
        }
        return Long.parseLong(text);
    }

    double doubleValue(String parameter, String text) {
        if (!text.matches("[0-9]{1,9}(\\.[0-9]{1,9})?")) {
            throw ctx.error(parameter, text, parameter + " must be a decimal number such as 3 or 2.5");
        }
        return Double.parseDouble(text);
    }

    boolean booleanValue(String parameter, String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ctx.error(parameter, text, parameter + " must be true or false");
        };
    }

    Duration duration(String parameter, String text) {
        try {
            return Durations.parse(text, false);
        } catch (IllegalArgumentException e) {
            throw ctx.error(parameter, text, e.getMessage() + ", e.g. 500ms, 30s, 1m, 2h, 1d");
        }
    }

    /** A rate {@code permits/period}, e.g. {@code 100/1m} or {@code 10/s}. */
    Rate rate(String parameter) {
        String text = positional(parameter, parameter + " as permits/period (e.g. 100/1m)");
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw ctx.error(parameter, text, parameter + " must be written permits/period, e.g. 100/1m");
        }
        String permitsText = text.substring(0, slash);
        if (!permitsText.matches("[0-9]{1,18}")) {
            throw ctx.error(parameter, text, parameter + " must be written permits/period with whole permits, e.g. 100/1m");
        }
        long permits = Long.parseLong(permitsText);
        Duration period;
        try {
            period = Durations.parse(text.substring(slash + 1), true);
        } catch (IllegalArgumentException e) {
            throw ctx.error(parameter, text, "the period of " + parameter + ": " + e.getMessage());
        }
        return new Rate(text, permits, period);
    }

    /** A whole number positional argument. */
    long count(String parameter) {
        String text = positional(parameter, parameter + " as a whole number");
        return longValue(parameter, text);
    }

    /** Fails on options the algorithm did not read, or positional arguments left over. */
    void requireAllUsed() {
        for (String name : options.keySet()) {
            if (!used.contains(name)) {
                throw ctx.error(name, options.get(name), "unknown option for " + kind + "; known options: " + used);
            }
        }
        if (positionalUsed < positional.size()) {
            String extra = positional.get(positionalUsed);
            throw ctx.error("argument", extra, "unexpected argument for " + kind
                    + "; options are written name=value, known options: " + used);
        }
    }

    /** A parsed rate. */
    record Rate(String text, long permits, Duration period) {
    }
}
