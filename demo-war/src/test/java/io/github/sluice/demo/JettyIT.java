package io.github.sluice.demo;

import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The contract in embedded Jetty 12 (ee10), started exactly as the README's run command starts
 * it: the runner jar's {@code DemoServer} on the class path of {@code target/runner-lib}, in a
 * class loader of its own (the tests' class path holds no Jetty).
 */
class JettyIT extends DemoContract {

    private URLClassLoader loader;
    private AutoCloseable server;

    @Override
    URI deploy(Path war) throws Exception {
        Path target = war.toAbsolutePath().getParent();
        List<URL> urls = new ArrayList<>();
        urls.add(target.resolve("sluice-demo-runner.jar").toUri().toURL());
        try (Stream<Path> jars = Files.list(target.resolve("runner-lib"))) {
            for (Path jar : (Iterable<Path>) jars.sorted()::iterator) {
                urls.add(jar.toUri().toURL());
            }
        }
        loader = new URLClassLoader("jetty-it", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        Class<?> type = loader.loadClass("io.github.sluice.demo.runner.DemoServer");
        Method start = type.getMethod("start", Path.class, String.class, int.class);
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            server = (AutoCloseable) start.invoke(null, war, "127.0.0.1", 0);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
        int port = (int) type.getMethod("port").invoke(server);
        return URI.create("http://127.0.0.1:" + port + "/");
    }

    @Override
    void undeploy() throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            if (loader != null) {
                loader.close();
            }
        }
    }
}
