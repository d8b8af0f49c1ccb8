package io.github.sluice.bench.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away {@code redis-server} on a free loopback port, without persistence, for one
 * benchmark trial. The binary is {@code redis-server} on the PATH unless the system property
 * {@code sluice.redis.server} names another.
 */
final class RedisServer implements AutoCloseable {

    private final Process process;
    private final int port;

    private RedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts a server and waits (up to ten seconds) until it answers {@code PING}.
     *
     * @return the running server
     * @throws IOException if it cannot be started or never answers
     * @throws InterruptedException if interrupted while waiting
     */
    static RedisServer start() throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String binary = System.getProperty("sluice.redis.server", "redis-server");
        Process p = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "yes")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        RedisServer server = new RedisServer(p, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!server.answers()) {
            if (System.nanoTime() > deadline || !p.isAlive()) {
                server.close();
                throw new IOException("redis-server did not answer PING on port " + port);
            }
            Thread.sleep(20); // polling a child process's start, not timing logic
        }
        return server;
    }

    private boolean answers() {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream o = s.getOutputStream();
            o.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            byte[] b = new byte[7];
            int n = in.read(b);
            return n > 0 && new String(b, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    /** @return {@code redis://127.0.0.1:<port>} */
    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
