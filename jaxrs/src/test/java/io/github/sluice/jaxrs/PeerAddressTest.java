package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.RecordingLogger;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/** The feature's warning about an unknown peer address names the request's path, escaped. */
class PeerAddressTest {

    /** CR, LF, U+2028, U+2029, U+202E, NUL, ESC and an unpaired surrogate, each before forged text. */
    private static final String HOSTILE = "/a\r\nWARNING forged\u2028two\u2029three\u202Eevil\u0000nul\u001B[31mred"
            + "\uD800lone";

    @Test
    void unknownAddress_hostilePath_isLoggedEscapedOnce() {
        // Given a lookup that cannot find the peer's address, and a logger that records lines
        RecordingLogger log = new RecordingLogger();
        PeerAddress peer = new PeerAddress(request -> null, log);

        // When two requests with a hostile path come
        assertNull(peer.of(request(HOSTILE)));
        assertNull(peer.of(request(HOSTILE)));

        // Then one warning names the path with every unsafe character escaped
        assertEquals(1, log.lines().size(), log.lines()::toString);
        String line = log.lines().get(0).toString();
        for (char c : new char[] {'\r', '\n', '\u2028', '\u2029', '\u202E', '\u0000', '\u001B', '\uD800'}) {
            assertTrue(line.indexOf(c) < 0, () -> String.format("U+%04X reached the log: %s", (int) c, line));
        }
        assertTrue(line.contains("'/a\\u000d\\u000aWARNING forged\\u2028two\\u2029three\\u202eevil\\u0000nul"
                + "\\u001b[31mred\\ud800lone'"), line);
    }

    @Test
    void unknownAddress_longPath_isCut() {
        RecordingLogger log = new RecordingLogger();

        new PeerAddress(request -> null, log).of(request("/" + "x".repeat(100_000)));

        assertTrue(log.lines().get(0).toString().contains("/" + "x".repeat(255) + "...'"), log.lines().get(0).toString());
        assertTrue(log.lines().get(0).toString().length() < 1_000);
    }

    private static ContainerRequestContext request(String path) {
        UriInfo uri = (UriInfo) Proxy.newProxyInstance(UriInfo.class.getClassLoader(), new Class<?>[] {UriInfo.class},
                (p, m, a) -> {
                    if (m.getName().equals("getPath")) {
                        return path;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
        return (ContainerRequestContext) Proxy.newProxyInstance(ContainerRequestContext.class.getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class}, (p, m, a) -> {
                    if (m.getName().equals("getUriInfo")) {
                        return uri;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }
}
