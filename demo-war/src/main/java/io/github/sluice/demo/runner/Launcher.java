package io.github.sluice.demo.runner;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The runner jar's {@code Main-Class}: puts the jars of {@code runner-lib/} (Jetty, Servlet API,
 * SLF4J, copied there by the build) on a class path together with this jar, and runs
 * {@link DemoRunner} on it. This class refers to nothing outside the JDK, so that
 * {@code java -jar sluice-demo-runner.jar} needs no {@code -cp} and no manifest class path that
 * would have to list every jar by name.
 */
public final class Launcher {

    /** The directory next to the runner jar that holds its libraries. */
    static final String LIB = "runner-lib";

    private Launcher() {
    }

    /**
     * Runs {@link DemoRunner#main} with {@code runner-lib/*.jar} on the class path.
     *
     * @param args passed on
     * @throws Throwable what the demo's main throws
     */
    public static void main(String[] args) throws Throwable {
        Path self = Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path lib = self.resolveSibling(LIB);
        List<URL> urls = new ArrayList<>();
        urls.add(url(self));
        if (Files.isDirectory(lib)) {
            try (Stream<Path> jars = Files.list(lib)) {
                for (Path jar : (Iterable<Path>) jars.filter(p -> p.toString().endsWith(".jar")).sorted()::iterator) {
                    urls.add(url(jar));
                }
            }
        }
        if (urls.size() == 1) {
            System.err.println("sluice-demo: no libraries in " + lib + "; build the demo with "
                    + "'mvn -q -pl demo-war -am package -DskipTests'");
            System.exit(2);
        }
        // The platform loader as parent: DemoRunner and Jetty must come from the same loader.
        ClassLoader loader = new URLClassLoader("sluice-demo", urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        Method main = Class.forName(DemoRunner.class.getName(), true, loader).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static URL url(Path p) throws MalformedURLException {
        return p.toUri().toURL();
    }
}
