package io.github.sluice.config;

import io.github.sluice.testing.RecordingLogger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.internal.FileVersion;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeClock;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file rewritten in place, read in the middle of the write: the watch is fed exact sequences of
 * file states (a prefix of the new content, a half-written line, an empty file, a file without
 * its policies, a file that keeps changing) through its reader, with a fake clock, and each test
 * asserts which versions are applied and what is logged. No writer is raced.
 */
class ConfigWatchTornWriteTest {

    private static final Duration INTERVAL = ConfigWatch.DEFAULT_INTERVAL;

    /** The version in force at start-up. */
    private static final String OLD = "# limits of the shop\n"
            + "policy.api = fixed-window 5/10s key=ip match=/api/*\n"
            + "policy.login = fixed-window 3/1m key=ip match=POST:/login\n";
    /** The version being written: every limit changed, so a prefix applied would show. */
    private static final String NEW = "# limits of the shop\n"
            + "policy.api = fixed-window 50/10s key=ip match=/api/*\n"
            + "policy.login = fixed-window 30/1m key=ip match=POST:/login\n";

    @TempDir
    Path dir;

    private final FakeClock clock = new FakeClock();
    private final RecordingLogger log = new RecordingLogger();
    private final Script file = new Script();
    private Enforcer enforcer;
    private ConfigWatch watch;

    /** The file's states, one per read: the test sets the next one. */
    static final class Script implements ConfigWatch.Reader {
        private Object state;
        private int reads;

        void set(String text) {
            state = text.getBytes(StandardCharsets.UTF_8);
        }

        void fail(IOException e) {
            state = e;
        }

        @Override
        public byte[] read(Path path) throws IOException {
            reads++;
            if (state instanceof IOException e) {
                throw e;
            }
            return ((byte[]) state).clone();
        }
    }

    @BeforeEach
    void start() throws Exception {
        start(OLD);
    }

    private void start(String text) throws Exception {
        Path f = dir.resolve("sluice.properties");
        Files.writeString(f, text);
        Map<String, String> p = new HashMap<>();
        p.put("config", f.toString());
        enforcer = SluiceConfig.newEnforcer(p::get, p.keySet(), null, "test");
        file.set(text);
        watch = ConfigWatch.create(enforcer, p::get, p.keySet(), false, clock, file, log);
    }

    @AfterEach
    void stop() {
        watch.close();
        enforcer.close();
    }

    /** The file is {@code text} at the next read, which happens now; then an interval passes. */
    private boolean read(String text) {
        file.set(text);
        boolean applied = watch.check();
        clock.advance(INTERVAL);
        return applied;
    }

    /** The policies in force, as the language writes them. */
    private List<String> inForce() {
        List<String> out = new ArrayList<>();
        for (Policy p : enforcer.policies()) {
            out.add(p.toString());
        }
        return out;
    }

    private static List<String> policiesOf(String text) {
        List<String> out = new ArrayList<>();
        SluiceConfig.reload(text, "x", n -> null, List.of()).policies().forEach(p -> out.add(p.toString()));
        return out;
    }

    private static String version(String text) {
        return new FileVersion(text.getBytes(StandardCharsets.UTF_8)).toString();
    }

    @Test
    void check_writeInPlaceReadAtEveryByte_appliesOnlyTheCompleteVersion() {
        // Given the new version written byte by byte, each state read once, an interval apart
        List<String> old = inForce();
        for (int cut = 0; cut < NEW.length(); cut++) {
            // Then no prefix is applied: none was read twice
            assertFalse(read(NEW.substring(0, cut)), "prefix of " + cut + " bytes");
            assertEquals(old, inForce(), "after the prefix of " + cut + " bytes");
        }
        // When the complete version stays for an interval
        assertFalse(read(NEW), "read once");
        assertTrue(read(NEW), "unchanged an interval later");

        // Then it alone is applied, and nothing was refused
        assertEquals(policiesOf(NEW), inForce());
        assertEquals(List.of(new RecordingLogger.Line(Level.INFO, "Sluice: config file " + dir.resolve("sluice.properties")
                + " (" + version(NEW) + ") applied: 2 policies (added [], changed [api, login], removed [])")),
                log.atLeast(Level.INFO));
    }

    @Test
    void check_readsLessThanAnIntervalApart_doNotMakeAVersionStable() {
        file.set(NEW);
        assertFalse(watch.check());
        assertFalse(watch.check(), "read again at once");
        clock.advance(INTERVAL.minusNanos(1));
        assertFalse(watch.check(), "a nanosecond short of an interval");
        clock.advanceNanos(1);
        assertTrue(watch.check(), "an interval after the first read");
        assertEquals(policiesOf(NEW), inForce());
    }

