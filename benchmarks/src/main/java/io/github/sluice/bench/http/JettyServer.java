package io.github.sluice.bench.http;

import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.DoSHandler;
import org.eclipse.jetty.server.handler.QoSHandler;

/** Embedded Jetty 12 serving {@link HelloServlet} at {@code /hello}, with one limiter or none. */
final class JettyServer {

    private JettyServer() {
    }

    /**
     * @param limiter {@code none}, {@code sluice}, {@code qos} (QoSHandler) or {@code dos}
     *     (DoSHandler)
     * @param port the loopback port
     * @return the started server
     * @throws Exception if Jetty cannot start
     */
    static Server start(String limiter, int port) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(new ServletHolder(new HelloServlet()), "/hello");
        Handler top = limit(context, limiter);
        server.setHandler(top);
        server.start();
        return server;
    }

    /**
     * Puts a limiter in front of the servlets of {@code context}.
     *
     * @param context the servlet context
     * @param limiter {@code none}, {@code sluice}, {@code qos} or {@code dos}
     * @return the handler to install: {@code context} itself, or the limiter handler around it
     */
    static Handler limit(ServletContextHandler context, String limiter) {
        Handler top = context;
        switch (limiter) {
            case "none" -> { }
            case "sluice" -> context.addFilter(new FilterHolder(Setups.sluiceFilter()), "/*",
                    EnumSet.of(DispatcherType.REQUEST));
            case "qos" -> {
                // A concurrency limit (Jetty 12 has no per-client rate limit in QoSHandler).
                QoSHandler qos = new QoSHandler(context);
                qos.setMaxRequestCount(100_000);
                top = qos;
            }
            case "dos" -> {
                // Per-remote-address leaky bucket, as the Sluice policy keys by IP.
                DoSHandler dos = new DoSHandler(new DoSHandler.LeakingBucketTrackerFactory(Setups.HUGE));
                dos.setHandler(context);
                top = dos;
            }
            default -> throw new IllegalArgumentException(
                    "jetty limiter must be none, sluice, qos or dos but was " + limiter);
        }
        return top;
    }
}
