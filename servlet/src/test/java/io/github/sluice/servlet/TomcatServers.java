package io.github.sluice.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;

/** Embedded Tomcat 10.1 on a random port. */
final class TomcatServers {

    private TomcatServers() {
    }

    static RunningServer start(Deployment d) throws Exception {
        Tomcat tomcat = newTomcat();
        Context context = tomcat.addContext("", null);
        context.addServletContainerInitializer((classes, servletContext) -> {
            if (d.front() != null) {
                FilterRegistration.Dynamic front = servletContext.addFilter("front", d.front());
                front.setAsyncSupported(d.async());
                front.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, "/*");
            }
            FilterRegistration.Dynamic filter = d.filter() != null
                    ? servletContext.addFilter("sluice", d.filter())
                    : servletContext.addFilter("sluice", SluiceFilter.class);
            filter.setInitParameters(d.initParams());
            filter.setAsyncSupported(d.async());
            filter.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, "/*");
            ServletRegistration.Dynamic servlet = servletContext.addServlet("app", d.servlet());
            servlet.setAsyncSupported(d.async());
            servlet.addMapping("/api/*");
            if (d.mappedThrice()) {
                FilterRegistration.Dynamic wrapping = servletContext.addFilter("wrapping", new Deployment.Wrapping());
                wrapping.setAsyncSupported(d.async());
                wrapping.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), true, "/*");
                filter.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), true, "/api/*");
                filter.addMappingForServletNames(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), true, "app");
            }
        }, null);
        return start(tomcat, context);
    }

    static RunningServer startWebapp(Path webapp) throws Exception {
        Tomcat tomcat = newTomcat();
        tomcat.setAddDefaultWebXmlToWebapp(false); // no JSP servlet: Jasper is not on the class path
        Context context = tomcat.addWebapp("", webapp.toString());
        // The test class path is the webapp's parent class path; scanning it for fragments is slow.
        ((StandardJarScanner) context.getJarScanner()).setScanClassPath(false);
        return start(tomcat, context);
    }

    private static Tomcat newTomcat() throws Exception {
        Tomcat tomcat = new Tomcat();
        // Under target/, so that whatever Tomcat leaves behind goes with "mvn clean".
        Path work = Files.createDirectories(Path.of("target", "tomcat").toAbsolutePath());
        tomcat.setBaseDir(Files.createTempDirectory(work, "base").toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        return tomcat;
    }

    private static RunningServer start(Tomcat tomcat, Context context) throws Exception {
        tomcat.start();
        if (!context.getState().isAvailable()) {
            tomcat.stop();
            tomcat.destroy();
            throw new IllegalStateException("the context failed to start: " + context.getState());
        }
        URI base = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort());
        ServletContext servletContext = context.getServletContext();
        return new RunningServer() {
            @Override
            public URI base() {
                return base;
            }

            @Override
            public ServletContext context() {
                return servletContext;
            }

            @Override
            public void close() {
                try {
                    tomcat.stop();
                    tomcat.destroy();
                    deleteTree(tomcat.getServer().getCatalinaBase().toPath());
                } catch (LifecycleException | IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    /** Deletes a Tomcat base directory. */
    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
