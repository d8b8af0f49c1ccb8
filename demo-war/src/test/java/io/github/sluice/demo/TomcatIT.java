package io.github.sluice.demo;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.servlets.DefaultServlet;
import org.apache.catalina.startup.Tomcat;

/**
 * The contract in embedded Tomcat 10.1, the WAR deployed (and unpacked) as a stock Tomcat deploys
 * it, with the JVM options of a stock {@code catalina.sh} (see the failsafe configuration).
 */
class TomcatIT extends DemoContract {

    private Tomcat tomcat;
    private Path base;

    @Override
    URI deploy(Path war) throws Exception {
        // Under target/, so that a failed run leaves nothing in /tmp and `mvn clean` removes it.
        Files.createDirectories(Path.of("target"));
        base = Files.createTempDirectory(Path.of("target"), "tomcat-it-").toAbsolutePath();
        Files.createDirectories(base.resolve("webapps"));
        tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.getHost().setAppBase(base.resolve("webapps").toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        // A stock Tomcat's conf/web.xml adds a default and a JSP servlet to every webapp; the
        // embedded one has no JSP engine (the demo has no JSP), so only the default servlet.
        tomcat.setAddDefaultWebXmlToWebapp(false);
        Context context = tomcat.addWebapp("", war.toAbsolutePath().toString());
        Tomcat.addDefaultMimeTypeMappings(context);
        context.addServletContainerInitializer((classes, servletContext) ->
                servletContext.addServlet("default", DefaultServlet.class).addMapping("/"), null);
        tomcat.start();
        if (context.getState() != LifecycleState.STARTED) {
            throw new IllegalStateException("the demo webapp failed to start in Tomcat: " + context.getState());
        }
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    }

    @Override
    void undeploy() throws Exception {
        try {
            if (tomcat != null) {
                tomcat.stop();
                tomcat.destroy();
            }
        } finally {
            if (base != null) {
                delete(base);
            }
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
