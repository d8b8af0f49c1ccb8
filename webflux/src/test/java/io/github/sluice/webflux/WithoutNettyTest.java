package io.github.sluice.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

/**
 * Reactor Netty is an optional dependency: on Jetty, Tomcat or Undertow the application has no
 * Netty, and the adapter must load and write its fields through Spring's headers. The adapter's
 * classes here run in a class loader that has this module's class path without any Netty jar.
 */
class WithoutNettyTest {

    @Test
    void withoutNettyOnTheClassPath_theViewLoads_andWritesThroughSpringsHeaders() throws Exception {
        try (URLClassLoader withoutNetty = new URLClassLoader(classPathWithoutNetty(), ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName("io.netty.util.AsciiString", false, withoutNetty));

            Method writeAndRead = Class.forName(WithoutNettyTest.class.getName(), true, withoutNetty)
                    .getDeclaredMethod("writeAndRead");
            writeAndRead.setAccessible(true); // a class of the same name, in another loader: another package at run time
            Object result = writeAndRead.invoke(null);

            assertEquals("netty=false|\"per-ip\";r=4;t=10|\"per-ip\";q=5;w=10", result);
        }
    }

    /** Runs inside the loader without Netty: the view as the sink of a response with Spring's own headers. */
    static String writeAndRead() {
        HttpHeaders headers = new HttpHeaders();
        ExchangeRequestView view = new ExchangeRequestView(ExchangeRequestViewTest.exchange(headers));
        view.header("RateLimit-Policy", "\"per-ip\";q=5;w=10");
        view.header("RateLimit", "\"per-ip\";r=4;t=10");
        return "netty=" + ExchangeRequestView.NETTY + "|" + headers.getFirst("RateLimit") + "|"
                + view.existing("RateLimit-Policy");
    }

    private static URL[] classPathWithoutNetty() throws MalformedURLException {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isEmpty() && !new File(entry).getName().contains("netty")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        assertTrue(urls.size() > 3, "the test class path: " + path);
        return urls.toArray(URL[]::new);
    }
}
