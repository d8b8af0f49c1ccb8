package io.github.sluice.bench.http;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The smallest useful servlet: a fixed 6-byte text body, so the filter's cost is visible. */
final class HelloServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final byte[] BODY = "hello\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain");
        resp.setContentLength(BODY.length);
        resp.getOutputStream().write(BODY);
    }
}
