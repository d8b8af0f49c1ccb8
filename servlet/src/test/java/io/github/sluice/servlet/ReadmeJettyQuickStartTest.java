package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/**
 * The README's "embedded Jetty" quick start: {@link #start(int)} is the README's code, verbatim
 * ({@link ReadmeSnippetsTest} checks that it stays so).
 */
class ReadmeJettyQuickStartTest {

    // README: embedded Jetty (begin)
    static Server start(int port) throws Exception {
        Enforcer enforcer = Enforcer.builder()
                .policies("per-ip = token-bucket 100/1m key=ip match=/api/*")
                .build();

        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        FilterHolder sluice = new FilterHolder(new SluiceFilter(enforcer));
        sluice.setAsyncSupported(true);
        context.addFilter(sluice, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
        context.addServlet(new ServletHolder(new HelloServlet()), "/api/*");

        Server server = new Server(port);
        server.setHandler(context);
        server.start();
        return server;
    }
    // README: embedded Jetty (end)

    @Test
    void readmeJettyQuickStart_limitsAndAnnotatesTheApi() throws Exception {
        // Given the README's server
        Server server = start(0);
        try {
            URI api = URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort()
                    + "/api/hello");

            // When a client calls the API
            HttpResponse<String> ok = Http.get(api);

            // Then it is answered, with the policy announced
            assertEquals(200, ok.statusCode());
            assertEquals("hello", ok.body());
            assertEquals("\"per-ip\";q=100;w=60", ok.headers().firstValue("RateLimit-Policy").orElseThrow());
            assertTrue(ok.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-ip\";r=99;"));
        } finally {
            server.stop();
        }
    }

    /** The application of the quick start. */
    static final class HelloServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
            res.getWriter().print("hello");
        }
    }
}
