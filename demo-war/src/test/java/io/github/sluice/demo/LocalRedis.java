package io.github.sluice.demo;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away {@code redis-server} on a free loopback port, without persistence, for the test
 * that runs the demo against Redis.
 */
final class LocalRedis implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path dir;

    private LocalRedis(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /** @return the path of {@code redis-server}, or {@code null} if it is not installed */
    static String find() {
        String path = System.getenv("PATH");
        for (String d : (path == null ? "" : path).split(File.pathSeparator)) {
            File f = new File(d, "redis-server");
            if (!d.isEmpty() && f.canExecute()) {
                return f.getPath();
            }
        }
        File usual = new File("/usr/bin/redis-server");
        return usual.canExecute() ? usual.getPath() : null;
    }

    /** Starts the server on a free port and waits until it answers {@code PING}. */
    static LocalRedis start(String executable) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        return start(executable, port);
    }

    /**
     * Starts the server on a given port (that of one stopped before, for a Redis that comes back)
     * and waits until it answers {@code PING}.
     */
    static LocalRedis start(String executable, int port) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("sluice-demo-redis");
        Process p = new ProcessBuilder(List.of(executable, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        LocalRedis redis = new LocalRedis(p, port, dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!redis.pong()) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                redis.close();
                throw new IOException("redis-server did not start on port " + port);
            }
            Thread.sleep(50); // polling a starting server: there is nothing to wait on
        }
        return redis;
    }

    /** @return the port it listens on */
    int port() {
        return port;
    }

    /** @return the URL for {@code SLUICE_REDIS_URL} */
    String url() {
        return "redis://127.0.0.1:" + port;
    }

    private boolean pong() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            s.setSoTimeout(1_000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] reply = in.readNBytes(7);
            return "+PONG\r\n".equals(new String(reply, StandardCharsets.US_ASCII));
        } catch (IOException notYet) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
