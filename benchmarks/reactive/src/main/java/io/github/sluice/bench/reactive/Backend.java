package io.github.sluice.bench.reactive;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The gateway's backend: a loopback HTTP/1.1 server with a blocking thread ({@code backend-*}) per
 * connection, answering every request {@code 200 hello}, so that its CPU is apart from the gateway's.
 */
final class Backend implements AutoCloseable {

    private static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n"
            + "hello").getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;

    Backend() throws IOException {
        server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "backend-accept");
        accept.setDaemon(true);
        accept.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        int n = 0;
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                Thread t = new Thread(() -> serve(s), "backend-" + n++);
                t.setDaemon(true);
                t.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private static void serve(Socket s) {
        try (s) {
            InputStream in = new BufferedInputStream(s.getInputStream(), 8192);
            OutputStream out = s.getOutputStream();
            int state = 0; // how much of "\r\n\r\n" was just read
            for (int c = in.read(); c >= 0; c = in.read()) {
                state = c == '\r' ? (state == 2 ? 3 : 1) : c == '\n' ? (state == 1 ? 2 : state == 3 ? 4 : 0) : 0;
                if (state == 4) {
                    out.write(RESPONSE); // GETs only: no request body to read
                    state = 0;
                }
            }
        } catch (IOException gone) {
            // the gateway closed the connection
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
