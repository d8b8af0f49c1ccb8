package io.github.sluice.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A raw HTTP/1.1 client on a connection of its own: request targets reach the server exactly as
 * written (no client library normalises {@code //}, {@code ..} or escapes first). Shared by the
 * adapters' contract tests (WebFlux, the gateway).
 */
public final class RawHttp {

    private RawHttp() {
    }

    /** A response: status, header block and body as ISO-8859-1 text. */
    public record Response(int status, String head, String body) {

        /** @return the first value of the header {@code name} (case-insensitive), or {@code null} */
        public String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }

        /** @return every field line of the header {@code name} (case-insensitive), in order */
        public java.util.List<String> headers(String name) {
            java.util.List<String> lines = new java.util.ArrayList<>();
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    lines.add(line.substring(colon + 1).trim());
                }
            }
            return lines;
        }

        /**
         * @param name a header name
         * @return whether the response has it
         */
        public boolean has(String name) {
            return header(name) != null;
        }
    }

    /**
     * Sends a request without a body and reads the whole response (the connection is closed).
     *
     * @param headers name, value, name, value...
     * @return the response
     */
    public static Response send(URI base, String method, String target, String... headers) {
        try (Socket socket = open(base, method, target, headers)) {
            String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            if (!all.startsWith("HTTP/1.1 ")) {
                throw new IllegalStateException(method + " " + target + " got no status line: '" + all + "'");
            }
            int end = all.indexOf("\r\n\r\n");
            String head = end < 0 ? all : all.substring(0, end);
            String body = end < 0 ? "" : all.substring(end + 4);
            if (head.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
                body = unchunk(body);
            }
            return new Response(Integer.parseInt(all.substring(9, 12)), head, body);
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + target, e);
        }
    }

    /** @return the status of a GET */
    public static int get(URI base, String target, String... headers) {
        return send(base, "GET", target, headers).status();
    }

    /** Sends the request and returns the open connection: closing it is a client going away. */
    public static Socket open(URI base, String method, String target, String... headers) throws IOException {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: ")
                .append(base.getHost()).append(':').append(base.getPort())
                .append("\r\nContent-Length: 0\r\nConnection: close\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        head.append("\r\n");
        Socket socket = new Socket(base.getHost(), base.getPort());
        socket.setSoTimeout(20_000);
        socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return socket;
    }

    private static String unchunk(String chunked) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < chunked.length()) {
            int eol = chunked.indexOf("\r\n", i);
            if (eol < 0) {
                break;
            }
            int size = Integer.parseInt(chunked.substring(i, eol).trim().split(";")[0], 16);
            if (size == 0) {
                break;
            }
            out.append(chunked, eol + 2, eol + 2 + size);
            i = eol + 2 + size + 2;
        }
        return out.toString();
    }
}
