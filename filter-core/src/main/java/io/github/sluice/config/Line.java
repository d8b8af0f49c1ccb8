package io.github.sluice.config;

import java.util.function.Supplier;

/** Where a piece of configuration text is: the context every {@link ConfigException} names. */
final class Line {

    final String source;
    final int line;
    String policy;

    Line(String source, int line, String policy) {
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
     */
    <T> T call(String parameter, String value, Supplier<T> step) {
        try {
            return step.get();
        } catch (ConfigException e) {
            throw e;
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            throw new ConfigException(source, line, policy, parameter, value, String.valueOf(e.getMessage()), e);
        }
    }
}
