package io.github.sluice.jaxrs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import javax.servlet.ServletRegistration;
import javax.ws.rs.core.Application;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/**
 * Jersey 2 as a servlet in an embedded Jetty 10 (or Tomcat 9) on an ephemeral port, and a real
 * HTTP client: the javax counterpart of the jaxrs module's Jersey 3.1 server, with the same
 * methods, so that its tests run unchanged. One per test class (or per test when the deployment
 * itself is under test).
 */
final class JerseyServer implements AutoCloseable {

    private final AutoCloseable server;
    private final HttpClient client;
    private final URI base;

    private JerseyServer(AutoCloseable server, URI base) {
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
     * init-param {@code javax.ws.rs.Application}, and the other init-params become the
     * application's configuration properties.
     */
    static JerseyServer start(Class<? extends Application> app, Map<String, String> initParams) {
        Map<String, String> params = new HashMap<>(initParams);
        params.put("javax.ws.rs.Application", app.getName());
        return start(new ServletHolder(ServletContainer.class), params);
    }

    private static JerseyServer start(ServletHolder holder, Map<String, String> initParams) {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
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
        return new JerseyServer(server::stop, URI.create("http://127.0.0.1:" + connector.getLocalPort()));
    }

    /** Deploys {@code app} at the root of an embedded Tomcat 9, whose path normalisation differs from Jetty's. */
    static JerseyServer startOnTomcat(ResourceConfig app) {
        Tomcat tomcat = new Tomcat();
        try {
            Path work = Files.createDirectories(Path.of("target", "tomcat").toAbsolutePath());
            tomcat.setBaseDir(Files.createTempDirectory(work, "base").toString());
            Connector connector = new Connector();
            connector.setPort(0);
            connector.setProperty("address", "127.0.0.1");
            tomcat.setConnector(connector);
            Context context = tomcat.addContext("", null);
            context.addServletContainerInitializer((classes, servletContext) -> {
                ServletRegistration.Dynamic servlet = servletContext.addServlet("jersey", new ServletContainer(app));
                servlet.setAsyncSupported(true);
                servlet.setLoadOnStartup(0);
                servlet.addMapping("/*");
            }, null);
            tomcat.start();
            if (!context.getState().isAvailable()) {
                throw new IllegalStateException("the context failed to start: " + context.getState());
            }
        } catch (IOException | LifecycleException e) {
            throw new IllegalStateException("Tomcat did not start", e);
        }
        return new JerseyServer(() -> {
            tomcat.stop();
            tomcat.destroy();
            try (Stream<Path> files = Files.walk(tomcat.getServer().getCatalinaBase().toPath())) {
                for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(f);
                }
            }
        }, URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort()));
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

    /**
     * Sends a request line exactly as given, on a connection of its own, so that targets an HTTP
     * client would normalise or refuse ({@code //}, {@code ..}, a backslash) reach the server raw.
     *
     * @param headers name, value, name, value...
     * @return the response's status code
     */
    int raw(String method, String target, String... headers) {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: ")
                .append(base.getHost()).append(':').append(base.getPort())
                .append("\r\nContent-Length: 0\r\nConnection: close\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        head.append("\r\n");
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            if (!response.startsWith("HTTP/1.1 ")) {
                throw new IllegalStateException(method + " " + target + " got no status line: '" + response + "'");
            }
            return Integer.parseInt(response.substring(9, 12));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + target, e);
        }
    }

    /**
     * Sends {@code request} (request line, headers, an empty line and the body, exactly as given,
     * {@code Host} added) on a connection of its own, written whole before the response is read,
     * so that a server answering before it reads the body cannot race the client's writing.
     *
     * @return the whole response, head and body
     */
    String rawExchange(String requestLine, String headersAndBody) {
        String text = requestLine + "\r\nHost: " + base.getHost() + ':' + base.getPort() + "\r\nConnection: close\r\n"
                + headersAndBody;
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(requestLine, e);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (Exception e) {
            throw new IllegalStateException("the server did not stop", e);
        }
    }
}
