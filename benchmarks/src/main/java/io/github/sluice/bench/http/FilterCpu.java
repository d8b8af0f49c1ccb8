package io.github.sluice.bench.http;

import io.github.sluice.servlet.SluiceFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.apache.catalina.filters.RateLimitFilter;

/**
 * The HTTP overhead by composition, for a machine whose noise is wider than the target: the
 * limiters' own CPU per request measured alone, in-process, and composed with the no-filter
 * server's CPU per request measured end to end ({@link CpuPerRequest}).
 *
 * <p>Each limiter runs its real servlet filter code ({@code SluiceFilter.doFilter}: the request
 * view, the IP key, the decision, the {@code RateLimit-Policy} and {@code RateLimit} fields added
 * to the response, the permit release; Tomcat's {@code RateLimitFilter}) over a minimal
 * in-process request and response, reused from request to request as a container recycles its
 * own, and a chain that does nothing. The reference is the same chain called without a filter.
 * Every candidate runs a fixed batch of requests in rounds (the order rotates), and the batch's
 * CPU time is the benchmark thread's ({@code ThreadMXBean}); a filter's cost is its CPU per
 * request minus the reference's in the same round, median and min-max over the rounds.
 *
 * <p>What the container itself spends on the two header fields Sluice adds (storing them,
 * writing about 70 more bytes) and on one more step of its filter chain is not in that figure:
 * the response object here keeps the fields, as a container's does, but writes no bytes. So the
 * report also runs a real Jetty in-process ({@link LocalJetty}: requests and responses as bytes in
 * memory, no socket) and reads the CPU clock of the thread that handles each request around the
 * whole handling and around the servlet: with no limiter, with a filter that only adds the same
 * two fields ({@code fields}), with the Sluice filter, with Tomcat's {@code RateLimitFilter} (a
 * standard servlet filter) and with Jetty's {@code QoSHandler} and {@code DoSHandler}, in
 * interleaved rounds. A limiter's cost there is its request thread's CPU per request minus the
 * same with no limiter. The composed overheads are: on Jetty, Sluice's cost inside that Jetty over
 * the no-filter Jetty's CPU per request end to end; on Tomcat, Sluice's filter alone plus the
 * {@code fields} configuration's cost (measured on Jetty, the nearest stand-in for Tomcat's own
 * cost of a filter step and two fields) over the no-filter Tomcat's. The comparisons with the
 * containers' own limiters are all made inside the same in-process Jetty.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.http.FilterCpu [rounds
 * [no-filter CPU us per request, e.g. jetty=78.91,tomcat=86.87]]}. Without the second argument
 * the no-filter figures are read from {@code benchmarks/target/http-cpu.txt} ({@code http-none}
 * lines, written by {@link CpuPerRequest}); without either, the composed targets print as not
 * run. Prints a Markdown report and {@code http-target} rows, which it also writes to
 * {@code benchmarks/target/filter-cpu.txt} for {@code report.Summary}.
 */
