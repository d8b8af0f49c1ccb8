package io.github.sluice.redis.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free port of 127.0.0.1 in front of a server, that can make the connections it
 * carries go silent without closing them: what a client sees when the server's host vanishes
 * (a crashed VM, a failover that moved the address, a firewall that drops packets) and no RST
 * or FIN ever arrives. New connections are forwarded normally.
 */
public final class TcpProxy implements AutoCloseable {

    private final int target;
    private final ServerSocket server;
    private final List<Pair> pairs = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile boolean closed;

    /**
     * Listens on a free port and forwards every connection to {@code 127.0.0.1:targetPort}.
     *
     * @param targetPort the server's port
     * @throws IOException if no port could be bound
     */
    public TcpProxy(int targetPort) throws IOException {
        this.target = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "tcp-proxy-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    /** @return a Redis URI that goes through the proxy */
    public String uri() {
        return "redis://127.0.0.1:" + server.getLocalPort();
    }

    /** @return the number of connections accepted so far */
    public int accepted() {
        return accepted.get();
    }

    /**
     * Makes every connection open now go silent in both directions: bytes already sent are
     * neither forwarded nor answered, and the sockets stay open. Later connections are not
     * affected.
     */
    public void silenceExisting() {
        for (Pair p : pairs) {
            p.silent = true;
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                accepted.incrementAndGet();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 1000);
                Pair p = new Pair(client, upstream);
                pairs.add(p);
                pump(p, client, upstream, "up");
                pump(p, upstream, client, "down");
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Pair p, Socket from, Socket to, String direction) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while (!p.silent && (n = in.read(buf)) >= 0) {
                    if (p.silent) {
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
                if (!p.silent) {
                    p.close();
                }
            } catch (IOException e) {
                if (!p.silent) {
                    p.close();
                }
            }
            // A silent pair stays open until the proxy closes: nothing more is forwarded.
        }, "tcp-proxy-" + direction);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
        for (Pair p : pairs) {
            p.close();
        }
    }

    private static final class Pair {
        final Socket a;
        final Socket b;
        volatile boolean silent;

        Pair(Socket a, Socket b) {
            this.a = a;
            this.b = b;
        }

        void close() {
            try {
                a.close();
            } catch (IOException ignored) {
                // Closing anyway.
            }
            try {
                b.close();
            } catch (IOException ignored) {
                // Closing anyway.
            }
        }
    }
}
