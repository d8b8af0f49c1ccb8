package io.github.sluice.bench.http;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.catalina.filters.RateLimitFilter;
import org.eclipse.jetty.ee10.servlets.DoSFilter;
import org.eclipse.jetty.ee10.servlets.QoSFilter;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.DoSHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;

/**
 * An embedded Jetty 12 serving {@link HelloServlet} through a {@link LocalConnector} (requests and
 * responses as bytes in memory, one persistent HTTP/1.1 connection, no socket), instrumented to
 * measure what a limiter itself costs inside the real container, with the container's own request
 * and response objects: the CPU clock of the thread that handles the request
 * ({@code ThreadMXBean.getCurrentThreadCpuTime}) is read right before the limiter and right after
 * it, on the way in and on the way out, so that neither the rest of the request (parsing, the
 * servlet, writing the response, waking the client) nor other threads nor the scheduler add to
 * the figure. For a servlet filter the readings are two filters, one in front of it and one
 * behind it in the same chain; for a Jetty handler, two handlers wrapped around it. The same
 * readings with nothing between them ({@code none}, {@code none-handler}) are the reference: a
 * limiter's cost is its figure minus the reference's (for a filter, one more step of the chain
 * included).
 *
 * <p>Servlet filters, between two reading filters: {@code none}; {@code noop} (a filter that only
 * calls the chain: what one more step of the filter chain costs any filter); {@code fields} (a
 * filter that adds the two header fields the Sluice filter adds in the HTTP comparison, with the
 * same values and no decision); {@code sluice}; {@code sluice-nofields} (the same filter with
 * header style {@code none}); the Sluice filter doing the job of each container limiter, with its
 * configuration and no field ({@link Setups#equalWork}): {@code sluice-window} (Tomcat's
 * {@code RateLimitFilter}), {@code sluice-leaky} ({@code DoSHandler}), {@code sluice-concurrency}
 * ({@code QoSHandler}, {@code QoSFilter}); {@code ratelimit} (Tomcat's {@code RateLimitFilter}, a
 * standard servlet filter, here in Jetty, configured as in {@link TomcatServer});
 * {@code ratelimit-fields} (the same with its {@code exposeHeaders} on: it then adds its own
 * {@code RateLimit-Policy} and {@code RateLimit} fields, the work of {@code sluice});
 * {@code qosfilter} and {@code dosfilter} (Jetty's own servlet-layer limiters, {@code QoSFilter}
 * and {@code DoSFilter} of {@code jetty-ee10-servlets}). Jetty handlers, between two reading
 * handlers: {@code none-handler}, {@code noop-handler} (a wrapper that only calls the next
 * handler: one more step of the handler chain), {@code qos} and {@code dos} (Jetty's handlers,
 * configured as in {@link JettyServer}). What the container spends writing the header fields into
 * the response happens later, when the servlet commits it, and is measured apart
 * ({@link HeaderFields}).
 */
final class LocalJetty implements AutoCloseable {

    /** The values the Sluice filter of {@link Setups} writes for a request of the comparison. */
    static final String POLICY = "\"per-ip\";q=1000000000;w=1";
    static final String LIMIT = "\"per-ip\";r=999999999;t=1";

    private static final String REQUEST = "GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n";
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Server server;
    private final LocalConnector.LocalEndPoint endPoint;
    /** CPU nanoseconds between the readings, summed over requests. */
    private final AtomicLong own = new AtomicLong();
    /*
     * The inner readings of the current request, taken and used on the thread that handles it
     * (one connection, one request at a time): plain fields.
     */
    private long innerIn;
    private long innerOut;

