package io.github.sluice.servlet;

import io.github.sluice.http.Verdict;
import io.github.sluice.request.HeaderSink;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Writes a denial response; never throws, because a client that went away is not a server error. */
final class Denial {

    private Denial() {
    }

    static void write(Verdict verdict, HttpServletResponse response, HeaderSink headers) {
        try {
            response.setStatus(verdict.status());
            // No Content-Length of our own: if the write fails half-way the container must not
            // wait for bytes that will never come; it computes the length of a complete body.
            verdict.writeDenial(headers, body -> {
                ServletOutputStream out = response.getOutputStream();
                out.write(body);
            });
        } catch (IOException | IllegalStateException gone) {
            // The client closed the connection, or something upstream already used the response:
            // the status and headers are all that can be said; the request is refused either way.
        }
    }
}
