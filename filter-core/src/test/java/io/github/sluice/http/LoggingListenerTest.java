package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.JulRecording;
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
    static final class Recording implements Logger {
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
                "TRACE policy 'per-ip' allowed key '192.0.2.1': Decision{ALLOWED, limit=1, remaining=0, reset=1ns}",
                "DEBUG policy 'per-ip' denied a request key '192.0.2.1': remaining 0 of 1, retry-after 60s, reset 1m",
                "INFO dry-run policy 'trial' would have denied a request (the key is logged at DEBUG): "
                        + "remaining 0 of 1, retry-after 60s, reset 1m",
                "DEBUG dry-run policy 'trial' would have denied a request key '192.0.2.1'",
                "TRACE policy 'per-ip' released 2 permit(s) of key 'k'",
                "TRACE policy 'per-ip' dropped idle key 'k'",
                "DEBUG policy 'per-ip' dropped key 'k' at the bound on keys",
                "WARNING store 'redis' degraded: its failure policy decides until it recovers",
                "INFO store 'redis' recovered"), log.lines);
        assertEquals(List.of(cause), log.thrown);
    }

    /**
     * The default logger is the JDK's bridge to java.util.logging, and the per-request checks ask
     * java.util.logging directly: a level set there, at run time, takes effect at the next event,
     * both ways. (The test module does not read java.logging: reached by reflection, as in
     * {@code UnmatchedReleaseTest}.)
     */
    @Test
    void defaultLogger_tracesAsItsJavaUtilLoggingLevelSays_changedAtRunTime() throws ReflectiveOperationException {
        try (JulRecording jul = JulRecording.start()) {
            LoggingListener l = new LoggingListener();
            assertTrue(l.asksJavaUtilLogging(), "the default logger is the JDK's bridge");

            jul.level("INFO");
            l.allowed(real, "192.0.2.1", new MutableDecision().allow(1, 0, 1));
            l.released(real, "192.0.2.1", 1);
            assertEquals(List.of(), jul.lines);

            jul.level("FINER"); // TRACE, as the bridge maps it
            l.allowed(real, "192.0.2.1", new MutableDecision().allow(1, 0, 1));
            l.shaped(real, "192.0.2.1", new MutableDecision().allow(1, 0, 1));
            l.released(real, "192.0.2.1", 1);
            l.refunded(real, "192.0.2.1", 1);
            assertEquals(4, jul.lines.size(), jul.lines::toString);
            assertTrue(jul.lines.get(0).startsWith("FINER policy 'per-ip' allowed key '192.0.2.1': "), jul.lines::toString);
            assertTrue(jul.lines.get(1).startsWith("FINER policy 'per-ip' delayed key '192.0.2.1': "), jul.lines::toString);
            assertEquals(List.of("FINER policy 'per-ip' released 1 permit(s) of key '192.0.2.1'",
                    "FINER policy 'per-ip' refunded 1 permit(s) of key '192.0.2.1'"), jul.lines.subList(2, 4));

            jul.level("FINE");
            l.allowed(real, "192.0.2.1", new MutableDecision().allow(1, 0, 1));
            assertEquals(4, jul.lines.size(), jul.lines::toString);
        }
    }

    @Test
    void aLoggerOfAnotherBackend_isAskedItself() {
        Recording log = new Recording(Level.DEBUG);
        LoggingListener l = new LoggingListener(log);
        assertFalse(l.asksJavaUtilLogging());
        l.allowed(real, "192.0.2.1", new MutableDecision().allow(1, 0, 1));
        assertEquals(List.of(), log.lines);
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

        assertEquals("DEBUG policy 'per-ip' denied a request key 'evil\\u000aINFO forged': remaining 0 of 1, "
                + "retry-after 60s, reset 1m", log.lines.get(0));
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

        assertEquals("DEBUG policy 'per-ip' denied a request key 'a\\u2028INFO forged\\u2029b\\u202ec\\u0085d': "
                + "remaining 0 of 1, retry-after 60s, reset 1m", log.lines.get(0));
    }

    @Test
    void denial_throughAnEnforcer_namesPolicyMethodPathKeyRemainingAndRetryAfterSeconds() {
        // Given an enforcer that logs to a DEBUG logger, and a key that used its one request
        Recording log = new Recording(Level.DEBUG);
        io.github.sluice.testing.FakeClock clock = new io.github.sluice.testing.FakeClock();
        try (Enforcer e = Enforcer.builder().clock(clock).listener(new LoggingListener(log))
                .policies("per-ip = fixed-window 1/90s align=first-request key=ip").build()) {
            e.enforce(io.github.sluice.testing.FakeRequest.get("/api/items").peer("192.0.2.1"));
            clock.advance(java.time.Duration.ofMillis(1500));

            // When the next request is denied
            e.enforce(io.github.sluice.testing.FakeRequest.get("/api/items").method("POST").peer("192.0.2.1"));
        }

        // Then one DEBUG line says who, what and when, in seconds
        assertEquals(List.of("DEBUG policy 'per-ip' denied POST /api/items key '192.0.2.1': remaining 0 of 1, "
                + "retry-after 89s, reset 88.5s"), log.lines.stream().filter(l -> l.startsWith("DEBUG")).toList());
    }

    @Test
    void pathWithControlCharacters_cannotForgeLogLines_andLongPathsAreCut() {
        Recording log = new Recording(Level.DEBUG);
        LoggingListener l = new LoggingListener(log);

        l.denied(real, "k", denied, io.github.sluice.testing.FakeRequest.get("/a\nINFO forged\u2028" + "x".repeat(5000)));

        String line = log.lines.get(0);
        assertFalse(line.contains("\n") || line.contains("\u2028"), line);
        assertTrue(line.length() < 600, () -> "a " + line.length() + "-character line");
    }

    @Test
    void startUpLine_atInfo_listsPoliciesInThePolicyLanguage_headersProxiesExemptMethodsAndStore() {
        Recording log = new Recording(Level.INFO);
        try (Enforcer e = Enforcer.builder().listener(new LoggingListener(log)).trustedProxies("10.0.0.0/8")
                .policies("per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*\n"
                        + "login = fixed-window 5/1m key=ip match=POST:/login").build()) {
            assertEquals(List.of("INFO " + e.description()), log.lines);
        }
        String line = log.lines.get(0);
        assertTrue(line.startsWith("INFO Sluice enforcer: policies [per-ip = token-bucket 100/1m burst=20 key=ip "
                + "match=/api/*; login = fixed-window 5/1m key=ip match=POST:/login]; headers draft; trusted proxies "
                + "10.0.0.0/8 via X-Forwarded-For, IPv6 clients grouped by /64; exempt methods [OPTIONS]; store "
                + "ShardedRegistry{"), line);
    }
}
