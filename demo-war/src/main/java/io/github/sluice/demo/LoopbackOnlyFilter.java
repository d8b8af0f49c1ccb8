package io.github.sluice.demo;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * The demo's guard in front of the Sluice admin servlet ({@code /admin/sluice/*}): answers only
 * requests whose <b>connection</b> comes from this machine, and refuses the others with 403.
 *
 * <p>It reads {@link HttpServletRequest#getRemoteAddr()}, which in the containers the demo runs in
 * (the runner's embedded Jetty with a plain connector, Tomcat without a {@code RemoteIpValve}) is
 * the socket's peer address: neither container is told to read {@code X-Forwarded-For}, so the
 * header the demo's Sluice filter trusts from loopback cannot open this endpoint to another host
 * (the contract tests send one from loopback and the unit test from another address). Sluice's
 * own key resolution is not used here for that reason: it does honour the header from loopback.
 *
 * <p>DEMO ONLY. In production, protect the admin servlet with the container's authentication or a
 * filter of your own (docs/operations.md, "The admin servlet"). Thread-safe.
 */
public final class LoopbackOnlyFilter extends HttpFilter {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (loopback(request.getRemoteAddr())) {
            chain.doFilter(request, response);
            return;
        }
        byte[] body = ("{\"type\":\"about:blank\",\"title\":\"Forbidden\",\"status\":403,\"detail\":"
                + "\"the demo's admin endpoint answers only connections from this machine\"}")
                .getBytes(StandardCharsets.UTF_8);
        response.setStatus(403);
        response.setContentType("application/problem+json");
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** {@code true} only for an IP literal of a loopback address; never resolves a name. */
    static boolean loopback(String address) {
        if (address == null) {
            return false;
        }
        String a = address.length() > 2 && address.startsWith("[") && address.endsWith("]")
                ? address.substring(1, address.length() - 1) : address;
        if (!a.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}") && !a.matches("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[0-9A-Za-z._-]+)?")) {
            return false; // not an IP literal: never a name to resolve
        }
        try {
            return InetAddress.getByName(a).isLoopbackAddress();
        } catch (UnknownHostException | RuntimeException e) {
            return false;
        }
    }
}
