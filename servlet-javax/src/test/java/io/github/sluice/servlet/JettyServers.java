package io.github.sluice.servlet;

import java.net.URI;
import java.nio.file.Path;
import java.util.EnumSet;
import javax.servlet.DispatcherType;
import javax.servlet.ServletContext;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.FilterMapping;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;
import org.eclipse.jetty.webapp.WebAppContext;

/**
 * Embedded Jetty 10 (javax.servlet 4.0) on a random port: the javax counterpart of the servlet
 * module's Jetty 12 bootstrap, with the same signatures, so that the contracts run unchanged.
 */
final class JettyServers {

    private JettyServers() {
    }

    static RunningServer start(Deployment d) throws Exception {
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        if (d.front() != null) {
            FilterHolder front = new FilterHolder(d.front());
            front.setAsyncSupported(d.async());
            context.addFilter(front, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
        }
        FilterHolder filter = d.filter() != null ? new FilterHolder(d.filter()) : new FilterHolder(SluiceFilter.class);
        filter.setInitParameters(d.initParams());
        filter.setAsyncSupported(d.async());
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
        ServletHolder servlet = new ServletHolder("app", d.servlet());
        servlet.setAsyncSupported(d.async());
        context.addServlet(servlet, "/api/*");
        if (d.mappedThrice()) {
            FilterHolder wrapping = new FilterHolder(new Deployment.Wrapping());
            wrapping.setAsyncSupported(d.async());
            context.addFilter(wrapping, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
            context.addFilter(filter, "/api/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
            FilterMapping byName = new FilterMapping();
            byName.setFilterName(filter.getName());
            byName.setServletName("app");
            byName.setDispatcherTypes(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
            context.getServletHandler().addFilterMapping(byName);
        }
        return start(context, context.getServletContext(), d.lenientUris());
    }

    static RunningServer startWebapp(Path webapp) throws Exception {
        WebAppContext context = new WebAppContext();
        context.setContextPath("/");
        context.setWar(webapp.toString());
        context.setParentLoaderPriority(true); // the webapp's classes are the test classes
        context.setThrowUnavailableOnStartupException(true);
        return start(context, context.getServletContext(), false);
    }

    private static RunningServer start(Handler handler, ServletContext servletContext, boolean lenientUris)
            throws Exception {
        Server server = new Server();
        HttpConfiguration http = new HttpConfiguration();
        if (lenientUris) {
            // Jetty 9's rules: //, %2e%2e and %2F are routed; getServletPath() may then throw for them.
            http.setUriCompliance(UriCompliance.LEGACY);
        }
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(handler);
        server.start();
        URI base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
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
                    server.stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }
}
