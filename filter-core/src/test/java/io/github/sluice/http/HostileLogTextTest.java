package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.http.LoggingListenerTest.Recording;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeRequest;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every log call that carries client-written text (a key, a path, a method) escapes it: CR, LF,
 * U+2028, U+2029, U+202E, NUL, ESC and unpaired surrogates never reach a log line raw. One case
 * per call site of {@link LoggingListener}; the adapters' call sites have their own tests
 * (the JAX-RS feature's {@code PeerAddressTest}) and reuse {@link LogText}.
 */
class HostileLogTextTest {

    /** The attacker's characters, each followed by a forged line. */
    static final String HOSTILE = "k\r\nINFO forged\u2028two\u2029three\u202Eevil\u0000nul\u001B[31mred\uD800lone";
    private static final List<Character> RAW = List.of('\r', '\n', '\u2028', '\u2029', '\u202E', '\u0000', '\u001B',
            '\uD800');
    private static final String ESCAPED = "k\\u000d\\u000aINFO forged\\u2028two\\u2029three\\u202eevil\\u0000nul"
            + "\\u001b[31mred\\ud800lone";

    private final Policy real = Policy.parse("per-ip = token-bucket 1/1m key=ip");
    private final Policy trial = Policy.parse("trial = token-bucket 1/1m key=ip dry-run");
    private final MutableDecision denied = new MutableDecision().deny(1, 0, 60_000_000_000L, 60_000_000_000L);
    private final MutableDecision allowed = new MutableDecision().allow(1, 0, 1);
    private final FakeRequest request = FakeRequest.get("/a/" + HOSTILE).method("GET" + HOSTILE);

    @Test
    void allowed_hostileKey_isEscaped() {
        assertEscaped(1, l -> l.allowed(real, HOSTILE, allowed));
    }

    @Test
    void shaped_hostileKey_isEscaped() {
        assertEscaped(1, l -> l.shaped(real, HOSTILE, allowed));
    }

    @Test
    void denied_hostileKeyPathAndMethod_areEscaped() {
        List<String> lines = assertEscaped(3, l -> l.denied(real, HOSTILE, denied, request));
        assertTrue(lines.get(0).contains("GET" + ESCAPED + " /a/" + ESCAPED), lines.get(0));
    }

    @Test
    void deniedWithoutRequest_hostileKey_isEscaped() {
        assertEscaped(1, l -> l.denied(real, HOSTILE, denied));
    }

    @Test
    void dryRunDenied_hostileMethodAtInfoAndKeyAndPathAtDebug_areEscaped() {
        List<String> lines = assertEscaped(4, l -> l.denied(trial, HOSTILE, denied, request));
        assertEquals(2, lines.size());
        assertTrue(lines.get(0).startsWith("INFO ") && lines.get(1).startsWith("DEBUG "), lines.toString());
    }

    @Test
    void released_hostileKey_isEscaped() {
        assertEscaped(1, l -> l.released(real, HOSTILE, 1));
    }

    @Test
    void evicted_hostileKey_isEscapedAtBothLevels() {
        assertEscaped(1, l -> l.evicted("per-ip", HOSTILE, true));
        assertEscaped(1, l -> l.evicted("per-ip", HOSTILE, false));
    }

    @Test
    void deniedWithALongHostilePath_isCutAndEscaped() {
        Recording log = new Recording(Level.TRACE);
        String path = "/" + "\n".repeat(10_000);

        new LoggingListener(log).denied(real, "k", denied, FakeRequest.get(path));

        String line = log.lines.get(0);
        assertTrue(line.contains("/" + "\\u000a".repeat(LogText.MAX_PATH - 1) + "... key 'k'"), line);
        assertFalse(line.indexOf('\n') >= 0);
    }

    @Test
    void escape_pairsAndOrdinaryText_areKept_unpairedHalvesAndTagCharactersAreNot() {
        assertEquals("caf\u00e9 \uD83D\uDE00 ok", LogText.escape("caf\u00e9 \uD83D\uDE00 ok"));
        assertEquals("\\udc00\uD83D\uDE00\\ud83d", LogText.escape("\uDC00\uD83D\uDE00\uD83D"));
        assertEquals("a\\udb40\\udc01b", LogText.escape("a\uDB40\uDC01b"), "U+E0001 LANGUAGE TAG is a format character");
        String plain = "203.0.113.7";
        assertTrue(plain == LogText.escape(plain), "nothing to escape: the same string, nothing allocated");
    }

    @Test
    void escape_literalBackslashU_cannotPassForAnEscape() {
        // Given a client that writes the text of an escape rather than the character
        String forged = "bob\\u000aWARNING admin";

        // Then the backslash is escaped too: every \\u in the line is the escaper's, and the two differ
        assertEquals("bob\\u005cu000aWARNING admin", LogText.escape(forged));
        assertNotEquals(LogText.escape(forged), LogText.escape("bob\nWARNING admin"));
    }

    @Test
    void escapeThrowable_safeChain_isTheSameThrowable() {
        IllegalStateException t = new IllegalStateException("plain", new RuntimeException("also plain"));
        t.addSuppressed(new RuntimeException("fine"));

        assertTrue(LogText.escape(t) == t);
        assertTrue(LogText.escape((Throwable) null) == null);
    }

    @Test
    void escapeThrowable_hostileMessageAnywhereInTheChain_printsEscapedWithTheOriginalClassesAndTraces() {
        // Given a chain whose suppressed exception's cause quotes the client
        RuntimeException inner = new RuntimeException(HOSTILE);
        IllegalStateException suppressed = new IllegalStateException("wrapped", inner);
        IllegalArgumentException top = new IllegalArgumentException((String) null);
        top.addSuppressed(suppressed);

        Throwable logged = LogText.escape(top);

        java.io.StringWriter out = new java.io.StringWriter();
        logged.printStackTrace(new java.io.PrintWriter(out));
        String printed = out.toString();
        for (char c : RAW) {
            if (c != '\n' && c != '\r') { // printStackTrace writes its own line breaks
                assertTrue(printed.indexOf(c) < 0, () -> String.format("U+%04X reached the log: %s", (int) c, printed));
            }
        }
        assertEquals(top.getStackTrace().length, logged.getStackTrace().length);
        assertEquals(null, logged.getMessage(), "a missing message stays missing");
        assertTrue(printed.startsWith("java.lang.IllegalArgumentException" + System.lineSeparator()), printed);
        assertTrue(printed.contains("Suppressed: java.lang.IllegalStateException: wrapped"), printed);
        assertTrue(printed.contains("Caused by: java.lang.RuntimeException: " + ESCAPED), printed);
        assertEquals(ESCAPED, logged.getSuppressed()[0].getCause().getMessage());
    }

    @Test
    void escapeThrowable_cyclicChain_terminates() {
        RuntimeException a = new RuntimeException("a\n");
        RuntimeException b = new RuntimeException("b", a);
        a.addSuppressed(b); // a suppresses its own cause's wrapper: a cycle through suppressed

        Throwable logged = LogText.escape(a);

        assertEquals("java.lang.RuntimeException: a\\u000a", logged.toString());
        assertTrue(logged.getSuppressed()[0].getCause() == logged, "the cycle is kept, not unrolled");
    }

    /**
     * Runs one call with every level enabled and checks that each line carries the text escaped,
     * {@code expected} times in all, and none of the raw characters.
     */
    private List<String> assertEscaped(int expected, Consumer<LoggingListener> call) {
        Recording log = new Recording(Level.TRACE);
        call.accept(new LoggingListener(log));
        assertFalse(log.lines.isEmpty());
        int found = 0;
        for (String line : log.lines) {
            for (char c : RAW) {
                assertTrue(line.indexOf(c) < 0, () -> String.format("U+%04X reached the log: %s", (int) c, line));
            }
            for (int i = line.indexOf(ESCAPED); i >= 0; i = line.indexOf(ESCAPED, i + 1)) {
                found++;
            }
        }
        assertEquals(expected, found, log.lines::toString);
        return log.lines;
    }
}
