package io.github.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.store.Inheritance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.lang.System.Logger.Level;
import java.text.MessageFormat;
import java.util.ResourceBundle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file watch, checked by hand ({@link ConfigWatch#check()}) rather than by waiting. */
class ConfigWatchTest {

    @TempDir
    Path dir;

    /** A logged line. */
    record LogRecord(Level level, String message) {
        String getMessage() {
            return message;
        }
    }

    private final List<LogRecord> logged = new ArrayList<>();

    private final System.Logger recording = new System.Logger() {
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
            synchronized (logged) {
                logged.add(new LogRecord(level, msg));
            }
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            log(level, bundle, params == null || params.length == 0 ? format : MessageFormat.format(format, params),
                    (Throwable) null);
        }
    };

    private ConfigWatch manual(Enforcer e, Map<String, String> p) {
        ConfigWatch w = ConfigWatch.manual(e, p::get, p.keySet());
        w.log = recording;
        return w;
    }

    private Path file(String text) throws Exception {
        Path f = dir.resolve("sluice.properties");
        Files.writeString(f, text);
        return f;
    }

    private static Map<String, String> params(Path f, String... more) {
        Map<String, String> p = new HashMap<>();
        p.put("config", f.toString());
        for (int i = 0; i < more.length; i += 2) {
            p.put(more[i], more[i + 1]);
        }
        return p;
    }

    private static Enforcer start(Map<String, String> p) {
        return SluiceConfig.newEnforcer(p::get, p.keySet(), null, "test");
    }

    private static long limit(Enforcer e) {
        return e.policies().get(0).algorithm().limit();
    }

    @Test
    void check_editedFile_isApplied_brokenEditKeepsThePolicies_laterFixIsApplied() throws Exception {
        Path f = file("policy.per-ip = fixed-window 5/10s align=first-request key=ip\n");
        Map<String, String> p = params(f);
        try (Enforcer e = start(p); ConfigWatch w = manual(e, p)) {
            assertNotNull(w);
            assertFalse(w.check(), "unchanged");

            Files.writeString(f, "policy.per-ip = fixed-window 7/10s align=first-request key=ip\n");
            assertTrue(w.check());
            assertEquals(7, limit(e));

            Files.writeString(f, "# broken\npolicy.per-ip = fixed-window 0/10s key=ip\n");
            assertFalse(w.check());
            assertEquals(7, limit(e), "the policies in force stay");
            LogRecord warning = last(Level.WARNING);
            assertTrue(warning.getMessage().contains(f.toString()) && warning.getMessage().contains("line 2"),
                    warning.getMessage());
            assertFalse(w.check(), "a refused version is not retried");

            Files.writeString(f, "policy.per-ip = fixed-window 9/10s key=ip\npolicy.login = gcra 1/1s key=ip\n");
            assertTrue(w.check());
            assertEquals(9, limit(e));
            assertEquals(2, e.policies().size());
            assertTrue(last(Level.INFO).getMessage().contains("added [login], changed [per-ip]"),
                    last(Level.INFO).getMessage());
        }
    }

    @Test
    void check_changedSettingThatCannotChange_refusesTheWholeVersionNamingTheSetting() throws Exception {
        Path f = file("headers = draft\npolicy.a = fixed-window 5/10s key=ip\n");
        Map<String, String> p = params(f);
        try (Enforcer e = start(p); ConfigWatch w = manual(e, p)) {
            Files.writeString(f, "headers = x-ratelimit\npolicy.a = fixed-window 6/10s key=ip\n");
            assertFalse(w.check());
            assertEquals(5, limit(e), "nothing of the version applied");
            assertTrue(last(Level.WARNING).getMessage().contains("setting 'headers' (from 'draft' to 'x-ratelimit')"),
                    last(Level.WARNING).getMessage());
        }
    }

    @Test
    void check_unchangedPolicy_keepsItsState_andTheStrategyComesFromConfigReload() throws Exception {
        Path f = file("config-reload = reset\npolicy.a = fixed-window 5/1h key=global\n"
                + "policy.b = fixed-window 5/1h key=global\n");
        Map<String, String> p = params(f);
        try (Enforcer e = start(p); ConfigWatch w = manual(e, p)) {
            assertSame(Inheritance.RESET, w.inheritance());
            var request = io.github.sluice.testing.FakeRequest.get("/");
            for (int i = 0; i < 3; i++) {
                assertTrue(e.enforce(request).admitted());
            }
            Files.writeString(f, "config-reload = reset\npolicy.a = fixed-window 5/1h key=global\n"
                    + "policy.b = fixed-window 10/1h key=global\n");
            assertTrue(w.check());
            var v = e.enforce(request);
            assertEquals(1, v.decision(0).remaining(), "a kept its state");
            assertEquals(9, v.decision(1).remaining(), "b was reset");
        }
    }

    @Test
    void start_nothingToWatch_returnsNull() throws Exception {
        Path f = file("config-watch = false\npolicy.a = fixed-window 5/10s key=ip\n");
        Map<String, String> off = params(f);
        try (Enforcer e = start(off)) {
            assertNull(ConfigWatch.start(e, off::get, off.keySet()));
            Map<String, String> none = Map.of("policies", "a = fixed-window 5/10s key=ip");
            assertNull(ConfigWatch.start(e, none::get, none.keySet()));
        }
    }

    @Test
    void start_badWatchSettings_failAtStartUpNamingTheSettingAndValue() throws Exception {
        Path f = file("config-watch-interval = 10ms\npolicy.a = fixed-window 5/10s key=ip\n");
        ConfigException x = assertThrows(ConfigException.class, () -> start(params(f)));
        assertTrue(x.getMessage().contains("config-watch-interval") && x.getMessage().contains("10ms")
                && x.getMessage().contains("line 1"), x.getMessage());
        Path g = file("config-reload = keep-consumd\npolicy.a = fixed-window 5/10s key=ip\n");
        x = assertThrows(ConfigException.class, () -> start(params(g)));
        assertTrue(x.getMessage().contains("did you mean 'keep-consumed'"), x.getMessage());
    }

    @Test
    void start_thread_appliesAnEditWithoutACallAndStopsOnClose() throws Exception {
        Path f = file("config-watch-interval = 100ms\npolicy.a = fixed-window 5/10s key=ip\n");
        Map<String, String> p = params(f);
        try (Enforcer e = start(p)) {
            ConfigWatch w = ConfigWatch.start(e, p::get, p.keySet());
            assertEquals(Duration.ofMillis(100), w.interval());
            Files.writeString(f, "config-watch-interval = 100ms\npolicy.a = fixed-window 8/10s key=ip\n");
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (limit(e) != 8 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(8, limit(e));
            w.close();
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("sluice-config-watch")).allMatch(t -> t.isDaemon()));
        }
    }

    private LogRecord last(Level level) {
        synchronized (logged) {
            for (int i = logged.size() - 1; i >= 0; i--) {
                if (logged.get(i).level().equals(level)) {
                    return logged.get(i);
                }
            }
        }
        throw new AssertionError("nothing logged at " + level + ": " + logged);
    }
}