    @Test
    void check_stalledWriterCutsAMatchValue_lastLineWithoutLineEnd_isRefused_thenTheCompleteVersionApplied() {
        // Given a writer that stops for two intervals in the middle of "match=POST:/login"
        String torn = NEW.substring(0, NEW.indexOf("POST:/lo") + "POST:/lo".length());
        List<String> old = inForce();
        assertTrue(policiesOf(torn).toString().contains("POST:/lo"), "the torn text parses: " + policiesOf(torn));

        // When it is read unchanged an interval apart
        assertFalse(read(torn));
        assertFalse(read(torn));

        // Then it is refused, once, naming the reason; the policies in force stay
        assertEquals(old, inForce());
        String f = dir.resolve("sluice.properties").toString();
        assertEquals(List.of(new RecordingLogger.Line(Level.WARNING, "Sluice: config file " + f + " (" + version(torn)
                + ") refused, the policies in force stay: its last line has no line end, so the file may be cut in the"
                + " middle of a write; end the file with a newline (and replace it by an atomic rename)")),
                log.atLeast(Level.INFO));
        assertFalse(read(torn), "a refused version is not retried");
        assertEquals(1, log.atLeast(Level.INFO).size());

        // And when the writer finishes, the complete version is applied
        assertFalse(read(NEW));
        assertTrue(read(NEW));
        assertEquals(policiesOf(NEW), inForce());
    }

    @Test
    void check_truncatedValueThatStillParses_withoutLineEnd_isRefused() {
        // "match=/api/*" cut to "match=/api/": a valid policy that matches one path only, and
        // the login policy gone
        String torn = NEW.substring(0, NEW.indexOf("/api/*") + "/api/".length());
        assertEquals(1, policiesOf(torn).size(), "the torn text parses: " + policiesOf(torn));
        assertFalse(read(torn));
        assertFalse(read(torn));
        assertTrue(log.last(Level.WARNING).message().contains("its last line has no line end"),
                log.last(Level.WARNING).message());
        assertEquals(policiesOf(OLD), inForce());
    }

    @Test
    void check_emptyFile_stable_isRefusedWithAWarning() {
        assertFalse(read(""));
        assertFalse(read(""));
        assertEquals(policiesOf(OLD), inForce());
        assertEquals(1, log.atLeast(Level.INFO).size(), log.atLeast(Level.INFO).toString());
        assertTrue(log.last(Level.WARNING).message().endsWith("refused, the policies in force stay: the file is"
                + " empty (truncated by a write in place?); to run without policies from the file, write"
                + " no-policies = true in it"), log.last(Level.WARNING).message());
    }

    @Test
    void check_everyPolicyGone_isRefused_unlessTheFileSaysNoPolicies() {
        // Given a stable version with no policy: only the comment the writer wrote first
        String gone = "# limits of the shop\n";
        assertFalse(read(gone));
        assertFalse(read(gone));

        // Then it is refused, naming what would be lost
        assertEquals(policiesOf(OLD), inForce());
        assertTrue(log.last(Level.WARNING).message().endsWith("the file defines no policy, while the version in"
                + " force defines [api, login] (cut by a write in place?); if no policy is wanted from the file,"
                + " write no-policies = true in it"), log.last(Level.WARNING).message());

        // When the operator says so explicitly, it is applied
        String none = "# no limits during the sale\nno-policies = true\n";
        assertFalse(read(none));
        assertTrue(read(none));
        assertEquals(List.of(), inForce());
        assertTrue(log.last(Level.INFO).message().endsWith("applied: 0 policies (added [], changed [],"
                + " removed [api, login])"), log.last(Level.INFO).message());

        // And policies can come back (no-policies is not a setting fixed at start-up)
        assertFalse(read(NEW));
        assertTrue(read(NEW));
        assertEquals(policiesOf(NEW), inForce());
        assertEquals(1, log.at(Level.WARNING).size(), log.atLeast(Level.INFO).toString());
    }

    @Test
    void check_noPoliciesWithAPolicyInTheSameVersion_isRefusedNamingBoth() {
        String both = "no-policies = true\npolicy.api = fixed-window 5/10s key=ip\n";
        assertFalse(read(both));
        assertFalse(read(both));
        String m = log.last(Level.WARNING).message();
        assertTrue(m.contains("line 1") && m.contains("no-policies") && m.contains("line 2 defines policy 'api'"), m);
        assertEquals(policiesOf(OLD), inForce());
    }

    @Test
    void check_fileKeepsChangingBetweenReads_appliesNothingUntilOneVersionIsStable() {
        for (int limit = 6; limit <= 10; limit++) {
            assertFalse(read(OLD.replace("5/10s", limit + "/10s")), "version " + limit);
        }
        assertEquals(policiesOf(OLD), inForce());
        assertEquals(List.of(), log.atLeast(Level.INFO));

        assertTrue(read(OLD.replace("5/10s", "10/10s")), "the last version, read again an interval later");
        assertEquals(policiesOf(OLD.replace("5/10s", "10/10s")), inForce());
        assertEquals(1, log.atLeast(Level.INFO).size(), log.atLeast(Level.INFO).toString());
    }

