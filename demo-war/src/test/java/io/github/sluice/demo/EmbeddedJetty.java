package io.github.sluice.demo;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The demo in embedded Jetty 12, started as the README's command starts it: the runner jar's
 * {@code DemoServer} on the class path of {@code target/runner-lib}, in a class loader of its
 * own (the tests' class path holds no Jetty).
 */
final class EmbeddedJetty implements AutoCloseable {

    private final URLClassLoader loader;
    private final AutoCloseable server;
    private final URI uri;

    private EmbeddedJetty(URLClassLoader loader, AutoCloseable server, URI uri) {
        this.loader = loader;
        this.server = server;
        this.uri = uri;
    }

    /** Deploys the WAR on a free loopback port, with extra context init-params. */
    static EmbeddedJetty start(Path war, Map<String, String> initParams) throws Exception {
        Path target = war.toAbsolutePath().getParent();
        List<URL> urls = new ArrayList<>();
        urls.add(target.resolve("sluice-demo-runner.jar").toUri().toURL());
        try (Stream<Path> jars = Files.list(target.resolve("runner-lib"))) {
            for (Path jar : (Iterable<Path>) jars.sorted()::iterator) {
                urls.add(jar.toUri().toURL());
            }
        }
        URLClassLoader loader = new URLClassLoader("jetty-it", urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader());
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            Class<?> type = loader.loadClass("io.github.sluice.demo.runner.DemoServer");
            Method start = type.getMethod("start", Path.class, String.class, int.class, Map.class);
            AutoCloseable server = (AutoCloseable) start.invoke(null, war, "127.0.0.1", 0, initParams);
            int port = (int) type.getMethod("port").invoke(server);
            return new EmbeddedJetty(loader, server, URI.create("http://127.0.0.1:" + port + "/"));
        } catch (Exception | Error e) {
            loader.close();
            throw e;
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** @return the base URI, {@code http://127.0.0.1:<port>/} */
    URI uri() {
        return uri;
    }

    @Override
    public void close() throws IOException {
        try {
            server.close();
        } catch (Exception e) {
            throw new IllegalStateException("the demo failed to stop: " + e, e);
        } finally {
            loader.close();
        }
    }
}
