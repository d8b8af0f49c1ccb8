package io.github.sluice.redis.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} started by the tests on a free port, without persistence, that a
 * test can kill and restart on the same port.
 */
public final class RedisServer implements AutoCloseable {

    private static final long START_TIMEOUT_MS = 10_000;

    private final String executable;
    private final int port;
    private final Path dir;
    private Process process;
    private boolean suspended;

    RedisServer(String executable) throws IOException {
        this.executable = executable;
        this.port = freePort();
        this.dir = Files.createTempDirectory("sluice-redis-test");
    }

    /** @return the path of redis-server, or {@code null} if it is not installed */
    static String find() {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                File f = new File(d, "redis-server");
                if (f.canExecute()) {
                    return f.getPath();
                }
            }
        }
        File usual = new File("/usr/bin/redis-server");
        return usual.canExecute() ? usual.getPath() : null;
    }

    /** Starts the server (or resumes a suspended one) and waits until it answers PING. */
    public synchronized void start() throws IOException {
        if (process != null && process.isAlive()) {
            resume();
            return;
        }
        process = new ProcessBuilder(List.of(executable, "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", dir.toString(), "--daemonize", "no"))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (true) {
            try {
                if ("PONG".equals(Resp.call(port, "PING"))) {
                    return;
                }
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("redis-server did not start on port " + port + ": "
                            + Files.readString(dir.resolve("redis.log")), notYet);
                }
            }
            pause();
        }
    }

    /** Kills the server (SIGKILL), as a crash would. */
    public synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            suspended = false;
        }
    }

    /**
     * Stops the server's process (SIGSTOP): its sockets stay open and the kernel still accepts
     * connections and data, but nothing is answered, as with a frozen VM or a stuck host.
     *
     * @throws IOException if the signal could not be sent
     */
    public synchronized void suspend() throws IOException {
        if (process != null && process.isAlive() && !suspended) {
            signal("-STOP");
            suspended = true;
        }
    }

    /**
     * Continues a suspended server (SIGCONT); it then answers everything it received meanwhile.
     *
     * @throws IOException if the signal could not be sent
     */
    public synchronized void resume() throws IOException {
        if (process != null && process.isAlive() && suspended) {
            signal("-CONT");
            suspended = false;
        }
    }

    private void signal(String signal) throws IOException {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IOException("kill " + signal + " " + process.pid() + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while sending " + signal, e);
        }
    }

    /** @return the URI of the server */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** @return the port */
    public int port() {
        return port;
    }

    /**
     * Sends one command (see {@link Resp#call}).
     *
     * @param args the command
     * @return the reply
     */
    public Object call(String... args) {
        try {
            return Resp.call(port, args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param command e.g. {@code evalsha}
     * @return the {@code calls} count of the command in INFO commandstats, 0 if never called
     */
    public long calls(String command) {
        String info = (String) call("INFO", "commandstats");
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
     * @return the calls of the Sluice script or function, however they were made: {@code FCALL},
     *     {@code EVALSHA} and {@code EVAL}
     */
    public long scriptCalls() {
        return calls("fcall") + calls("evalsha") + calls("eval");
    }

    @Override
    public synchronized void close() {
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // A temporary directory left behind is harmless.
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
