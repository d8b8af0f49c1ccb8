package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingLogger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watched file of {@code override=file:}: only a complete, stable, valid version replaces the
 * contract limits in force, as with the {@code config} file's watch; the attacker's (or the
 * unlucky operator's) move is a rewrite read half-way, which must never drop a {@code blocked} key
 * nor cut a limit.
 */
class FileOverridesTest {

    private static final long SECOND = FileOverrides.CHECK_NANOS;

    @TempDir
    Path dir;

    private final FakeClock clock = new FakeClock();
    private final RecordingLogger log = new RecordingLogger();

    private Path write(String text) throws Exception {
        Path file = dir.resolve("contracts.properties");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    private FileOverrides open(String text) throws Exception {
        FileOverrides f = FileOverrides.of(write(text), clock);
        f.log = log;
        return f;
    }

    /** Advances the clock a second and looks at the file. */
    private void look(FileOverrides f) {
        clock.advance(Duration.ofNanos(SECOND));
        f.check(clock.nanos());
    }

    @Test
    void check_changedVersion_appliedOnlyOnceReadUnchangedASecondLater() throws Exception {
        FileOverrides f = open("partner-1 = 5000/1m\n");
        write("partner-1 = 6000/1m\n");
        look(f);
        assertEquals("5000/1m", f.apply("partner-1"), "read once: held");
        write("partner-1 = 7000/1m\n");
        look(f);
        assertEquals("5000/1m", f.apply("partner-1"), "changed again: starts over");
        look(f);
        assertEquals("7000/1m", f.apply("partner-1"));
        assertEquals(1, log.at(Level.INFO).size(), log.lines().toString());
        assertTrue(log.at(Level.INFO).get(0).message().contains("changed 1"), log.lines().toString());
    }

    @Test
    void check_lookLessThanASecondAfterTheLast_doesNothing() throws Exception {
        FileOverrides f = open("partner-1 = 5000/1m\n");
        write("partner-1 = 6000/1m\n");
        look(f);
        clock.advance(Duration.ofMillis(999));
        f.check(clock.nanos());
        clock.advance(Duration.ofMillis(1));
        f.check(clock.nanos());
        assertEquals("6000/1m", f.apply("partner-1"), "stable after a second, not before");
    }

    @Test
    void check_rewriteCutMidLine_neverApplied_blockedKeyStaysBlocked() throws Exception {
        FileOverrides f = open("abuser = blocked\npartner-1 = 5000/1m\n");
        // A rewrite read half-way, several times: the blocked key's line is gone, the limit cut.
        write("partner-1 = 50");
        for (int i = 0; i < 5; i++) {
            look(f);
        }
        assertEquals("blocked", f.apply("abuser"));
        assertEquals("5000/1m", f.apply("partner-1"));
        assertEquals(1, log.at(Level.WARNING).size(), "refused once, not once a second: " + log.lines());
        assertTrue(log.at(Level.WARNING).get(0).message().contains("no line end"), log.lines().toString());
    }

    @Test
    void check_sameSizeAndTimeStamp_editSeen() throws Exception {
        Path file = write("partner-1 = 10/1m\n");
        FileTime stamp = Files.getLastModifiedTime(file);
        FileOverrides f = FileOverrides.of(file, clock);
        f.log = log;
        write("partner-1 = 20/1m\n");
        Files.setLastModifiedTime(file, stamp);
        look(f);
        look(f);
        assertEquals("20/1m", f.apply("partner-1"));
    }

    @Test
    void check_badLimit_wholeVersionRefused_onceLogged() throws Exception {
        FileOverrides f = open("abuser = blocked\npartner-1 = 5000/1m\n");
        f.limitCheck(limit -> {
            if (limit.equals("lots")) {
                throw new IllegalArgumentException("not a limit");
            }
        });
        write("abuser = lots\npartner-1 = 6000/1m\n");
        for (int i = 0; i < 4; i++) {
            look(f);
        }
        assertEquals("blocked", f.apply("abuser"), "a bad limit never turns a blocked key into its plan");
        assertEquals("5000/1m", f.apply("partner-1"), "the version is refused whole");
        assertEquals(1, log.at(Level.WARNING).size(), log.lines().toString());
        String m = log.at(Level.WARNING).get(0).message();
        assertTrue(m.contains("abuser") && m.contains("lots"), m);
    }

    @Test
    void check_badLineOrTwiceGivenKey_refusedNamingTheLine() throws Exception {
        FileOverrides f = open("partner-1 = 5000/1m\n");
        write("partner-1 = 6000/1m\npartner-1 = 7000/1m\n");
        look(f);
        look(f);
        write("partner-1 6000/1m\n");
        look(f);
        look(f);
        assertEquals("5000/1m", f.apply("partner-1"));
        assertEquals(2, log.at(Level.WARNING).size(), log.lines().toString());
        assertTrue(log.at(Level.WARNING).get(0).message().contains("line 2"), log.lines().toString());
        assertTrue(log.at(Level.WARNING).get(1).message().contains("line 1"), log.lines().toString());
    }

    @Test
    void check_emptyFile_refused_commentsOnlyClearsTheContracts() throws Exception {
        FileOverrides f = open("partner-1 = 5000/1m\n");
        write("");
        look(f);
        look(f);
        assertEquals("5000/1m", f.apply("partner-1"), "an empty file (a truncation) is refused");
        write("# no contracts this month\n");
        look(f);
        look(f);
        assertEquals(null, f.apply("partner-1"));
        assertEquals(Map.of(), f.table());
    }

    @Test
    void check_fileDeleted_limitsStay_loggedOnce_thenReadAgain() throws Exception {
        FileOverrides f = open("partner-1 = 5000/1m\n");
        Files.delete(dir.resolve("contracts.properties"));
        for (int i = 0; i < 4; i++) {
            look(f);
        }
        assertEquals("5000/1m", f.apply("partner-1"));
        assertEquals(1, log.at(Level.WARNING).size(), log.lines().toString());
        write("partner-1 = 6000/1m\n");
        look(f);
        look(f);
        assertEquals("6000/1m", f.apply("partner-1"));
    }

    @Test
    void enforcer_blockedKeyInFile_rewriteReadHalfWay_keyStaysRefused() throws Exception {
        Path file = write("abuser = blocked\n");
        try (Enforcer enforcer = Enforcer.builder()
                .policies("api = fixed-window 100/1m key=header:X-Api-Key override=file:" + file + " override-ttl=1s")
                .listener(EnforcementListener.NONE).clock(clock).build()) {
            FakeRequest abuser = FakeRequest.get("/api").peer("198.51.100.7").header("X-Api-Key", "abuser");
            assertFalse(enforcer.enforce(abuser).admitted());
            // The operator rewrites the file in place; lookups read it cut before the line.
            Files.writeString(file, "# contracts\npartner-1 = 50", StandardCharsets.UTF_8);
            for (int i = 0; i < 5; i++) {
                clock.advance(Duration.ofSeconds(2));
                assertFalse(enforcer.enforce(abuser).admitted(), "look " + i);
            }
            // A bad limit in a complete version: the whole version is refused too.
            Files.writeString(file, "abuser = many\n", StandardCharsets.UTF_8);
            for (int i = 0; i < 5; i++) {
                clock.advance(Duration.ofSeconds(2));
                assertFalse(enforcer.enforce(abuser).admitted(), "look " + i);
            }
            // The finished edit applies once read unchanged a second after it was first read.
            Files.writeString(file, "abuser = 1/1m\n", StandardCharsets.UTF_8);
            clock.advance(Duration.ofSeconds(2));
            assertFalse(enforcer.enforce(abuser).admitted(), "read once: held");
            clock.advance(Duration.ofSeconds(2));
            assertTrue(enforcer.enforce(abuser).admitted(), "the stable, valid version gives the key its limit");
            assertFalse(enforcer.enforce(abuser).admitted(), "and only its limit");
        }
    }
}
