package io.github.sluice.demo.runner;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 (ee10) serving one WAR at the root context, the way a stock Jetty would
 * deploy it: the WAR's own {@code web.xml}, its own libraries, Servlet API from the server. Used
 * by {@link DemoRunner} and by the integration tests, so that the tests start the demo exactly as
 * the README's command does.
 *
 * <p>Not thread-safe; start it once and close it once.
 */
public final class DemoServer implements AutoCloseable {

    private final Server server;
    private final ServerConnector connector;
    private final String host;

    private DemoServer(Server server, ServerConnector connector, String host) {
        this.server = server;
        this.connector = connector;
        this.host = host;
    }

    /**
     * Deploys the WAR and starts listening.
     *
     * @param war the WAR file (or an exploded webapp directory)
     * @param host the address to bind, e.g. {@code 127.0.0.1}, or {@code 0.0.0.0} for every interface
     * @param port the port, or 0 for a free one (see {@link #port()})
     * @return the started server
     * @throws NullPointerException if {@code war} or {@code host} is null
     * @throws IllegalArgumentException if {@code war} does not exist or the port is out of range
     * @throws Exception if Jetty fails to bind or the webapp fails to start (its listener, filter
     *     or servlet threw): the server is stopped before this is thrown
     */
    public static DemoServer start(Path war, String host, int port) throws Exception {
        return start(war, host, port, Map.of());
    }

    /**
     * Deploys the WAR with context init-params added to those of its {@code web.xml}, as a
     * container's per-deployment configuration would (e.g. {@code sluice.redis.url}), and starts
     * listening.
     *
     * @param war the WAR file (or an exploded webapp directory)
     * @param host the address to bind
     * @param port the port, or 0 for a free one
     * @param initParams context init-params
     * @return the started server
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code war} does not exist or the port is out of range
     * @throws Exception if Jetty fails to bind or the webapp fails to start
     */
    public static DemoServer start(Path war, String host, int port, Map<String, String> initParams) throws Exception {
        Objects.requireNonNull(war, "war");
        Objects.requireNonNull(initParams, "initParams");
        Objects.requireNonNull(host, "host");
        if (!Files.exists(war)) {
            throw new IllegalArgumentException("war must exist but '" + war + "' does not");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be between 0 and 65535 but was " + port);
        }
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(host);
        connector.setPort(port);
        server.addConnector(connector);

        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath("/");
        webapp.setWar(war.toAbsolutePath().toString());
        initParams.forEach(webapp::setInitParameter);
        // A webapp that fails to start must fail the server, not leave it serving 503s.
        webapp.setThrowUnavailableOnStartupException(true);
        server.setHandler(webapp);
        // Requests in flight (e.g. /api/slow) get this long to finish when the server stops.
        server.setStopTimeout(5_000);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
        return new DemoServer(server, connector, host);
    }

    /** @return the port the server listens on (the chosen one when started with port 0) */
    public int port() {
        return connector.getLocalPort();
    }

    /**
     * @return the base URI, {@code http://localhost:<port>/} when bound to a loopback or wildcard
     *     address, otherwise {@code http://<host>:<port>/}
     */
    public URI uri() {
        boolean local = host.startsWith("127.") || host.equals("0.0.0.0") || host.equals("::")
                || host.equals("::1") || host.equals("localhost");
        String h = local ? "localhost" : host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return URI.create("http://" + h + ":" + port() + "/");
    }

    /**
     * Blocks until the server has stopped.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void join() throws InterruptedException {
        server.join();
    }

    /**
     * Stops the server gracefully: the webapp is destroyed (its listeners close the Redis store),
     * requests in flight get a few seconds to finish.
     *
     * @throws IllegalStateException if Jetty fails to stop
     */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping Jetty", e);
        } catch (Exception e) {
            throw new IllegalStateException("Jetty failed to stop: " + e.getMessage(), e);
        }
    }
}
