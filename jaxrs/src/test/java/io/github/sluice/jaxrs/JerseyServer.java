package io.github.sluice.jaxrs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import jakarta.ws.rs.core.Application;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/**
 * Jersey 3.1 as a servlet in an embedded Jetty 12 on an ephemeral port, and a real HTTP client.
 * One per test class (or per test when the deployment itself is under test).
 */
final class JerseyServer implements AutoCloseable {

    private final Server server;
    private final HttpClient client;
    private final URI base;

    private JerseyServer(Server server, URI base) {
        this.server = server;
        this.base = base;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** Deploys {@code app} at the root. */
    static JerseyServer start(ResourceConfig app) {
        return start(new ServletHolder(new ServletContainer(app)), Map.of());
    }

    /**
     * Deploys the application class as a {@code web.xml} would: Jersey's servlet names it in the
     * init-param {@code jakarta.ws.rs.Application}, and the other init-params become the
     * application's configuration properties.
     */
    static JerseyServer start(Class<? extends Application> app, Map<String, String> initParams) {
        Map<String, String> params = new HashMap<>(initParams);
        params.put("jakarta.ws.rs.Application", app.getName());
        return start(new ServletHolder(ServletContainer.class), params);
    }

    private static JerseyServer start(ServletHolder holder, Map<String, String> initParams) {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        holder.setAsyncSupported(true);
        holder.setInitOrder(0);
        initParams.forEach(holder::setInitParameter);
        context.addServlet(holder, "/*");
        server.setHandler(context);
        try {
            server.start();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not start", e);
        }
        return new JerseyServer(server, URI.create("http://127.0.0.1:" + connector.getLocalPort()));
    }

    int port() {
        return base.getPort();
    }

    HttpClient client() {
        return client;
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10));
    }

    /** A GET with header name/value pairs. */
    HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder b = request(path);
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(b.build());
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not stop", e);
        }
    }
}
