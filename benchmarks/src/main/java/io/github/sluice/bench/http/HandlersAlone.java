package io.github.sluice.bench.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.DoSHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's {@code QoSHandler} and {@code DoSHandler} alone, over a minimal in-process request, as
 * {@link FilterCpu} runs the servlet filters alone: the limiter's own work, without the rest of the
 * container, so that it can be compared with Sluice's own work at a resolution the whole server
 * does not give. Each handler is started inside a {@link Server} (no connector), configured as in
 * {@link JettyServer}, and wraps a handler that does nothing. Per request, as the container does:
 * the handler handles the request, then the request's stream completes, which runs the completion
 * listeners a handler registered (the {@code QoSHandler} gives its permit back there).
 *
 * <p>The minimal request answers what these handlers ask of it on the allowed path: the remote
 * socket address ({@code 127.0.0.1}: the {@code DoSHandler} formats it into its client key itself,
 * part of its own work, where the servlet filters' minimal request hands them the address as a
 * string), attributes (none) and the stream wrappers. Any other call is counted
 * ({@link #unexpected()}); the report prints the count, 0 when the comparison is fair.
 */
final class HandlersAlone implements AutoCloseable {

    /** {@code 127.0.0.1} without a host name, as the address of an accepted connection is. */
    private static final InetAddress LOOPBACK = loopback();
    private static final AtomicLong UNEXPECTED = new AtomicLong();
    private static final List<String> UNEXPECTED_NAMES = new ArrayList<>();

    private final Server server = new Server();
    private final Handler nothing = new Nothing();
    private final QoSHandler qos;
    private final DoSHandler dos;
    private final MinimalRequest request = new MinimalRequest();
    private final Response response = rest(Response.class);

    HandlersAlone() throws Exception {
        qos = new QoSHandler(new Nothing());
        qos.setMaxRequestCount(Setups.MAX_IN_FLIGHT);
        dos = new DoSHandler(new DoSHandler.LeakingBucketTrackerFactory(Setups.HUGE));
        dos.setHandler(new Nothing());
        server.setHandler(new Handler.Sequence(qos, dos));
        server.start();
    }

    /** @return {@code n} requests handled by the handler behind the limiters, alone: the reference */
    FilterCpuGroup.Batch nothing() {
        return through(nothing);
    }

    /** @return {@code n} requests through Jetty's {@code QoSHandler} */
    FilterCpuGroup.Batch qos() {
        return through(qos);
    }

    /** @return {@code n} requests through Jetty's {@code DoSHandler} */
    FilterCpuGroup.Batch dos() {
        return through(dos);
    }

    /** @return the calls the minimal objects did not expect, and their names */
    static String unexpected() {
        synchronized (UNEXPECTED_NAMES) {
            return UNEXPECTED.get() + " " + UNEXPECTED_NAMES;
        }
    }

    private FilterCpuGroup.Batch through(Handler handler) {
        return n -> {
            for (int i = 0; i < n; i++) {
                request.recycle();
                if (!handler.handle(request, response, Callback.NOOP)) {
                    throw new IllegalStateException(handler + " did not handle the request: it refused it");
                }
                request.complete();
            }
        };
    }

    @Override
    public void close() {
        LocalJetty.stop(server, "the server of the handlers alone");
    }

    /** The handler behind the limiter: it handles every request and does nothing. */
    private static final class Nothing extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            return true;
        }
    }

    /**
     * A request from {@code 127.0.0.1}: what the container's request answers to these handlers,
     * with the stream wrappers a handler adds, completed and dropped at the end of each request.
     */
    private static final class MinimalRequest extends Request.Wrapper {
        private final ConnectionMetaData connection = new ConnectionMetaData.Wrapper(rest(ConnectionMetaData.class)) {
            private final SocketAddress peer = new InetSocketAddress(LOOPBACK, 50_000);

            @Override
            public SocketAddress getRemoteSocketAddress() {
                return peer;
            }
        };
        private final HttpStream base = new HttpStream.Wrapper(rest(HttpStream.class)) {
            @Override
            public void succeeded() {
            }

            @Override
            public void failed(Throwable x) {
            }
        };
        private HttpStream stream;

        MinimalRequest() {
            super(rest(Request.class));
        }

        void recycle() {
            stream = base;
        }

        /** The response is done: the stream, with every wrapper added, succeeds. */
        void complete() {
            stream.succeeded();
        }

        @Override
        public void addHttpStreamWrapper(Function<HttpStream, HttpStream> wrapper) {
            stream = wrapper.apply(stream);
        }

        @Override
        public ConnectionMetaData getConnectionMetaData() {
            return connection;
        }

        @Override
        public Object getAttribute(String name) {
            return null;
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new IllegalStateException("four bytes make an IPv4 address", e);
        }
    }

    /** A stand-in for {@code type} that counts the calls it gets, see {@link FilterCpuGroup#rest}. */
    private static <T> T rest(Class<T> type) {
        return FilterCpuGroup.rest(type, UNEXPECTED, UNEXPECTED_NAMES);
    }
}
