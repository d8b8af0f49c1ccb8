package io.github.sluice.bench.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away Redis Cluster of {@code n} masters without replicas ({@code redis-server
 * --cluster-enabled yes} on free loopback ports, slots split evenly with {@code CLUSTER
 * ADDSLOTSRANGE}, joined with {@code CLUSTER MEET}), without persistence, for one benchmark
 * trial. One master is a valid cluster too, which lets a benchmark compare 1 and 3 masters with
 * the same client. The binary is {@code redis-server} on the PATH unless the system property
 * {@code sluice.redis.server} names another.
 */
final class RedisClusterNodes implements AutoCloseable {

    private static final int SLOTS = 16_384;

    private final List<Process> processes = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final Path dir;

    private RedisClusterNodes() throws IOException {
        this.dir = Files.createTempDirectory("sluice-bench-cluster");
    }

    /**
     * Starts the nodes, assigns the slots and waits (up to 30 s) until every node reports the
     * cluster ok.
     *
     * @param masters the number of masters, 1 or more
     * @return the running cluster
     * @throws IOException if a node does not start or the cluster does not form
     * @throws InterruptedException if interrupted while waiting
     */
    static RedisClusterNodes start(int masters) throws IOException, InterruptedException {
        if (masters < 1) {
            throw new IllegalArgumentException("masters must be >= 1 but was " + masters);
        }
        RedisClusterNodes c = new RedisClusterNodes();
        try {
            String binary = System.getProperty("sluice.redis.server", "redis-server");
            for (int i = 0; i < masters; i++) {
                int port = freePortPair(c.ports);
                Path node = c.dir.resolve(Integer.toString(port));
                Files.createDirectories(node);
                c.ports.add(port);
                c.processes.add(new ProcessBuilder(binary, "--port", Integer.toString(port),
                        "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                        "--cluster-config-file", node.resolve("nodes.conf").toString(),
                        "--save", "", "--appendonly", "no", "--dir", node.toString())
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start());
            }
            for (int i = 0; i < masters; i++) {
                c.await(c.ports.get(i), "PING", "+PONG");
                int from = SLOTS * i / masters;
                int to = SLOTS * (i + 1) / masters - 1;
                c.call(c.ports.get(i), "CLUSTER", "ADDSLOTSRANGE", Integer.toString(from), Integer.toString(to));
            }
            for (int i = 1; i < masters; i++) {
                c.call(c.ports.get(i), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(c.ports.get(0)));
            }
            for (int port : c.ports) {
                c.await(port, "CLUSTER INFO", "cluster_state:ok");
            }
            return c;
        } catch (IOException | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** @return {@code redis-cluster://127.0.0.1:<port>,...}, every node a seed */
    String uri() {
        StringBuilder sb = new StringBuilder("redis-cluster://");
        for (int i = 0; i < ports.size(); i++) {
            sb.append(i == 0 ? "" : ",").append("127.0.0.1:").append(ports.get(i));
        }
        return sb.toString();
    }

    private void await(int port, String command, String expected) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                last = call(port, command.split(" "));
                if (last.contains(expected)) {
                    return;
                }
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            Thread.sleep(20); // polling a child process's start, not timing logic
        }
        throw new IOException("node " + port + " did not answer " + command + " with " + expected + ": " + last);
    }

    /** Sends one command; returns the raw reply (enough to look for a status or a field). */
    private String call(int port, String... args) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            StringBuilder cmd = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args) {
                cmd.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
            }
            OutputStream o = s.getOutputStream();
            o.write(cmd.toString().getBytes(StandardCharsets.UTF_8));
            o.flush();
            s.setSoTimeout(5_000);
            InputStream in = s.getInputStream();
            byte[] b = new byte[8192];
            int n = in.read(b);
            String reply = n > 0 ? new String(b, 0, n, StandardCharsets.UTF_8) : "";
            if (reply.startsWith("-")) {
                throw new IOException(String.join(" ", args) + " on " + port + ": " + reply.strip());
            }
            return reply;
        }
    }

    private static int freePortPair(List<Integer> taken) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            if (port + 10_000 > 65_535 || taken.contains(port) || taken.contains(port + 10_000)
                    || taken.contains(port - 10_000)) {
                continue;
            }
            try (ServerSocket bus = new ServerSocket(port + 10_000, 1, InetAddress.getLoopbackAddress())) {
                // Bound, hence free: closed at once, for the node to take.
                return bus.getLocalPort() - 10_000;
            } catch (IOException busy) {
                // Another port.
            }
        }
        throw new IOException("no free pair of ports (port and port + 10000)");
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // A temporary directory left behind is harmless.
        }
    }
}
