package io.github.sluice.testing;

import java.lang.System.Logger.Level;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;

/**
 * A {@code System.Logger} that keeps every line, formatted, with the throwable it was logged with,
 * for tests to assert exactly what was logged. Thread-safe.
 */
public final class RecordingLogger implements System.Logger {

    /** A logged line. */
    public record Line(Level level, String message, Throwable thrown) {

        /** A line logged without a throwable. */
        public Line(Level level, String message) {
            this(level, message, null);
        }

        /** Lines are equal by level and message; the throwable is compared by the tests that want it. */
        @Override
        public boolean equals(Object o) {
            return o instanceof Line l && l.level == level && l.message.equals(message);
        }

        @Override
        public int hashCode() {
            return level.hashCode() * 31 + message.hashCode();
        }

        @Override
        public String toString() {
            return level + " " + message;
        }
    }

    private final List<Line> lines = new ArrayList<>();

    @Override
    public String getName() {
        return "test";
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        synchronized (lines) {
            lines.add(new Line(level, msg, thrown));
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        log(level, bundle, params == null || params.length == 0 ? format : MessageFormat.format(format, params),
                (Throwable) null);
    }

    /** @return the lines logged at {@code level} or above, oldest first */
    public List<Line> atLeast(Level level) {
        synchronized (lines) {
            return lines.stream().filter(l -> l.level().getSeverity() >= level.getSeverity()).toList();
        }
    }

    /** @return every line logged, oldest first */
    public List<Line> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** @return the lines logged at exactly {@code level}, oldest first */
    public List<Line> at(Level level) {
        synchronized (lines) {
            return lines.stream().filter(l -> l.level() == level).toList();
        }
    }

    /** @return the last line logged at {@code level} */
    public Line last(Level level) {
        List<Line> at = at(level);
        if (at.isEmpty()) {
            throw new AssertionError("nothing logged at " + level + ": " + lines);
        }
        return at.get(at.size() - 1);
    }

    /** Forgets every line logged so far. */
    public void clear() {
        synchronized (lines) {
            lines.clear();
        }
    }
}
