package io.github.sluice.config;

import io.github.sluice.testing.RecordingLogger;
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
import io.github.sluice.testing.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.lang.System.Logger.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file watch on real files, checked by hand ({@link ConfigWatch#check()}) with a fake clock
 * rather than by waiting: an edited version is applied at the first check at least an interval
 * after the one that read it first.
 */
class ConfigWatchTest {

    private static final Duration INTERVAL = ConfigWatch.DEFAULT_INTERVAL;

    @TempDir
    Path dir;

    private final RecordingLogger log = new RecordingLogger();
    private final FakeClock clock = new FakeClock();

    private ConfigWatch manual(Enforcer e, Map<String, String> p) {
        ConfigWatch w = ConfigWatch.manual(e, p::get, p.keySet(), clock);
        if (w != null) {
            w.log = log;
        }
        return w;
    }

    /** Two checks an interval apart: what a changed, stable file needs to be decided. */
    private boolean checkTwice(ConfigWatch w) {
        assertFalse(w.check(), "a version read once is not applied");
        clock.advance(INTERVAL);
        return w.check();
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
            assertTrue(checkTwice(w));
            assertEquals(7, limit(e));

            Files.writeString(f, "# broken\npolicy.per-ip = fixed-window 0/10s key=ip\n");
            assertFalse(checkTwice(w));
            assertEquals(7, limit(e), "the policies in force stay");
            RecordingLogger.Line warning = log.last(Level.WARNING);
            assertTrue(warning.message().contains(f.toString()) && warning.message().contains("line 2"),
                    warning.message());
            clock.advance(INTERVAL);
            assertFalse(w.check(), "a refused version is not retried");
            assertEquals(1, log.at(Level.WARNING).size(), log.atLeast(Level.DEBUG).toString());
            // Counted for the alert on refused reloads: one applied, one refused, not one per check
            assertEquals(1, e.metrics().configReloadsApplied());
            assertEquals(1, e.metrics().configReloadsRefused());

            Files.writeString(f, "policy.per-ip = fixed-window 9/10s key=ip\npolicy.login = gcra 1/1s key=ip\n");
            assertTrue(checkTwice(w));
            assertEquals(9, limit(e));
            assertEquals(2, e.policies().size());
            assertEquals(2, e.metrics().configReloadsApplied());
            assertTrue(log.last(Level.INFO).message().contains("added [login], changed [per-ip]"),
                    log.last(Level.INFO).message());
        }
    }

    @Test
    void check_changedSettingThatCannotChange_refusesTheWholeVersionNamingTheSetting() throws Exception {
        Path f = file("headers = draft\npolicy.a = fixed-window 5/10s key=ip\n");
        Map<String, String> p = params(f);
        try (Enforcer e = start(p); ConfigWatch w = manual(e, p)) {
            Files.writeString(f, "headers = x-ratelimit\npolicy.a = fixed-window 6/10s key=ip\n");
            assertFalse(checkTwice(w));
            assertEquals(5, limit(e), "nothing of the version applied");
            assertTrue(log.last(Level.WARNING).message().contains("setting 'headers' (from 'draft' to 'x-ratelimit')"),
                    log.last(Level.WARNING).message());
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
            assertTrue(checkTwice(w));
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

    @Test
    void check_fileReplacedByAtomicRename_isApplied() throws Exception {
        // Given a watched file
        Path f = file("policy.a = fixed-window 5/10s key=ip match=/api/*\n");
        Map<String, String> p = params(f);
        try (Enforcer e = start(p); ConfigWatch w = manual(e, p)) {
            // When a new version is written beside it and renamed over it
            Path tmp = dir.resolve(".sluice.properties.tmp");
            Files.writeString(tmp, "policy.a = fixed-window 6/10s key=ip match=/api/*\n");
            Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

            // Then it is applied once stable, and logged once
            assertTrue(checkTwice(w));
            assertEquals(6, limit(e));
            assertEquals(List.of(), log.atLeast(Level.WARNING));
            assertEquals(1, log.at(Level.INFO).size(), log.at(Level.INFO).toString());
        }
    }

    @Test
    void check_configMapDataSymlinkSwapped_readsTheNewTarget_andIgnoresTheOldOne() throws Exception {
        // Given the layout a Kubernetes ConfigMap volume has: the file is a link through ..data,
        // itself a link to a time-stamped directory
        Path volume = Files.createDirectory(dir.resolve("config"));
        Path first = Files.createDirectory(volume.resolve("..2026_11_29_08_00_00.000000001"));
        Files.writeString(first.resolve("sluice.properties"), "policy.a = fixed-window 5/10s key=ip\n");
        Files.createSymbolicLink(volume.resolve("..data"), first.getFileName());
        Path f = Files.createSymbolicLink(volume.resolve("sluice.properties"), Path.of("..data", "sluice.properties"));
        Map<String, String> p = params(f);
        try (Enforcer e = start(p); ConfigWatch w = manual(e, p)) {
            assertFalse(w.check());

            // When the kubelet writes a new directory and swaps ..data to it atomically, then
            // deletes the old directory
            Path second = Files.createDirectory(volume.resolve("..2026_11_29_08_05_00.000000002"));
            Files.writeString(second.resolve("sluice.properties"), "policy.a = fixed-window 7/10s key=ip\n");
            swapData(volume, second);
            Files.delete(first.resolve("sluice.properties"));
            Files.delete(first);

            // Then the link is followed anew, and the new version applied once stable
            assertTrue(checkTwice(w));
            assertEquals(7, limit(e));

            // And a second swap, to a directory with the same content, applies nothing
            Path third = Files.createDirectory(volume.resolve("..2026_11_29_08_10_00.000000003"));
            Files.writeString(third.resolve("sluice.properties"), "policy.a = fixed-window 7/10s key=ip\n");
            swapData(volume, third);
            clock.advance(INTERVAL);
            assertFalse(w.check());
            assertEquals(1, log.at(Level.INFO).size(), log.at(Level.INFO).toString());
            assertEquals(List.of(), log.atLeast(Level.WARNING));
        }
    }

    /** What the kubelet's atomic writer does: a new link {@code ..data_tmp}, renamed over {@code ..data}. */
    private static void swapData(Path volume, Path target) throws Exception {
        Path tmp = Files.createSymbolicLink(volume.resolve("..data_tmp"), target.getFileName());
        Files.move(tmp, volume.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void check_fileDeletedThenRecreated_warnsOnceAndKeepsThePolicies_thenAppliesTheNewFileOnceStable() throws Exception {
        Path f = file("policy.a = fixed-window 5/10s key=ip\n");
        Map<String, String> p = params(f);
        try (Enforcer e = start(p); ConfigWatch w = manual(e, p)) {
            Files.delete(f);
            assertFalse(w.check());
            clock.advance(INTERVAL);
            assertFalse(w.check());
            assertEquals(List.of(new RecordingLogger.Line(Level.WARNING, "Sluice: config file " + f
                    + " is gone; the policies in force stay")), log.atLeast(Level.INFO), "logged once while gone");
            assertEquals(5, limit(e));

            Files.writeString(f, "policy.a = fixed-window 8/10s key=ip\n");
            clock.advance(INTERVAL);
            assertTrue(checkTwice(w));
            assertEquals(8, limit(e));

            Files.delete(f);
            clock.advance(INTERVAL);
            assertFalse(w.check());
            assertEquals(2, log.at(Level.WARNING).size(), "gone again: logged again");
        }
    }
}