    LocalJetty(String limiter) throws Exception {
        server = new Server();
        LocalConnector connector = new LocalConnector(server);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(new ServletHolder(new HelloServlet()), "/hello");
        Handler top = context;
        switch (limiter) {
            case "none", "noop", "fields", "sluice", "sluice-nofields", "sluice-window", "sluice-leaky",
                    "sluice-concurrency", "ratelimit", "ratelimit-fields", "qosfilter", "dosfilter" -> {
                addFilter(context, (req, res, chain) -> {
                    long in = THREADS.getCurrentThreadCpuTime();
                    chain.doFilter(req, res);
                    long out = THREADS.getCurrentThreadCpuTime();
                    own.addAndGet(innerIn - in + out - innerOut);
                });
                switch (limiter) {
                    case "noop" -> addFilter(context, (req, res, chain) -> chain.doFilter(req, res));
                    case "fields" -> addFilter(context, (req, res, chain) -> {
                        HttpServletResponse r = (HttpServletResponse) res;
                        r.addHeader("RateLimit-Policy", POLICY);
                        r.addHeader("RateLimit", LIMIT);
                        chain.doFilter(req, res);
                    });
                    case "sluice" -> addFilter(context, Setups.sluiceFilter());
                    case "sluice-nofields" -> addFilter(context, Setups.sluiceFilterWithoutFields());
                    case "sluice-window" -> addFilter(context, Setups.equalWork("window"));
                    case "sluice-leaky" -> addFilter(context, Setups.equalWork("leaky"));
                    case "sluice-concurrency" -> addFilter(context, Setups.equalWork("concurrency"));
                    case "qosfilter", "dosfilter" -> context.addFilter(jettyFilter(limiter), "/*",
                            EnumSet.of(DispatcherType.REQUEST));
                    case "ratelimit", "ratelimit-fields" -> {
                        FilterHolder holder = new FilterHolder(new RateLimitFilter());
                        holder.setInitParameters(Map.of("bucketDuration", "60", "bucketRequests",
                                Integer.toString(Setups.HUGE), "exposeHeaders",
                                Boolean.toString(limiter.equals("ratelimit-fields"))));
                        context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
                    }
                    default -> { }
                }
                addFilter(context, (req, res, chain) -> {
                    innerIn = THREADS.getCurrentThreadCpuTime();
                    chain.doFilter(req, res);
                    innerOut = THREADS.getCurrentThreadCpuTime();
                });
            }
            case "none-handler", "noop-handler", "qos", "dos" -> {
                Handler inner = new Reading(context, false);
                Handler limited = switch (limiter) {
                    case "qos" -> {
                        QoSHandler qos = new QoSHandler(inner);
                        qos.setMaxRequestCount(Setups.MAX_IN_FLIGHT);
                        yield qos;
                    }
                    case "noop-handler" -> new Handler.Wrapper(inner);
                    case "dos" -> {
                        DoSHandler dos = new DoSHandler(new DoSHandler.LeakingBucketTrackerFactory(Setups.HUGE));
                        dos.setHandler(inner);
                        yield dos;
                    }
                    default -> inner;
                };
                top = new Reading(limited, true);
            }
            default -> throw new IllegalArgumentException("local jetty limiter must be one of " + LocalJetties.LIMITERS
                    + " but was " + limiter);
        }
        server.setHandler(top);
        server.start();
        endPoint = connector.connect();
    }

    /**
     * Jetty's own servlet-layer limiters, which Jetty 12.1 deprecates in favour of its handlers
     * but still ships for servlet applications: {@code QoSFilter} with the concurrency limit of
     * the {@code QoSHandler}, and {@code DoSFilter}, whose rate tracker keeps one timestamp per
     * request of the last second, so that its limit sets the size of an array per client: a
     * million (8 MB) is far above what one connection asks for here.
     */
    @SuppressWarnings("deprecation")
    private static FilterHolder jettyFilter(String limiter) {
        if (limiter.equals("qosfilter")) {
            FilterHolder holder = new FilterHolder(new QoSFilter());
            holder.setInitParameters(Map.of("maxRequests", Integer.toString(Setups.MAX_IN_FLIGHT)));
            return holder;
        }
        FilterHolder holder = new FilterHolder(new DoSFilter());
        holder.setInitParameters(Map.of("maxRequestsPerSec", "1000000"));
        return holder;
    }

    private static void addFilter(ServletContextHandler context, Filter filter) {
        context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
    }

    /** The readings around a handler: the outer one sums, the inner one notes its readings. */
    private final class Reading extends Handler.Wrapper {
        private final boolean outer;

        Reading(Handler next, boolean outer) {
            super(next);
            this.outer = outer;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            long in = THREADS.getCurrentThreadCpuTime();
            if (!outer) {
                innerIn = in;
            }
            boolean handled = super.handle(request, response, callback);
            long out = THREADS.getCurrentThreadCpuTime();
            if (outer) {
                own.addAndGet(innerIn - in + out - innerOut);
            } else {
                innerOut = out;
            }
            return handled;
        }
    }

    /** Sends {@code n} requests, one after the other, each after the previous response. */
    void requests(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            endPoint.addInputAndExecute(REQUEST);
            ByteBuffer response = endPoint.waitForResponse(false, 10, TimeUnit.SECONDS);
            if (response == null || response.remaining() < 12 || response.get(9) != '2') {
                throw new IllegalStateException("no 200 response from the in-process Jetty");
            }
        }
    }

    /** @return the CPU nanoseconds per request between the readings, over {@code n} requests */
    double cpuPerRequest(int n) throws Exception {
        long before = own.get();
        requests(n);
        return (own.get() - before) / (double) n;
    }

    @Override
    public void close() {
        stop(server, "the in-process Jetty");
    }

    /**
     * Stops a server of the benchmark, rethrowing a failure unchecked.
     *
     * @param what the server, for the message
     */
    static void stop(Server server, String what) {
        try {
            server.stop();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException(what + " did not stop", e);
        }
    }
}
