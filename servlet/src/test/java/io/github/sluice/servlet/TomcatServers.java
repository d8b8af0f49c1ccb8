package io.github.sluice.servlet;

import jakarta.servlet.ServletContext;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.scan.StandardJarScanner;

/** Embedded Tomcat 10.1 on a random port. */
final class TomcatServers {

    private TomcatServers() {
    }

    static RunningServer start(Deployment d) throws Exception {
        Tomcat tomcat = newTomcat();
        Context context = tomcat.addContext("", null);
        FilterDef def = new FilterDef();
        def.setFilterName("sluice");
        if (d.filter() != null) {
            def.setFilter(d.filter());
        }
        def.setFilterClass(SluiceFilter.class.getName());
        d.initParams().forEach(def::addInitParameter);
        def.setAsyncSupported(Boolean.toString(d.async()));
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("sluice");
        map.addURLPattern("/*");
        map.setDispatcher("REQUEST");
        map.setDispatcher("ASYNC");
        context.addFilterMap(map);
        Wrapper servlet = Tomcat.addServlet(context, "app", d.servlet());
        servlet.setAsyncSupported(d.async());
        context.addServletMappingDecoded("/api/*", "app");
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
        tomcat.setBaseDir(Files.createTempDirectory("sluice-tomcat").toString());
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
            public void close() throws Exception {
                tomcat.stop();
                tomcat.destroy();
            }
        };
    }
}