    @Test
    void check_changeUndoneBeforeItWasStable_appliesNothing_andAPrefixReadAgainLaterStartsOver() {
        String prefix = NEW.substring(0, 40);
        assertFalse(read(prefix));
        assertFalse(read(OLD), "back to the version in force");
        assertFalse(read(prefix), "the same prefix again: read once since it came back");
        assertFalse(read(OLD));
        assertEquals(policiesOf(OLD), inForce());
        assertEquals(List.of(), log.atLeast(Level.INFO));
    }

    @Test
    void check_unreadableBetweenTwoReads_startsTheStabilityOver() {
        assertFalse(read(NEW));
        file.fail(new IOException("Input/output error"));
        assertFalse(watch.check());
        clock.advance(INTERVAL);
        assertTrue(log.last(Level.WARNING).message().contains("cannot read config file"), log.last(Level.WARNING).message());
        assertFalse(read(NEW), "read once since the failure");
        assertTrue(read(NEW));
        assertEquals(policiesOf(NEW), inForce());
    }

    @Test
    void check_stalledWriterCutAtALineEnd_appliesThePrefix_theResidualRiskTheDocsName() {
        // A prefix that ends at a line end and keeps a policy is a valid file: nothing tells it
        // from an edit that removed the second policy. (Atomic rename rules it out; see the docs.)
        String prefix = NEW.substring(0, NEW.indexOf("policy.login"));
        assertFalse(read(prefix));
        assertTrue(read(prefix));
        assertEquals(policiesOf(prefix), inForce());
        assertFalse(read(NEW));
        assertTrue(read(NEW));
        assertEquals(policiesOf(NEW), inForce());
    }

    @Test
    void check_readsTheFileOncePerCheck() {
        int before = file.reads;
        read(NEW);
        read(NEW);
        read(NEW);
        assertEquals(3, file.reads - before);
    }

    @Test
    void start_fileWithoutAFinalLineEnd_warnsAtOnce_andAnEditKeepingItIsRefused() throws Exception {
        watch.close();
        enforcer.close();
        String noEnd = OLD.strip();
        start(noEnd);
        String f = dir.resolve("sluice.properties").toString();
        assertEquals(List.of(new RecordingLogger.Line(Level.WARNING, "Sluice: config file " + f + " does not end with"
                + " a line end; a version without one is refused as possibly cut by a write, so end the file with a"
                + " newline")), log.atLeast(Level.INFO));
        assertEquals(policiesOf(OLD), inForce(), "the start-up version is in force");

        assertFalse(read(NEW.strip()));
        assertFalse(read(NEW.strip()));
        assertEquals(policiesOf(OLD), inForce());
        assertTrue(log.last(Level.WARNING).message().contains("its last line has no line end"));
    }

    @Test
    void start_noPoliciesWithAPolicyInTheFile_failsNamingTheLines() throws Exception {
        Path f = dir.resolve("both.properties");
        Files.writeString(f, "policy.a = fixed-window 5/10s key=ip\nno-policies = true\n");
        Map<String, String> p = Map.of("config", f.toString());
        ConfigException x = assertThrows(ConfigException.class,
                () -> SluiceConfig.newEnforcer(p::get, p.keySet(), null, "test"));
        assertTrue(x.getMessage().contains("line 2") && x.getMessage().contains("no-policies")
                && x.getMessage().contains("line 1 defines policy 'a'"), x.getMessage());
    }

    @Test
    void start_noPoliciesWithoutAConfigFile_failsRatherThanDoingNothing() {
        Map<String, String> p = Map.of("no-policies", "true");
        ConfigException x = assertThrows(ConfigException.class,
                () -> SluiceConfig.newEnforcer(p::get, p.keySet(), null, "test"));
        assertTrue(x.getMessage().contains("init-param 'no-policies'") && x.getMessage().contains("no config file"),
                x.getMessage());
        Map<String, String> q = Map.of("no-policies", "yes");
        x = assertThrows(ConfigException.class, () -> SluiceConfig.newEnforcer(q::get, q.keySet(), null, "test"));
        assertTrue(x.getMessage().contains("no-policies must be true or false"), x.getMessage());
    }

    @Test
    void start_noPoliciesInTheFile_startsWithout_andAppliesALaterVersionWithPolicies() throws Exception {
        watch.close();
        enforcer.close();
        start("no-policies = true\n");
        assertEquals(List.of(), inForce());
        assertFalse(read(NEW));
        assertTrue(read(NEW));
        assertEquals(policiesOf(NEW), inForce());
    }
}
