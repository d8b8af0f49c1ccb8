package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.core.MutableDecision;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class LoggingListenerTest {

    /** A logger that records "LEVEL message" lines, enabled from a given level up. */
    private static final class Recording implements Logger {
        final List<String> lines = new ArrayList<>();
        final List<Throwable> thrown = new ArrayList<>();
        final Level min;

        Recording(Level min) {
            this.min = min;
        }

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return level.getSeverity() >= min.getSeverity();
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable t) {
            if (isLoggable(level)) {
                lines.add(level + " " + msg);
                thrown.add(t);
            }
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            if (isLoggable(level)) {
                lines.add(level + " " + MessageFormat.format(format, params));
            }
        }

        @Override
        public void log(Level level, Supplier<String> msg) {
            log(level, null, msg.get(), (Throwable) null);
        }
    }

    private final Policy real = Policy.parse("per-ip = token-bucket 1/1m key=ip");
    private final Policy trial = Policy.parse("trial = token-bucket 1/1m key=ip dry-run");
    private final MutableDecision denied = new MutableDecision().deny(1, 0, 60_000_000_000L, 60_000_000_000L);

    @Test
    void levels_followTheDocumentation() {
        Recording log = new Recording(Level.TRACE);
        LoggingListener l = new LoggingListener(log);
        IllegalStateException cause = new IllegalStateException("connection refused");

        l.allowed(real, "192.0.2.1", new MutableDecision().allow(1, 0, 1));
        l.denied(real, "192.0.2.1", denied);
        l.denied(trial, "192.0.2.1", denied);
        l.released(real, "k", 2);
        l.evicted("per-ip", "k", true);
        l.evicted("per-ip", "k", false);
        l.storeDegraded("redis", cause);
        l.storeRecovered("redis");

        assertEquals(List.of(
                "TRACE policy 'per-ip' allowed key '192.0.2.1': Decision{ALLOWED, limit=1, remaining=0, resetNanos=1}",
                "DEBUG policy 'per-ip' denied key '192.0.2.1': Decision{DENIED, limit=1, remaining=0, "
                        + "resetNanos=60000000000, retryAfterNanos=60000000000}",
                "INFO dry-run policy 'trial' would have denied key '192.0.2.1': Decision{DENIED, limit=1, remaining=0, "
                        + "resetNanos=60000000000, retryAfterNanos=60000000000}",
                "TRACE policy 'per-ip' released 2 permit(s) of key 'k'",
                "TRACE policy 'per-ip' dropped idle key 'k'",
                "DEBUG policy 'per-ip' dropped key 'k' at the bound on keys",
                "WARNING store 'redis' degraded: its failure policy decides until it recovers",
                "INFO store 'redis' recovered"), log.lines);
        assertEquals(List.of(cause), log.thrown);
    }

    @Test
    void disabledLevels_formatNothing() {
        Recording log = new Recording(Level.INFO);
        LoggingListener l = new LoggingListener(log);

        l.allowed(real, "k", new MutableDecision());
        l.denied(real, "k", denied);
        l.denied(trial, "k", denied);

        assertEquals(1, log.lines.size());
    }

    @Test
    void keysWithControlCharacters_cannotForgeLogLines() {
        Recording log = new Recording(Level.DEBUG);

        new LoggingListener(log).denied(real, "evil\nINFO forged", denied);

        assertEquals("DEBUG policy 'per-ip' denied key 'evil\\u000aINFO forged': Decision{DENIED, limit=1, remaining=0, "
                + "resetNanos=60000000000, retryAfterNanos=60000000000}", log.lines.get(0));
    }
}
