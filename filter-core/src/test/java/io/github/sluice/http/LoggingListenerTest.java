package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;
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
                "INFO dry-run policy 'trial' would have denied a request (its key is logged at DEBUG): "
                        + "Decision{DENIED, limit=1, remaining=0, resetNanos=60000000000, retryAfterNanos=60000000000}",
                "DEBUG dry-run policy 'trial' would have denied key '192.0.2.1'",
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

    @Test
    void infoAndAbove_neverCarryAKeyOrADigest() {
        // Given a logger that keeps INFO and above, as in production
        Recording log = new Recording(Level.INFO);
        LoggingListener l = new LoggingListener(log);
        String digest = io.github.sluice.key.Keys.hash("some-long-token");

        // When every event that names a key happens, with a raw key and a digest
        for (String key : new String[] {"198.51.100.23", digest}) {
            l.allowed(trial, key, new MutableDecision().allow(1, 0, 1));
            l.shaped(trial, key, new MutableDecision().allow(1, 0, 1));
            l.denied(real, key, denied);
            l.denied(trial, key, denied);
            l.released(trial, key, 1);
            l.evicted("trial", key, true);
            l.evicted("trial", key, false);
        }

        // Then the dry-run denials are reported, without their keys
        assertEquals(2, log.lines.size(), log.lines.toString());
        for (String line : log.lines) {
            assertFalse(line.contains("198.51.100.23") || line.contains(digest) || line.contains("sha256"), line);
        }
    }

    @Test
    void keysWithUnicodeLineBreaksOrBidiControls_cannotForgeLogLines() {
        Recording log = new Recording(Level.DEBUG);

        new LoggingListener(log).denied(real, "a\u2028INFO forged\u2029b\u202ec\u0085d", denied);

        assertEquals("DEBUG policy 'per-ip' denied key 'a\\u2028INFO forged\\u2029b\\u202ec\\u0085d': "
                + "Decision{DENIED, limit=1, remaining=0, resetNanos=60000000000, retryAfterNanos=60000000000}",
                log.lines.get(0));
    }
}
