package io.github.sluice.bench.http;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts one server of the HTTP overhead comparison and keeps it running until killed; prints
 * {@code READY <port>} once it accepts connections. Used by {@code benchmarks/http.sh}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.http.HttpServer jetty|tomcat
 * <limiter> <port>}, limiters: Jetty {@code none|sluice|qos|dos}, Tomcat
 * {@code none|sluice|ratelimit}.
 */
public final class HttpServer {

    private HttpServer() {
    }

    /**
     * @param args server, limiter, port
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: HttpServer jetty|tomcat <limiter> <port>");
        }
        // Quiet containers: per-request logging would dominate a hello-world servlet.
        Logger.getLogger("").setLevel(Level.WARNING);
        int port = Integer.parseInt(args[2]);
        switch (args[0]) {
            case "jetty" -> JettyServer.start(args[1], port);
            case "tomcat" -> TomcatServer.start(args[1], port);
            default -> throw new IllegalArgumentException("server must be jetty or tomcat but was " + args[0]);
        }
        System.out.println("READY " + port);
        System.out.flush();
        Thread.currentThread().join();
    }
}
