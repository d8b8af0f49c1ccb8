package io.github.sluice.policy;

import java.util.function.Supplier;

/**
 * Where a piece of configuration text is: the context every {@link ConfigException} names.
 * Loaders of configuration (the properties and init-param reader) use it to turn a builder's
 * refusal into a {@link ConfigException} that names the source, line, parameter and value.
 *
 * <p>Not thread-safe; use one per line being read.
 */
public final class Line {

    final String source;
    final int line;
    String policy;

    /**
     * Creates the context of one line.
     *
     * @param source where the text comes from (a file name, {@code init-param})
     * @param line the line number, from 1
     * @param policy the policy the line defines, or {@code null} for a setting
     */
    public Line(String source, int line, String policy) {
        this.source = source;
        this.line = line;
        this.policy = policy;
    }

    ConfigException error(String parameter, String value, String reason) {
        return new ConfigException(source, line, policy, parameter, value, reason, null);
    }

    /**
     * Runs a builder step, turning its {@link IllegalArgumentException} or
     * {@link IllegalStateException} into a {@link ConfigException} that names the parameter.
     *
     * @param parameter the parameter the step sets, as the user wrote its name
     * @param value the value the user wrote, or {@code null}
     * @param step the builder step
     * @param <T> what the step returns
     * @return what the step returned
     * @throws ConfigException if the step refused the value
     */
    public <T> T call(String parameter, String value, Supplier<T> step) {
        try {
            return step.get();
        } catch (ConfigException e) {
            throw e;
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            String reason = inUserTerms(parameter, String.valueOf(e.getMessage()));
            if (parameter.equals("name") && value != null) {
                String lower = value.toLowerCase(java.util.Locale.ROOT).replace('_', '-');
                if (!lower.equals(value) && lower.matches("[a-z0-9-]{1,64}")) {
                    reason += "; did you mean '" + lower + "'?";
                }
            }
            throw new ConfigException(source, line, policy, parameter, value, reason, e);
        }
    }

    /**
     * Builders name their parameters in Java ({@code maxInFlight must be >= 1}); the user wrote
     * {@code max-in-flight}. A message that starts with the Java name of the parameter at hand is
     * given the configuration name instead.
     */
    static String inUserTerms(String parameter, String message) {
        int space = message.indexOf(' ');
        if (space <= 0) {
            return message;
        }
        String first = message.substring(0, space);
        StringBuilder kebab = new StringBuilder();
        for (int i = 0; i < first.length(); i++) {
            char c = first.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                kebab.append('-').append((char) (c + ('a' - 'A')));
            } else {
                kebab.append(c);
            }
        }
        return !first.equals(parameter) && kebab.toString().equals(parameter)
                ? parameter + message.substring(space) : message;
    }
}
