package io.github.sluice.servlet;

import io.github.sluice.http.AdminJson;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.TopClients;
import io.github.sluice.policy.Policy;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An operator's endpoint over a {@link SluiceFilter}'s enforcer: the policies with their counters,
 * a client key's state per policy, and the reset of a key. Opt-in: nothing registers it (it has
 * no {@code @WebServlet} annotation); map it yourself, and protect it, since it shows client keys
 * and lifts their limits (see {@code docs/operations.md}):
 *
 * <pre>{@code
 * <servlet>
 *   <servlet-name>sluice-admin</servlet-name>
 *   <servlet-class>io.github.sluice.servlet.SluiceAdminServlet</servlet-class>
 *   <init-param><param-name>filter-name</param-name><param-value>sluice</param-value></init-param>
 * </servlet>
 * <servlet-mapping>
 *   <servlet-name>sluice-admin</servlet-name>
 *   <url-pattern>/admin/sluice/*</url-pattern>
 * </servlet-mapping>
 * }</pre>
 *
 * <h2>Requests</h2>
 * Paths are relative to the mapping; answers are JSON ({@link AdminJson}), errors RFC 9457
 * problem documents.
 * <ul>
 *   <li>{@code GET /policies}: every policy as configured, in the policy language, with its counts;
 *   <li>{@code GET /keys?key=K[&policy=P]}: the state of key {@code K} under every policy (or
 *       {@code P}), read without consuming anything;
 *   <li>{@code DELETE /keys?key=K[&policy=P]}: forget the state of {@code K} (concurrency limits
 *       keep their running requests' permits);
 *   <li>{@code GET /top?policy=P[&by=denied|admitted][&period=5m]}: the clients policy {@code P}
 *       refused (or admitted) most over the period, 1m to 15m, heaviest first
 *       ({@link io.github.sluice.http.TopClients}); a bad {@code by} or {@code period} is a 400, an
 *       unknown policy or a list not kept a 404.
 * </ul>
 * The key is a query parameter, percent-encoded as any query value: keys hold characters a path
 * segment cannot carry through every container ({@code /} in an IPv6 network, {@code :} in a key
 * chain's tag). A missing, empty or repeated {@code key}, or one longer than 4096 characters, is
 * refused with 400; an unknown policy with 404.
 *
 * <h2>Which enforcer</h2>
 * The one the filter named by the init-param {@value #FILTER_NAME} publishes in the servlet
 * context ({@link SluiceFilter#ENFORCER_ATTRIBUTE_PREFIX}{@code <filter name>}); without the
 * init-param, the only one published (with several, the init-param is required). It is looked up
 * at each request, so the servlet may start before the filter and follows a filter re-created by
 * a redeployment.
 *
 * <p>Thread-safe.
 */
public class SluiceAdminServlet extends HttpServlet {

    /** The init-param naming the filter whose enforcer is shown. */
    public static final String FILTER_NAME = "filter-name";

    private static final long serialVersionUID = 1L;
    /** The longest key accepted: the longest {@code max-key-length}. */
    private static final int MAX_KEY = 4096;

    /** The filter name, or {@code null} for the only enforcer published. */
    private String filterName;

    /** Creates the servlet; the container configures it. */
    public SluiceAdminServlet() {
    }

    /**
     * Reads the {@value #FILTER_NAME} init-param.
     *
     * @param config the servlet's configuration
     * @throws ServletException if the init-param is blank
     */
    @Override
    public void init(ServletConfig config) throws ServletException {
        super.init(config);
        String name = config.getInitParameter(FILTER_NAME);
        if (name != null && name.isBlank()) {
            throw new ServletException("Sluice admin servlet '" + config.getServletName() + "': init-param "
                    + FILTER_NAME + " must name a SluiceFilter but was blank");
        }
        this.filterName = name == null ? null : name.strip();
    }

    /**
     * Answers {@code GET /policies}, {@code GET /keys?key=K} and {@code GET /top?policy=P}.
     *
     * @param request the request
     * @param response the response
     * @throws IOException if the response cannot be written
     */
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Enforcer enforcer = enforcer(response);
        if (enforcer == null) {
            return;
        }
        String path = request.getPathInfo();
        if ("/policies".equals(path)) {
            write(response, 200, "application/json", AdminJson.policies(enforcer));
        } else if ("/keys".equals(path)) {
            String key = key(request, response);
            if (key == null) {
                return;
            }
            String policy = request.getParameter("policy");
            try {
                write(response, 200, "application/json", AdminJson.key(key,
                        policy == null ? enforcer.inspect(key) : List.of(enforcer.inspect(key, policy))));
            } catch (IllegalArgumentException unknown) {
                problem(response, 404, "Not Found", unknown.getMessage());
            }
        } else if ("/top".equals(path)) {
            top(enforcer, request, response);
        } else {
            notFound(response, path);
        }
    }

    /** {@code GET /top?policy=P&by=denied&period=5m}. */
    private static void top(Enforcer enforcer, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        String policy = request.getParameter("policy");
        String by = request.getParameter("by");
        String period = request.getParameter("period");
        TopClients.By what;
        int minutes;
        try {
            what = TopClients.By.of(by == null ? "denied" : by);
            minutes = TopClients.minutes(period == null ? "5m" : period);
        } catch (IllegalArgumentException bad) {
            problem(response, 400, "Bad Request", bad.getMessage());
            return;
        }
        List<String> names = new ArrayList<>();
        for (Policy p : enforcer.policies()) {
            names.add(p.name());
        }
        if (policy == null || !names.contains(policy)) {
            problem(response, policy == null ? 400 : 404, policy == null ? "Bad Request" : "Not Found",
                    (policy == null ? "give the query parameter policy" : "no policy '" + policy + "'")
                            + "; policies: " + names);
            return;
        }
        TopClients top;
        try {
            top = enforcer.metrics().policy(policy).topClients(what);
        } catch (IllegalStateException notKept) {
            problem(response, 404, "Not Found", notKept.getMessage());
            return;
        }
        write(response, 200, "application/json", AdminJson.top(top.top(minutes)));
    }

    /**
     * Answers {@code DELETE /keys?key=K[&policy=P]}.
     *
     * @param request the request
     * @param response the response
     * @throws IOException if the response cannot be written
     */
    @Override
    protected void doDelete(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Enforcer enforcer = enforcer(response);
        if (enforcer == null) {
            return;
        }
        String path = request.getPathInfo();
        if (!"/keys".equals(path)) {
            notFound(response, path);
            return;
        }
        String key = key(request, response);
        if (key == null) {
            return;
        }
        String policy = request.getParameter("policy");
        try {
            List<String> reset = policy == null ? enforcer.reset(key)
                    : enforcer.reset(key, policy) ? List.of(policy) : List.of();
            write(response, 200, "application/json", AdminJson.reset(key, reset));
        } catch (IllegalArgumentException unknown) {
            problem(response, 404, "Not Found", unknown.getMessage());
        } catch (UnsupportedOperationException cannot) {
            problem(response, 501, "Not Implemented", cannot.getMessage());
        }
    }

    /** The {@code key} parameter, or {@code null} after answering 400. */
    private static String key(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String[] keys = request.getParameterValues("key");
        if (keys == null || keys.length != 1 || keys[0].isEmpty()) {
            problem(response, 400, "Bad Request", "give exactly one non-empty query parameter key, e.g. ?key=192.0.2.1");
            return null;
        }
        if (keys[0].length() > MAX_KEY) {
            problem(response, 400, "Bad Request", "key must be at most " + MAX_KEY + " characters but had "
                    + keys[0].length());
            return null;
        }
        return keys[0];
    }

    /** The enforcer shown, or {@code null} after answering 503. */
    private Enforcer enforcer(HttpServletResponse response) throws IOException {
        ServletContext context = getServletContext();
        if (filterName != null) {
            Object e = context.getAttribute(SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX + filterName);
            if (e instanceof Enforcer enforcer) {
                return enforcer;
            }
            problem(response, 503, "Service Unavailable", "no Sluice filter named '" + filterName
                    + "' has published its enforcer (is it declared, and started?)");
            return null;
        }
        List<String> names = new ArrayList<>();
        Enforcer found = null;
        for (String name : Collections.list(context.getAttributeNames())) {
            if (name.startsWith(SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX) && context.getAttribute(name) instanceof Enforcer e) {
                names.add(name.substring(SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX.length()));
                found = e;
            }
        }
        if (names.size() == 1) {
            return found;
        }
        problem(response, 503, "Service Unavailable", names.isEmpty()
                ? "no Sluice filter has published its enforcer (is it declared, and started?)"
                : "several Sluice filters publish an enforcer " + names + ": name one with the init-param " + FILTER_NAME);
        return null;
    }

    private static void notFound(HttpServletResponse response, String path) throws IOException {
        problem(response, 404, "Not Found", "the Sluice admin endpoint serves /policies, /keys?key=... and /top?policy=..., not "
                + (path == null ? "its root" : "'" + path + "'"));
    }

    private static void problem(HttpServletResponse response, int status, String title, String detail) throws IOException {
        write(response, status, "application/problem+json", AdminJson.problem(status, title, detail));
    }

    private static void write(HttpServletResponse response, int status, String type, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(type);
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    @Override
    public String toString() {
        return "SluiceAdminServlet{" + (filterName == null ? "the only Sluice filter" : "filter " + filterName) + '}';
    }
}
