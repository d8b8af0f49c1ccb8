package io.github.sluice.servlet;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A java.net.http client for the container tests, and a raw socket for clients that go away. */
final class Http {

    static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private Http() {
    }

    /**
     * Sends a GET.
     *
     * @param headers name, value, name, value...
     */
    static HttpResponse<String> get(URI uri, String... headers) {
        try {
            return CLIENT.send(request(uri, headers), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static HttpRequest request(URI uri, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).GET();
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b.build();
    }

    /**
     * Sends a request line exactly as given, on a connection of its own, so that targets an HTTP
     * client would normalise or refuse ({@code //}, {@code ..}, a backslash) reach the server raw.
     *
     * @param target the request target, e.g. {@code /api/./login;x=1?q}
     * @param headers name, value, name, value...
     * @return the response's status code
     */
    static int raw(URI base, String method, String target, String... headers) {
        String response = rawResponse(base, method, target, headers);
        return Integer.parseInt(response.substring(9, 12));
    }

    /**
     * Sends a request line exactly as given, like {@link #raw}.
     *
     * @return the whole response as ISO-8859-1 text: status line, header fields and body
     */
    static String rawResponse(URI base, String method, String target, String... headers) {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: ")
                .append(base.getHost()).append(':').append(base.getPort())
                .append("\r\nContent-Length: 0\r\nConnection: close\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        head.append("\r\n");
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            if (!response.startsWith("HTTP/1.1 ")) {
                throw new IllegalStateException(method + " " + target + " got no status line: '" + response + "'");
            }
            return response;
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + target, e);
        }
    }

    /** Opens a connection and sends a GET request, leaving the socket open for the caller to close. */
    static Socket send(URI uri) throws IOException {
        Socket socket = new Socket(uri.getHost(), uri.getPort());
        socket.setSoLinger(true, 0); // close() then resets the connection, as a crashing client would
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }
}
