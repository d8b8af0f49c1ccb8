package io.github.sluice.servlet;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** The admin webapp's stand-in for an authentication filter: only {@code Authorization: Bearer operator} passes. */
public class AdminTokenFilter extends HttpFilter {

    private static final long serialVersionUID = 1L;
    private static final byte[] EXPECTED = "Bearer operator".getBytes(StandardCharsets.UTF_8);

    /** Created by the container. */
    public AdminTokenFilter() {
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String given = request.getHeader("Authorization");
        if (given == null || !MessageDigest.isEqual(EXPECTED, given.getBytes(StandardCharsets.UTF_8))) {
            response.sendError(403);
            return;
        }
        chain.doFilter(request, response);
    }
}
