package io.github.sluice.redis.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Redis Cluster started by the tests: three masters with one replica each, every node a
 * {@code redis-server --cluster-enabled yes} on a free loopback port (its cluster bus on the
 * port + 10000), joined by {@code redis-cli --cluster create}. No persistence; each node's files
 * live in one temporary directory, deleted by {@link #close()}, which a JVM shutdown hook also
 * runs so that no server outlives a crashed test run.
 *
 * <p>A test can kill a master ({@link #kill}) to make its replica take over, and restart it
 * ({@link #restart}), after which it rejoins as a replica.
 */
public final class RedisCluster implements AutoCloseable {

    /** Nodes started: three masters and three replicas. */
    public static final int NODES = 6;
    private static final long READY_TIMEOUT_MS = 60_000;

    private final String server;
    private final String cli;
    private final long nodeTimeoutMillis;
    private final Path dir;
    private final int[] ports = new int[NODES];
    private final Process[] processes = new Process[NODES];
    private final Thread hook = new Thread(this::stopAll, "redis-cluster-cleanup");
    private boolean closed;

    private RedisCluster(String server, String cli, long nodeTimeoutMillis) throws IOException {
        this.server = server;
        this.cli = cli;
        this.nodeTimeoutMillis = nodeTimeoutMillis;
        this.dir = Files.createTempDirectory("sluice-redis-cluster");
    }

    /**
     * Starts six nodes and creates the cluster; waits until every node reports the cluster ok and
     * every replica is in sync with its master.
     *
     * @param nodeTimeoutMillis the cluster's {@code cluster-node-timeout}: how long a master may
     *     be silent before the others consider it failed and its replica takes over
     * @return the running cluster
     * @throws IOException if a node does not start or the cluster does not form in time
     * @throws IllegalStateException if redis-server or redis-cli is not installed and {@code CI}
     *     is {@code true}; without {@code CI} the calling test is skipped instead
     */
    public static RedisCluster start(long nodeTimeoutMillis) throws IOException, InterruptedException {
        String server = RedisServer.find();
        String cli = find("redis-cli");
        if (server == null || cli == null) {
            RedisServerExtension.missingServer(System.getenv("CI"));
        }
        RedisCluster c = new RedisCluster(server, cli, nodeTimeoutMillis);
        Runtime.getRuntime().addShutdownHook(c.hook);
        try {
            c.create();
            return c;
        } catch (IOException | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void create() throws IOException, InterruptedException {
        for (int i = 0; i < NODES; i++) {
            int port;
            do {
                port = freePortPair();
            } while (taken(port, i));
            ports[i] = port;
            launch(i);
        }
        for (int i = 0; i < NODES; i++) {
            awaitPing(i);
        }
        List<String> args = new ArrayList<>(List.of(cli, "--cluster", "create"));
        for (int port : ports) {
            args.add("127.0.0.1:" + port);
        }
        args.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Process create = new ProcessBuilder(args).redirectErrorStream(true)
                .redirectOutput(dir.resolve("create.log").toFile()).start();
        if (!create.waitFor(READY_TIMEOUT_MS, TimeUnit.MILLISECONDS) || create.exitValue() != 0) {
            create.destroyForcibly();
            throw new IOException("redis-cli --cluster create failed: "
                    + Files.readString(dir.resolve("create.log")));
        }
        awaitReady();
    }

    private void launch(int i) throws IOException {
        Path nodeDir = dir.resolve(Integer.toString(ports[i]));
        Files.createDirectories(nodeDir);
        processes[i] = new ProcessBuilder(List.of(server, "--port", Integer.toString(ports[i]),
                "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                "--cluster-config-file", nodeDir.resolve("nodes.conf").toString(),
                "--cluster-node-timeout", Long.toString(nodeTimeoutMillis),
                "--save", "", "--appendonly", "no", "--dir", nodeDir.toString(), "--daemonize", "no"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(nodeDir.resolve("redis.log").toFile()))
                .start();
    }

    private void awaitPing(int i) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                if ("PONG".equals(Resp.call(ports[i], "PING"))) {
                    return;
                }
            } catch (IOException notYet) {
                if (!processes[i].isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("redis-server did not start on port " + ports[i], notYet);
                }
            }
            Thread.sleep(10); // polling a child process's start, not timing logic
        }
    }

    /**
     * Waits until every live node says {@code cluster_state:ok}, knows the others, and every live
     * replica's link to its master is up: the cluster then routes every slot and a failover is
     * possible.
     *
     * @throws IOException if that does not happen within a minute
     */
    public void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
        String last = "";
        while (System.nanoTime() < deadline) {
            last = readiness();
            if (last.isEmpty()) {
                return;
            }
            Thread.sleep(50); // polling the cluster's gossip, not timing logic
        }
        throw new IOException("the cluster did not become ready: " + last);
    }

    /** @return what is not ready yet, or "" */
    private String readiness() {
        int masters = 0;
        for (int i = 0; i < NODES; i++) {
            if (processes[i] == null || !processes[i].isAlive()) {
                continue;
            }
            try {
                String info = (String) Resp.call(ports[i], "CLUSTER", "INFO");
                if (!info.contains("cluster_state:ok")) {
                    return "node " + ports[i] + " is not ok";
                }
                String repl = (String) Resp.call(ports[i], "INFO", "replication");
                if (repl.contains("role:master")) {
                    masters++;
                } else if (!repl.contains("master_link_status:up")) {
                    return "replica " + ports[i] + " is not in sync";
                }
            } catch (IOException e) {
                return "node " + ports[i] + ": " + e.getMessage();
            }
        }
        return masters == 3 ? "" : masters + " masters";
    }

    /** @return {@code redis-cluster://127.0.0.1:<port>,...} naming every node as a seed */
    public String uri() {
        StringBuilder sb = new StringBuilder("redis-cluster://");
        for (int i = 0; i < NODES; i++) {
            sb.append(i == 0 ? "" : ",").append("127.0.0.1:").append(ports[i]);
        }
        return sb.toString();
    }

    /** @return {@code redis://127.0.0.1:<port>} of each node */
    public List<String> nodeUris() {
        List<String> uris = new ArrayList<>();
        for (int port : ports) {
            uris.add("redis://127.0.0.1:" + port);
        }
        return uris;
    }

    /** @return the ports of the nodes that are alive and masters now */
    public List<Integer> masters() {
        List<Integer> masters = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            if (processes[i] != null && processes[i].isAlive()) {
                try {
                    if ("master".equals(((List<?>) Resp.call(ports[i], "ROLE")).get(0))) {
                        masters.add(ports[i]);
                    }
                } catch (IOException ignored) {
                    // A node that does not answer is no master to talk to.
                }
            }
        }
        return masters;
    }

    /**
     * @param key a Redis key
     * @return the port of the live master that serves the key's slot, by {@code CLUSTER SLOTS}
     *     of any live node
     * @throws IllegalStateException if no live node knows
     */
    @SuppressWarnings("unchecked")
    public int masterOf(String key) {
        for (int i = 0; i < NODES; i++) {
            if (processes[i] == null || !processes[i].isAlive()) {
                continue;
            }
            try {
                long slot = (Long) Resp.call(ports[i], "CLUSTER", "KEYSLOT", key);
                for (Object range : (List<Object>) Resp.call(ports[i], "CLUSTER", "SLOTS")) {
                    List<Object> r = (List<Object>) range;
                    if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
                        return ((Long) ((List<Object>) r.get(2)).get(1)).intValue();
                    }
                }
            } catch (IOException ignored) {
                // Ask another node.
            }
        }
        throw new IllegalStateException("no node knows the master of " + key);
    }

    /**
     * Sends one command to a node.
     *
     * @param port the node's port
     * @param args the command
     * @return the reply
     */
    public Object call(int port, String... args) {
        try {
            return Resp.call(port, args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param command e.g. {@code evalsha}
     * @return the number of calls of the command on every live node since the last
     *     {@link #resetStats()}
     */
    public long calls(String command) {
        long sum = 0;
        for (int i = 0; i < NODES; i++) {
            if (processes[i] != null && processes[i].isAlive()) {
                sum += calls(ports[i], command);
            }
        }
        return sum;
    }

    /**
     * @param port a node
     * @param command e.g. {@code evalsha}
     * @return the number of calls of the command on that node
     */
    public long calls(int port, String command) {
        String info = (String) call(port, "INFO", "commandstats");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    if (field.startsWith("calls=")) {
                        return Long.parseLong(field.substring(6));
                    }
                }
            }
        }
        return 0;
    }

    /**
     * @return the calls of the Sluice script or function on every live node since the last
     *     {@link #resetStats()}, however they were made: {@code FCALL}, {@code EVALSHA}, {@code EVAL}
     */
    public long scriptCalls() {
        return calls("fcall") + calls("evalsha") + calls("eval");
    }

    /**
     * @param port a node
     * @return the calls of the Sluice script or function on that node, however they were made
     */
    public long scriptCalls(int port) {
        return calls(port, "fcall") + calls(port, "evalsha") + calls(port, "eval");
    }

    /** Resets the command statistics of every live node. */
    public void resetStats() {
        for (int i = 0; i < NODES; i++) {
            if (processes[i] != null && processes[i].isAlive()) {
                call(ports[i], "CONFIG", "RESETSTAT");
            }
        }
    }

    /**
     * Waits until every replica of a master has acknowledged all its writes so far (replication
     * is asynchronous: a failover loses what the replica had not received).
     *
     * @param port the master's port
     * @throws IOException if that does not happen within 10 s
     */
    public void awaitReplicated(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String info = "";
        while (System.nanoTime() < deadline) {
            info = (String) Resp.call(port, "INFO", "replication");
            String offset = null;
            List<String> replicas = new ArrayList<>();
            for (String line : info.split("\r\n")) {
                if (line.startsWith("master_repl_offset:")) {
                    offset = line.substring(line.indexOf(':') + 1);
                } else if (line.matches("slave\\d+:.*")) {
                    replicas.add(line);
                }
            }
            String expected = "offset=" + offset + ",";
            if (offset != null && !replicas.isEmpty()
                    && replicas.stream().allMatch(r -> r.contains(expected))) {
                return;
            }
            Thread.sleep(20); // polling replication, not timing logic
        }
        throw new IOException("the replicas of " + port + " did not catch up: " + info);
    }

    /** Deletes every key on every live master (replicas follow). */
    public void flush() {
        for (int port : masters()) {
            call(port, "FLUSHALL");
        }
    }

    /**
     * Kills a node (SIGKILL), as a crash would.
     *
     * @param port the node's port
     */
    public synchronized void kill(int port) throws InterruptedException {
        int i = index(port);
        processes[i].destroyForcibly();
        processes[i].waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * Restarts a killed node on its port with its cluster configuration: it rejoins the cluster,
     * as a replica if another node took over its slots.
     *
     * @param port the node's port
     */
    public synchronized void restart(int port) throws IOException, InterruptedException {
        int i = index(port);
        if (processes[i].isAlive()) {
            return;
        }
        launch(i);
        awaitPing(i);
    }

    private int index(int port) {
        for (int i = 0; i < NODES; i++) {
            if (ports[i] == port) {
                return i;
            }
        }
        throw new IllegalArgumentException("no node on port " + port);
    }

    /** Stops every node and deletes their files. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or about to: it stops the nodes too.
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A temporary directory left behind is harmless.
        }
    }

    private void stopAll() {
        for (Process p : processes) {
            if (p != null) {
                p.destroyForcibly();
            }
        }
        for (Process p : processes) {
            if (p != null) {
                try {
                    p.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private boolean taken(int port, int upTo) {
        for (int j = 0; j < upTo; j++) {
            if (Math.abs(ports[j] - port) == 0 || Math.abs(ports[j] - port) == 10_000) {
                return true;
            }
        }
        return false;
    }

    /** A free port whose cluster bus port (+ 10000) is free too. */
    private static int freePortPair() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            if (port + 10_000 > 65_535) {
                continue;
            }
            try (ServerSocket bus = new ServerSocket(port + 10_000, 1, InetAddress.getLoopbackAddress())) {
                // Bound, hence free: closed at once, for the node to take.
                return bus.getLocalPort() - 10_000;
            } catch (IOException taken) {
                // Try another.
            }
        }
        throw new IOException("no free pair of ports (port and port + 10000)");
    }

    private static String find(String name) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                File f = new File(d, name);
                if (f.canExecute()) {
                    return f.getPath();
                }
            }
        }
        File usual = new File("/usr/bin/" + name);
        return usual.canExecute() ? usual.getPath() : null;
    }

    @Override
    public String toString() {
        return "RedisCluster" + java.util.Arrays.toString(ports) + " in " + dir;
    }
}
