package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.EnumSet;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;

/**
 * The README's "embedded Tomcat" quick start: {@link #start(int)} is the README's code, verbatim
 * ({@link ReadmeSnippetsTest} checks that it stays so).
 */
class ReadmeTomcatQuickStartTest {

    // README: embedded Tomcat (begin)
    static Tomcat start(int port) throws Exception {
        Enforcer enforcer = Enforcer.builder()
                .policies("per-ip = token-bucket 100/1m key=ip match=/api/*")
                .build();

        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("tomcat").toString());
        tomcat.setPort(port);
        tomcat.getConnector(); // creates the default HTTP connector
        Context context = tomcat.addContext("", null);
        context.addServletContainerInitializer((classes, servletContext) -> {
            FilterRegistration.Dynamic sluice = servletContext.addFilter("sluice", new SluiceFilter(enforcer));
            sluice.setAsyncSupported(true);
            sluice.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, "/*");
            servletContext.addServlet("hello", new HelloServlet()).addMapping("/api/*");
        }, null);
        tomcat.start();
        return tomcat;
    }
    // README: embedded Tomcat (end)

    @Test
    void readmeTomcatQuickStart_limitsAndAnnotatesTheApi() throws Exception {
        // Given the README's server
        Tomcat tomcat = start(0);
        try {
            URI api = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/api/hello");

            // When a client calls the API
            HttpResponse<String> ok = Http.get(api);

            // Then it is answered, with the policy announced
            assertEquals(200, ok.statusCode());
            assertEquals("hello", ok.body());
            assertEquals("\"per-ip\";q=100;w=60", ok.headers().firstValue("RateLimit-Policy").orElseThrow());
            assertTrue(ok.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-ip\";r=99;"));
        } finally {
            tomcat.stop();
            tomcat.destroy();
            TomcatServers.deleteTree(tomcat.getServer().getCatalinaBase().toPath());
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