public final class FilterCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int BATCH = 200_000;
    private static volatile long sink;

    private FilterCpu() {
    }

    /** One candidate: {@code n} requests through its filter. */
    private interface Batch {
        void run(int n) throws Exception;
    }

    /**
     * @param args rounds (default 15), then optionally the no-filter servers' CPU per request
     * @throws Exception if a filter or the in-process Jetty fails
     */
    public static void main(String[] args) throws Exception {
        Logger.getLogger("").setLevel(Level.WARNING);
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        Map<String, Double> none = args.length > 1 ? parseBase(args[1]) : readBase(Path.of("benchmarks/target/http-cpu.txt"));

        MinimalRequest request = new MinimalRequest();
        MinimalResponse response = new MinimalResponse();
        FilterChain chain = (req, res) -> sink++;
        Map<String, Batch> c = new LinkedHashMap<>();
        c.put("chain only", n -> {
            for (int i = 0; i < n; i++) {
                request.recycle();
                response.recycle();
                chain.doFilter(request, response);
            }
        });
        SluiceFilter sluice = Setups.sluiceFilter();
        c.put("sluice", through(sluice, request, response, chain));
        SluiceFilter quiet = Setups.sluiceFilterWithoutFields();
        c.put("sluice, no header fields", through(quiet, request, response, chain));
        RateLimitFilter tomcat = new RateLimitFilter();
        tomcat.setBucketDuration(60);
        tomcat.setBucketRequests(Setups.HUGE);
        tomcat.init(filterConfig("ratelimit"));
        c.put("tomcat RateLimitFilter", through(tomcat, request, response, chain));

        Map<String, double[]> perRequest = run(c, rounds);
        long unexpected = MinimalRequest.UNEXPECTED.get() + MinimalResponse.UNEXPECTED.get();
        System.out.printf(Locale.ROOT, "%d rounds of %,d requests per candidate, thread CPU time; load %s; "
                + "calls outside the minimal request/response: %d (%s)%n%n", rounds, BATCH, load(), unexpected,
                MinimalRequest.UNEXPECTED_NAMES);
        System.out.println("| candidate | CPU ns per request, median (min-max) | added vs chain only, ns, median (min-max) |");
        System.out.println("|---|---:|---:|");
        double[] ref = perRequest.get("chain only");
        for (Map.Entry<String, double[]> e : perRequest.entrySet()) {
            System.out.println("| " + e.getKey() + " | " + spread(e.getValue(), "%.0f") + " | "
                    + (e.getValue() == ref ? "-" : spread(minus(e.getValue(), ref), "%.0f")) + " |");
        }
        double sluiceNs = median(minus(perRequest.get("sluice"), ref));
        double tomcatNs = median(minus(perRequest.get("tomcat RateLimitFilter"), ref));

        Map<String, double[]> jetty = LocalJetties.measure(rounds);
        System.out.println();
        System.out.printf(Locale.ROOT, "Inside an in-process Jetty (LocalConnector, one persistent connection; the request "
                + "thread's CPU time read right before and right after each limiter; %d rounds of %,d requests per "
                + "configuration; load %s):%n%n", rounds, LocalJetties.BATCH, load());
        System.out.println("| jetty limiter | CPU ns per request between the readings, median (min-max) | added vs its "
                + "reference, ns, median (min-max) |");
        System.out.println("|---|---:|---:|");
        for (Map.Entry<String, double[]> e : jetty.entrySet()) {
            double[] against = reference(jetty, e.getKey());
            System.out.println("| " + e.getKey() + " | " + spread(e.getValue(), "%.0f") + " | "
                    + (e.getValue() == against ? "-" : spread(minus(e.getValue(), against), "%.0f")) + " |");
        }
        double[][] h = HeaderFields.measure(rounds);
        double[] without = Arrays.stream(h).mapToDouble(x -> x[0]).toArray();
        double[] with = Arrays.stream(h).mapToDouble(x -> x[1]).toArray();
        double serializeNs = median(minus(with, without));
        System.out.println();
        System.out.printf(Locale.ROOT, "Jetty's HttpGenerator writing the response's header block (%,d responses per round, "
                + "%d rounds, thread CPU): %s ns without the two fields (%.0f bytes), %s ns with them (%.0f bytes): "
                + "%s ns per response for the fields%n", HeaderFields.BATCH, rounds, spread(without, "%.0f"), h[0][2],
                spread(with, "%.0f"), h[0][3], spread(minus(with, without), "%.0f"));
        double addFieldsNs = median(minus(jetty.get("fields"), jetty.get("none")));
        double jettySluiceNs = median(minus(jetty.get("sluice"), jetty.get("none"))) + serializeNs;
        double fieldsNs = addFieldsNs + serializeNs;

        List<String> targets = new ArrayList<>();
        for (String server : List.of("jetty", "tomcat")) {
            Double base = none.get(server);
            boolean isJetty = server.equals("jetty");
            String what = "HTTP CPU, " + server + ": Sluice adds <= 3 % of the no-filter CPU per request (by composition: "
                    + (isJetty ? "the Sluice filter inside an in-process Jetty, chain step included, + Jetty writing its two "
                            + "header fields"
                            : "the filter alone in-process + a Jetty filter step that adds the same two fields + Jetty "
                            + "writing them, the nearest stand-in for Tomcat's own")
                    + ", over the no-filter server's CPU per request measured end to end)";
            double addedNs = isJetty ? jettySluiceNs : sluiceNs + fieldsNs;
            String parts = isJetty ? String.format(Locale.ROOT, "(%.2f + %.2f) us (filter per round %s ns)",
                    (jettySluiceNs - serializeNs) / 1000, serializeNs / 1000,
                    spread(minus(jetty.get("sluice"), jetty.get("none")), "%.0f"))
                    : String.format(Locale.ROOT, "(%.2f + %.2f + %.2f) us", sluiceNs / 1000, addFieldsNs / 1000,
                    serializeNs / 1000);
            if (base == null) {
                targets.add("| " + what + " | " + parts + "; no no-filter figure (run benchmarks/http-cpu.sh first, "
                        + "or pass it) | not run |");
                continue;
            }
            double share = addedNs / 1000 / base;
            targets.add(String.format(Locale.ROOT, "| %s | %s of %.2f us = %.2f %% | %s |", what, parts, base,
                    100 * share, share <= CpuPerRequest.MAX_SLUICE_SHARE ? "met" : "missed"));
        }
        for (String theirs : List.of("ratelimit", "qos", "dos")) {
            double[] d = minus(jetty.get(theirs), reference(jetty, theirs));
            double t = median(d);
            targets.add(String.format(Locale.ROOT, "| HTTP CPU: Sluice adds less than %s (each inside the same in-process "
                    + "Jetty, the request thread's CPU; Sluice with its header fields written) | Sluice %.0f ns, %s %.0f ns "
                    + "per request (per round %s ns) | %s |", theirs, jettySluiceNs, theirs, t, spread(d, "%.0f"),
                    jettySluiceNs < t ? "met" : "missed"));
        }
        // The same comparisons on equal work. RateLimitFilter can add the same two fields
        // (exposeHeaders): both add them, and neither's writing of them is counted (the values are
        // of the same length). QoSHandler and DoSHandler add no field: Sluice adds none either.
        double[] sluiceInJetty = minus(jetty.get("sluice"), jetty.get("none"));
        double[] theirsWithFields = minus(jetty.get("ratelimit-fields"), jetty.get("none"));
        targets.add(String.format(Locale.ROOT, "| HTTP CPU, equal work: Sluice adds less than ratelimit with its own "
                + "RateLimit-Policy and RateLimit fields (exposeHeaders=true; both add two fields, inside the same "
                + "in-process Jetty) | Sluice %.0f ns (per round %s ns), ratelimit-fields %.0f ns (per round %s ns) "
                + "per request | %s |", median(sluiceInJetty), spread(sluiceInJetty, "%.0f"), median(theirsWithFields),
                spread(theirsWithFields, "%.0f"), median(sluiceInJetty) < median(theirsWithFields) ? "met" : "missed"));
        double[] quietInJetty = minus(jetty.get("sluice-nofields"), jetty.get("none"));
        for (String theirs : List.of("ratelimit", "qos", "dos")) {
            double t = median(minus(jetty.get(theirs), reference(jetty, theirs)));
            targets.add(String.format(Locale.ROOT, "| HTTP CPU, equal work: Sluice without header fields adds less than "
                    + "%s (inside the same in-process Jetty; neither adds a field) | Sluice %.0f ns (per round %s ns), %s "
                    + "%.0f ns per request | %s |", theirs, median(quietInJetty), spread(quietInJetty, "%.0f"), theirs, t,
                    median(quietInJetty) < t ? "met" : "missed"));
        }
        targets.add(String.format(Locale.ROOT, "| HTTP CPU: Sluice's filter alone adds less than Tomcat's RateLimitFilter alone "
                + "(in-process, the same minimal request and response) | Sluice %.0f ns, RateLimitFilter %.0f ns per request | %s |",
                sluiceNs, tomcatNs, sluiceNs < tomcatNs ? "met" : "missed"));
        System.out.println();
        System.out.println("| target | measured | verdict |");
        System.out.println("|---|---|---|");
        targets.forEach(System.out::println);
        List<String> lines = new ArrayList<>();
        targets.forEach(t -> lines.add("http-target " + t));
        Path out = Path.of("benchmarks/target");
        if (Files.isDirectory(out)) {
            Files.write(out.resolve("filter-cpu.txt"), lines, StandardCharsets.UTF_8);
        }
        sluice.destroy();
        quiet.destroy();
        tomcat.destroy();
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

    /** @return the configuration {@code name} is compared with: the readings with nothing between them */
    private static double[] reference(Map<String, double[]> jetty, String name) {
        return jetty.get(name.equals("qos") || name.equals("dos") || name.equals("none-handler") ? "none-handler" : "none");
    }

    static Map<String, Double> parseBase(String text) {
        Map<String, Double> m = new HashMap<>();
        for (String part : text.split(",")) {
            String[] kv = part.split("=");
            if (kv.length != 2) {
                throw new IllegalArgumentException("no-filter figures must be server=microseconds, e.g. "
                        + "jetty=78.91,tomcat=86.87, but were '" + text + "'");
            }
            m.put(kv[0].trim(), Double.parseDouble(kv[1].trim()));
        }
        return m;
    }

    private static Map<String, Double> readBase(Path file) throws IOException {
        Map<String, Double> m = new HashMap<>();
        if (Files.isRegularFile(file)) {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] f = l.split(" ");
                if (f.length == 3 && f[0].equals("http-none")) {
                    m.put(f[1], Double.parseDouble(f[2]));
                }
            }
        }
        return m;
    }

    static double[] minus(double[] a, double[] b) {
        double[] d = new double[a.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = a[i] - b[i];
        }
        return d;
    }

    static double median(double[] v) {
        double[] a = v.clone();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static String spread(double[] v, String format) {
        double[] a = v.clone();
        Arrays.sort(a);
        return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", median(v), a[0], a[a.length - 1]);
    }

    private static String load() {
        return String.format(Locale.ROOT, "%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static FilterConfig filterConfig(String name) {
        ServletContext context = (ServletContext) Proxy.newProxyInstance(FilterCpu.class.getClassLoader(),
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
    private static <T> T rest(Class<T> type, AtomicLong unexpected, List<String> names) {
        return type.cast(Proxy.newProxyInstance(FilterCpu.class.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
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
