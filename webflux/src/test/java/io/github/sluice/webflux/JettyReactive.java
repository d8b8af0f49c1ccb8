package io.github.sluice.webflux;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ServletHttpHandlerAdapter;

/** WebFlux on Jetty 12 (ee10) through Spring's reactive servlet bridge: a servlet container running reactively. */
final class JettyReactive implements AutoCloseable {

    private final Server server;

    private JettyReactive(Server server) {
        this.server = server;
    }

    static JettyReactive start(HttpHandler handler) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        ServletHolder holder = new ServletHolder(new ServletHttpHandlerAdapter(handler));
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/");
        server.setHandler(context);
        server.start();
        return new JettyReactive(server);
    }

    int port() {
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
