package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code ip} key behind a reverse proxy: X-Forwarded-For is believed only when the TCP peer
 * (here the test client, 127.0.0.1) is a trusted proxy.
 */
abstract class ClientAddressContract extends ContainerContract {

    private static final String ONE_PER_MINUTE = "per-ip = fixed-window 1/1m align=first-request key=ip";

    ClientAddressContract(Container container) {
        super(container);
    }

    @Test
    void trustedPeer_keyIsTheAddressFromXForwardedFor() throws Exception {
        // Given 1 request per minute per client, and the peer trusted as a proxy (init-params)
        RunningServer server = start(Deployment.ofInitParams(Map.of(
                "policies", ONE_PER_MINUTE, "trusted-proxies", "127.0.0.1/32, ::1/128", "listener", "none"), app));

        // When two clients come through the proxy, each named in X-Forwarded-For
        int first = Http.get(server.uri("/api/ok"), "X-Forwarded-For", "203.0.113.5").statusCode();
        int again = Http.get(server.uri("/api/ok"), "X-Forwarded-For", "203.0.113.5").statusCode();
        int other = Http.get(server.uri("/api/ok"), "X-Forwarded-For", "203.0.113.6").statusCode();
        // ...and a client that prepends a forged hop: the rightmost untrusted address counts
        int forged = Http.get(server.uri("/api/ok"), "X-Forwarded-For", "203.0.113.6, 203.0.113.7").statusCode();

        // Then each client has its own quota
        assertEquals(200, first);
        assertEquals(429, again);
        assertEquals(200, other);
        assertEquals(200, forged);
    }

    @Test
    void untrustedPeer_xForwardedForIsIgnored_soItCannotBeSpoofed() throws Exception {
        // Given 1 request per minute per client, and only 10.0.0.0/8 trusted as proxies
        RunningServer server = start(Deployment.ofInitParams(Map.of(
                "policies", ONE_PER_MINUTE, "trusted-proxies", "10.0.0.0/8", "listener", "none"), app));

        // When a direct client invents a new X-Forwarded-For address for each request
        int first = Http.get(server.uri("/api/ok"), "X-Forwarded-For", "203.0.113.5").statusCode();
        int spoofed = Http.get(server.uri("/api/ok"), "X-Forwarded-For", "203.0.113.6").statusCode();

        // Then it is still counted by its own address
        assertEquals(200, first);
        assertEquals(429, spoofed);
    }
}
