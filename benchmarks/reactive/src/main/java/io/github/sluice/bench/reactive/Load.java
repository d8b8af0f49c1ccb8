package io.github.sluice.bench.reactive;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed-loop load on keep-alive HTTP/1.1 connections, one blocking thread ({@code load-*}) per
 * connection, each sending its next request when the last response is read whole. The requests
 * carry {@code X-Client: c<connection>}, a key per connection. Not thread-safe: one batch at a time.
 */
final class Load implements AutoCloseable {

    private final Socket[] sockets;
    private final InputStream[] ins;
    private final OutputStream[] outs;

    Load(int port, int connections) throws IOException {
        sockets = new Socket[connections];
        ins = new InputStream[connections];
        outs = new OutputStream[connections];
        for (int i = 0; i < connections; i++) {
            sockets[i] = new Socket(InetAddress.getLoopbackAddress(), port);
            sockets[i].setTcpNoDelay(true);
            ins[i] = new BufferedInputStream(sockets[i].getInputStream(), 8192);
            outs[i] = sockets[i].getOutputStream();
        }
    }

    /**
     * Sends {@code requests} requests for {@code path}, spread over the connections, and waits for
     * every response.
     *
     * @return the wall-clock time taken, ns
     */
    long run(String path, int requests) throws InterruptedException {
        int n = sockets.length;
        CountDownLatch done = new CountDownLatch(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int c = i;
            int count = requests / n + (i < requests % n ? 1 : 0);
            byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nX-Client: c" + c + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            Thread t = new Thread(() -> {
                try {
                    for (int k = 0; k < count; k++) {
                        outs[c].write(request);
                        int status = readResponse(ins[c]);
                        if (status != 200) {
                            throw new IOException("status " + status + " for " + path);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }, "load-" + c);
            t.start();
        }
        done.await();
        long took = System.nanoTime() - start;
        if (failure.get() != null) {
            throw new IllegalStateException("load failed", failure.get());
        }
        return took;
    }

    /** Reads one response (Content-Length or chunked body) and returns its status. */
    private static int readResponse(InputStream in) throws IOException {
        String status = line(in);
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            String name = h.substring(0, colon).trim();
            if (name.equalsIgnoreCase("content-length")) {
                length = Long.parseLong(h.substring(colon + 1).trim());
            } else if (name.equalsIgnoreCase("transfer-encoding") && h.toLowerCase().contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            for (long size = Long.parseLong(line(in).trim(), 16); size > 0; size = Long.parseLong(line(in).trim(), 16)) {
                skip(in, size);
                line(in);
            }
            line(in);
        } else if (length > 0) {
            skip(in, length);
        }
        return code;
    }

    private static void skip(InputStream in, long n) throws IOException {
        for (long left = n; left > 0; left--) {
            if (in.read() < 0) {
                throw new IOException("connection closed in a body");
            }
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder(64);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    @Override
    public void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
    }
}
