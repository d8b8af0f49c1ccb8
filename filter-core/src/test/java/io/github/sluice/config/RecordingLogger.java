package io.github.sluice.config;

import java.lang.System.Logger.Level;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;

/** A {@code System.Logger} that keeps every line, for the watch's tests to assert what was logged. */
final class RecordingLogger implements System.Logger {

    /** A logged line. */
    record Line(Level level, String message) {
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
            lines.add(new Line(level, msg));
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        log(level, bundle, params == null || params.length == 0 ? format : MessageFormat.format(format, params),
                (Throwable) null);
    }

    /** @return the lines logged at {@code level} or above, oldest first */
    List<Line> atLeast(Level level) {
        synchronized (lines) {
            return lines.stream().filter(l -> l.level().getSeverity() >= level.getSeverity()).toList();
        }
    }

    /** @return the lines logged at exactly {@code level}, oldest first */
    List<Line> at(Level level) {
        synchronized (lines) {
            return lines.stream().filter(l -> l.level() == level).toList();
        }
    }

    /** @return the last line logged at {@code level} */
    Line last(Level level) {
        List<Line> at = at(level);
        if (at.isEmpty()) {
            throw new AssertionError("nothing logged at " + level + ": " + lines);
        }
        return at.get(at.size() - 1);
    }

    /** Forgets every line logged so far. */
    void clear() {
        synchronized (lines) {
            lines.clear();
        }
    }
}
