package io.github.sluice.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code GET /servlet/hello}: a plain servlet. It knows nothing about rate limiting; the Sluice
 * filter mapped to {@code /servlet/*} in {@code web.xml} applies the {@code per-ip} policy before
 * it runs.
 */
public final class HelloServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain; charset=utf-8");
        response.getWriter().write("Hello from a servlet behind the Sluice filter.\n");
    }
}
