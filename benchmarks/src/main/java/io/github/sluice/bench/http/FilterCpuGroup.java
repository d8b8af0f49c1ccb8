package io.github.sluice.bench.http;

import io.github.sluice.servlet.SluiceFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.apache.catalina.filters.RateLimitFilter;

/**
 * One group of {@link FilterCpu}'s comparisons, measured in a JVM of its own, as JMH forks a JVM
 * per benchmark: several Sluice configurations in one JVM would share the enforcer's call sites
 * (one algorithm class each), which the JIT compiler then cannot inline as it does in an
 * application with one kind of policy, and the figures would depend on which configuration the
 * compiler saw first. A group holds one Sluice configuration (or two that differ only in their
 * header style), the container limiters it is compared with, and the references: within a group,
 * every candidate is measured in every round, in an order that rotates, so that the comparisons
 * are paired round by round.
 *
 * <p>Two kinds of candidates: alone (the limiter's own code over a minimal in-process request and
 * response, reused from request to request as a container recycles its own; the reference is the
 * same chain, or handler, called without a limiter), and inside an in-process Jetty
 * ({@link LocalJetties}). The {@code headers} group also measures what Jetty spends writing the two
 * header fields ({@link HeaderFields}).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.http.FilterCpuGroup <group>
 * <rounds>}, where the group is one of {@link #GROUPS}; {@link FilterCpu} runs it. It prints one
 * line per candidate: {@code alone|jetty <name>} followed by its CPU nanoseconds per request in
 * each round (tab-separated), then {@code block without|with} and the header block figures, then
 * {@code info} lines.
 */
public final class FilterCpuGroup {

    /** Requests per alone candidate and round. */
    static final int BATCH = 200_000;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static volatile long sink;

    /**
     * The groups: their alone candidates and their configurations inside Jetty (names of
     * {@link LocalJetty}).
     *
     * @param alone the alone candidates, references first
     * @param jetty the in-Jetty configurations, references included
     * @param headerBlock whether the group also measures Jetty writing the two header fields
     */
    record Group(List<String> alone, List<String> jetty, boolean headerBlock) {
    }

    /** Every group, in the order {@link FilterCpu} runs them. */
    static final Map<String, Group> GROUPS = groups();

    private static Map<String, Group> groups() {
        Map<String, Group> g = new LinkedHashMap<>();
        g.put("headers", new Group(List.of("chain only", "sluice", "sluice, no header fields", "tomcat RateLimitFilter"),
                List.of("none", "noop", "fields", "sluice", "sluice-nofields", "ratelimit", "ratelimit-fields",
                        "none-handler", "noop-handler", "qos", "dos"), true));
        g.put("window", new Group(List.of("chain only", "sluice window, no header fields", "tomcat RateLimitFilter"),
                List.of("none", "noop", "sluice-window", "ratelimit"), false));
        g.put("leaky", new Group(List.of("chain only", "handler only", "sluice leaky, no header fields", "jetty DoSHandler"),
                List.of("none", "noop", "sluice-leaky", "dosfilter", "none-handler", "noop-handler", "dos"), false));
        g.put("concurrency", new Group(List.of("chain only", "handler only", "sluice concurrency, no header fields",
                "jetty QoSHandler"), List.of("none", "noop", "sluice-concurrency", "qosfilter", "none-handler",
                "noop-handler", "qos"), false));
        return Collections.unmodifiableMap(g);
    }

    private FilterCpuGroup() {
    }

    /** One candidate: {@code n} requests through its limiter. */
    interface Batch {
        void run(int n) throws Exception;
    }

