package io.github.sluice.bench.http;

import jakarta.servlet.Filter;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.filters.RateLimitFilter;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/** Embedded Tomcat serving {@link HelloServlet} at {@code /hello}, with one limiter or none. */
final class TomcatServer {

    private TomcatServer() {
    }

    /**
     * @param limiter {@code none}, {@code sluice} or {@code ratelimit} (Tomcat's RateLimitFilter)
     * @param port the loopback port
     * @return the started server
     * @throws IOException if the base directory cannot be created
     * @throws LifecycleException if Tomcat cannot start
     */
    static Tomcat start(String limiter, int port) throws IOException, LifecycleException {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("sluice-bench-tomcat").toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.getConnector().setPort(port);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", null);
        Tomcat.addServlet(context, "hello", new HelloServlet()).addMapping("/hello");
        switch (limiter) {
            case "none" -> { }
            case "sluice" -> addFilter(context, "sluice", Setups.sluiceFilter(), Map.of());
            case "ratelimit" -> addFilter(context, "ratelimit", new RateLimitFilter(),
                    // Per-IP fixed window, 60 s, a limit loopback load never reaches.
                    Map.of("bucketDuration", "60", "bucketRequests", Integer.toString(Setups.HUGE)));
            default -> throw new IllegalArgumentException(
                    "tomcat limiter must be none, sluice or ratelimit but was " + limiter);
        }
        tomcat.start();
        return tomcat;
    }

    private static void addFilter(Context context, String name, Filter filter, Map<String, String> params) {
        FilterDef def = new FilterDef();
        def.setFilterName(name);
        def.setFilter(filter);
        params.forEach(def::addInitParameter);
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName(name);
        map.addURLPattern("/*");
        context.addFilterMap(map);
    }
}
