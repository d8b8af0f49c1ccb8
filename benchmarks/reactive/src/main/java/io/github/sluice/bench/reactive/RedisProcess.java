package io.github.sluice.bench.reactive;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away {@code redis-server} on a free loopback port, without persistence (as
 * {@code bench.redis.RedisServer}), and its CPU time from {@code INFO cpu} (microsecond
 * resolution, unlike {@code /proc}'s clock ticks). The binary is {@code redis-server} on the PATH
 * unless the system property {@code sluice.redis.server} names another.
 */
final class RedisProcess implements AutoCloseable {

    private final Process process;
    private final int port;
    private Socket info;

    private RedisProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static RedisProcess start() throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(System.getProperty("sluice.redis.server", "redis-server"), "--port",
                Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        RedisProcess r = new RedisProcess(p, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                r.cpuNanos();
                return r;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline || !p.isAlive()) {
                    r.close();
                    throw new IOException("redis-server did not answer on port " + port, notYet);
                }
                Thread.sleep(20); // polling a child process's start
            }
        }
    }

    int port() {
        return port;
    }

    /** @return redis-server's CPU time so far (user + system), ns */
    synchronized long cpuNanos() throws IOException {
        if (info == null) {
            info = new Socket(InetAddress.getLoopbackAddress(), port);
        }
        OutputStream out = info.getOutputStream();
        out.write("*2\r\n$4\r\nINFO\r\n$3\r\ncpu\r\n".getBytes(StandardCharsets.US_ASCII));
        InputStream in = info.getInputStream();
        StringBuilder head = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("redis closed");
            }
            head.append((char) c);
        }
        int length = Integer.parseInt(head.toString().trim().substring(1));
        byte[] body = in.readNBytes(length + 2);
        long nanos = 0;
        for (String line : new String(body, StandardCharsets.US_ASCII).split("\r\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                nanos += Math.round(Double.parseDouble(line.substring(line.indexOf(':') + 1)) * 1e9);
            }
        }
        return nanos;
    }

    long cpuNanosUnchecked() {
        try {
            return cpuNanos();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            if (info != null) {
                info.close();
            }
        } catch (IOException ignored) {
            // closing
        }
        process.destroy();
    }
}
