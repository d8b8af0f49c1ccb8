package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.RecordingLogger;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The mapper's warning carries the application's exception, whose message may quote the request. */
class UnmappedExceptionsLogTest {

    @Test
    void exceptionQuotingAHostileRequest_isLoggedEscaped_withItsClassAndStackTrace() {
        // Given an application exception whose message, and whose cause's, quote the client
        RecordingLogger log = new RecordingLogger();
        IllegalStateException cause = new IllegalStateException("id\u2028WARNING forged\u202E");
        IllegalArgumentException thrown = new IllegalArgumentException("no item a\r\nWARNING forged\u0000\u001B[2J",
                cause);

        // When nobody maps it
        assertEquals(500, new UnmappedExceptions(log).toResponse(thrown).getStatus());

        // Then the warning's throwable prints escaped, as the original's class, with its stack trace
        assertEquals(1, log.lines().size());
        Throwable logged = log.lines().get(0).thrown();
        StringWriter printed = new StringWriter();
        logged.printStackTrace(new PrintWriter(printed));
        String text = printed.toString();
        for (char c : new char[] {'\r', '\u2028', '\u202E', '\u0000', '\u001B'}) {
            assertTrue(text.indexOf(c) < 0, () -> String.format("U+%04X reached the log: %s", (int) c, text));
        }
        assertTrue(text.startsWith("java.lang.IllegalArgumentException: no item a\\u000d\\u000aWARNING forged\\u0000"
                + "\\u001b[2J" + System.lineSeparator()), text);
        assertTrue(text.contains("Caused by: java.lang.IllegalStateException: id\\u2028WARNING forged\\u202e"), text);
        assertArrayEquals(thrown.getStackTrace(), logged.getStackTrace());
        assertArrayEquals(cause.getStackTrace(), logged.getCause().getStackTrace());
    }

    @Test
    void exceptionWithAnOrdinaryMessage_isLoggedAsItIs() {
        RecordingLogger log = new RecordingLogger();
        IllegalStateException thrown = new IllegalStateException("database unavailable");

        new UnmappedExceptions(log).toResponse(thrown);

        assertSame(thrown, log.lines().get(0).thrown());
    }
}