    /**
     * @param args the group and the number of rounds
     * @throws Exception if a limiter or the in-process Jetty fails
     */
    public static void main(String[] args) throws Exception {
        Logger.getLogger("").setLevel(Level.WARNING);
        if (args.length != 2 || !GROUPS.containsKey(args[0])) {
            throw new IllegalArgumentException("usage: FilterCpuGroup <group> <rounds>, the group one of " + GROUPS.keySet()
                    + ", but the arguments were " + Arrays.toString(args));
        }
        Group group = GROUPS.get(args[0]);
        int rounds = Integer.parseInt(args[1]);

        List<AutoCloseable> open = new ArrayList<>();
        Map<String, Batch> candidates = new LinkedHashMap<>();
        for (String name : group.alone()) {
            candidates.put(name, candidate(name, open));
        }
        Map<String, double[]> alone = run(candidates, rounds);
        System.out.printf(Locale.ROOT, "info alone load %s; calls outside the minimal request/response: %d %s; outside "
                + "the minimal Jetty request: %s%n", FilterCpu.load(), MinimalRequest.UNEXPECTED.get()
                + MinimalResponse.UNEXPECTED.get(), MinimalRequest.UNEXPECTED_NAMES, HandlersAlone.unexpected());
        alone.forEach((name, v) -> System.out.println("alone\t" + name + "\t" + join(v)));

        Map<String, double[]> jetty = LocalJetties.measure(group.jetty(), rounds);
        System.out.printf(Locale.ROOT, "info jetty load %s%n", FilterCpu.load());
        jetty.forEach((name, v) -> System.out.println("jetty\t" + name + "\t" + join(v)));

        if (group.headerBlock()) {
            double[][] h = HeaderFields.measure(rounds);
            System.out.println("block\twithout\t" + join(Arrays.stream(h).mapToDouble(x -> x[0]).toArray()));
            System.out.println("block\twith\t" + join(Arrays.stream(h).mapToDouble(x -> x[1]).toArray()));
            System.out.printf(Locale.ROOT, "info block bytes %.0f %.0f%n", h[0][2], h[0][3]);
        }
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private static String join(double[] v) {
        return Arrays.stream(v).mapToObj(x -> String.format(Locale.ROOT, "%.1f", x)).collect(Collectors.joining("\t"));
    }

    /** The alone candidate {@code name}, whose resources are added to {@code open}. */
    private static Batch candidate(String name, List<AutoCloseable> open) throws Exception {
        MinimalRequest request = new MinimalRequest();
        MinimalResponse response = new MinimalResponse();
        FilterChain chain = (req, res) -> sink++;
        switch (name) {
            case "chain only":
                return n -> {
                    for (int i = 0; i < n; i++) {
                        request.recycle();
                        response.recycle();
                        chain.doFilter(request, response);
                    }
                };
            case "handler only", "jetty QoSHandler", "jetty DoSHandler":
                HandlersAlone handlers = new HandlersAlone();
                open.add(handlers);
                return name.equals("handler only") ? handlers.nothing() : name.equals("jetty QoSHandler") ? handlers.qos()
                        : handlers.dos();
            case "tomcat RateLimitFilter":
                RateLimitFilter tomcat = new RateLimitFilter();
                tomcat.setBucketDuration(60);
                tomcat.setBucketRequests(Setups.HUGE);
                tomcat.init(filterConfig("ratelimit"));
                open.add(tomcat::destroy);
                return through(tomcat, request, response, chain);
            default:
                SluiceFilter sluice = switch (name) {
                    case "sluice" -> Setups.sluiceFilter();
                    case "sluice, no header fields" -> Setups.sluiceFilterWithoutFields();
                    case "sluice window, no header fields" -> Setups.equalWork("window");
                    case "sluice leaky, no header fields" -> Setups.equalWork("leaky");
                    case "sluice concurrency, no header fields" -> Setups.equalWork("concurrency");
                    default -> throw new IllegalArgumentException("unknown alone candidate '" + name + "'");
                };
                open.add(sluice::destroy);
                return through(sluice, request, response, chain);
        }
    }

    private static Batch through(Filter filter, MinimalRequest request, MinimalResponse response, FilterChain chain) {
        return n -> {
            for (int i = 0; i < n; i++) {
                request.recycle();
                response.recycle();
                filter.doFilter(request, response, chain);
            }
        };
    }

    /** Runs every candidate {@code rounds} times after a warm-up, in an order that rotates; CPU ns per request. */
    private static Map<String, double[]> run(Map<String, Batch> candidates, int rounds) throws Exception {
        List<String> names = new ArrayList<>(candidates.keySet());
        for (int w = 0; w < 8; w++) {
            for (String name : names) {
                candidates.get(name).run(BATCH);
            }
        }
        Map<String, double[]> perRequest = new LinkedHashMap<>();
        names.forEach(n -> perRequest.put(n, new double[rounds]));
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < names.size(); k++) {
                String name = names.get((k + r) % names.size());
                long before = THREADS.getCurrentThreadCpuTime();
                candidates.get(name).run(BATCH);
                perRequest.get(name)[r] = (THREADS.getCurrentThreadCpuTime() - before) / (double) BATCH;
            }
        }
        return perRequest;
    }


    private static FilterConfig filterConfig(String name) {
        ServletContext context = (ServletContext) Proxy.newProxyInstance(FilterCpuGroup.class.getClassLoader(),
                new Class<?>[] {ServletContext.class}, (p, m, a) -> switch (m.getName()) {
                    case "getInitParameterNames", "getAttributeNames" -> Collections.emptyEnumeration();
                    case "toString" -> "bench context";
                    default -> null;
                });
        return new FilterConfig() {
            @Override
            public String getFilterName() {
                return name;
            }

            @Override
            public ServletContext getServletContext() {
                return context;
            }

            @Override
            public String getInitParameter(String n) {
                return null;
            }

            @Override
            public Enumeration<String> getInitParameterNames() {
                return Collections.emptyEnumeration();
            }
        };
    }

    /** Counts calls that the minimal objects do not implement (they answer null, false or 0). */
    static <T> T rest(Class<T> type, AtomicLong unexpected, List<String> names) {
        return type.cast(Proxy.newProxyInstance(FilterCpuGroup.class.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
            unexpected.incrementAndGet();
            synchronized (names) {
                if (!names.contains(m.getName())) {
                    names.add(m.getName());
                }
            }
            Class<?> r = m.getReturnType();
            return r == boolean.class ? Boolean.FALSE : r == int.class ? 0 : r == long.class ? 0L : null;
        }));
    }

    /**
     * A GET of {@code /hello} from {@code 127.0.0.1}: what a container's request object answers for
     * it, with an attribute map cleared between requests as a container recycles its request.
     */
    static final class MinimalRequest extends HttpServletRequestWrapper {
        static final AtomicLong UNEXPECTED = new AtomicLong();
        static final List<String> UNEXPECTED_NAMES = new ArrayList<>();
        private static final String PEER = "127.0.0.1";
        private final HashMap<String, Object> attributes = new HashMap<>();

        MinimalRequest() {
            super(rest(HttpServletRequest.class, UNEXPECTED, UNEXPECTED_NAMES));
        }

        void recycle() {
            attributes.clear();
        }

        @Override
        public String getMethod() {
            return "GET";
        }

        @Override
        public String getServletPath() {
            return "/hello";
        }

        @Override
        public String getPathInfo() {
            return null;
        }

        @Override
        public String getRequestURI() {
            return "/hello";
        }

        @Override
        public String getContextPath() {
            return "";
        }

        @Override
        public String getRemoteAddr() {
            return PEER;
        }

        @Override
        public DispatcherType getDispatcherType() {
            return DispatcherType.REQUEST;
        }

        @Override
        public Object getAttribute(String name) {
            return attributes.get(name);
        }

        @Override
        public void setAttribute(String name, Object o) {
            attributes.put(name, o);
        }

        @Override
        public void removeAttribute(String name) {
            attributes.remove(name);
        }

        @Override
        public boolean isAsyncStarted() {
            return false;
        }

        @Override
        public String getHeader(String name) {
            return null;
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            return Collections.emptyEnumeration();
        }
    }

    /** A response that keeps the header fields it is given, as a container's does, and writes no bytes. */
    static final class MinimalResponse extends HttpServletResponseWrapper {
        static final AtomicLong UNEXPECTED = new AtomicLong();
        private final String[] names = new String[8];
        private final String[] values = new String[8];
        private int fields;
        private int status = 200;

        MinimalResponse() {
            super(rest(HttpServletResponse.class, UNEXPECTED, MinimalRequest.UNEXPECTED_NAMES));
        }

        void recycle() {
            Arrays.fill(names, 0, fields, null);
            Arrays.fill(values, 0, fields, null);
            fields = 0;
            status = 200;
        }

        @Override
        public void addHeader(String name, String value) {
            if (fields < names.length) {
                names[fields] = name;
                values[fields++] = value;
            }
        }

        @Override
        public void setHeader(String name, String value) {
            addHeader(name, value);
        }

        @Override
        public int getStatus() {
            return status;
        }

        @Override
        public void setStatus(int sc) {
            status = sc;
        }

        @Override
        public boolean isCommitted() {
            return false;
        }
    }
}
