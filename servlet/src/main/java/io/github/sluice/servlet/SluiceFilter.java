package io.github.sluice.servlet;

import io.github.sluice.config.ConfigWatch;
import io.github.sluice.config.SluiceConfig;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.store.Store;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Jakarta Servlet filter that applies Sluice policies to every request it is mapped to.
 *
 * <h2>Registration</h2>
 * <ul>
 *   <li>In {@code web.xml}, with the no-argument constructor: the filter starts through
 *       {@link SluiceConfig#newEnforcer(java.util.function.Function, Iterable, Object, String)}
 *       (the settings and the policy language; a misspelt name fails at startup), plus
 *       {@value #SHAPING_PARAM}. If the
 *       servlet context holds a {@link Store} under {@value #STORE_ATTRIBUTE} when the filter is
 *       initialised (put there by a {@code ServletContextListener}), the policies live in that
 *       store (e.g. Redis) instead of a new in-memory registry.
 *   <li>In code, with {@link #SluiceFilter(Enforcer)}: init-params and the store attribute are
 *       then ignored.
 * </ul>
 * Declare the filter {@code async-supported} and map it to the {@code REQUEST} and {@code ASYNC}
 * dispatcher types. It decides each request once, in the first dispatch it sees of it: the
 * {@code REQUEST} dispatch, or the {@code ASYNC} dispatch a filter in front moved the request to.
 * Any later dispatch passes through: forwards, includes and error dispatches by their type, a
 * later {@code ASYNC} dispatch by an attribute of this filter's, set on a request that went async
 * (a request that did not gets no attribute), and the filter met again on the thread of a
 * {@code REQUEST} dispatch it is deciding (mapped twice, or also called by another filter) by a
 * per-thread flag: whatever runs in that dispatch's chain on its thread belongs to the request
 * being decided.
 *
 * <h2>Per request</h2>
 * <ul>
 *   <li>denied: the status, {@code Retry-After}, the rate-limit headers and the denial body are
 *       written and the chain is not called. A client that went away is not an error.
 *   <li>admitted: the rate-limit headers are set before the chain runs, so that they are present
 *       even if the application commits the response early.
 *   <li>shaped: the request waits before the chain runs; see {@link Shaping}. The wait never
 *       exceeds the policy's maximum delay: the algorithm denies requests that would wait longer.
 *       A request a filter in front already put in async mode waits on its thread, since its
 *       async cycle is that filter's.
 *   <li>concurrency permits are released exactly once when the response completes: when the
 *       chain returns or throws, or, if the request is in async mode then (whoever started it:
 *       the application, a filter in front, Sluice's shaping), when the async request completes,
 *       fails or times out (including after further {@code startAsync} cycles). Adaptive
 *       policies are told how it ended: the response's status (a drop if the policy lists it),
 *       a timeout (a drop), or an exception or async error (nothing learned); see
 *       {@link io.github.sluice.http.ReleaseHandle}.
 * </ul>
 *
 * <h2>Changing the policies while running</h2>
 * When the init-params name a {@code config} properties file on the file system, the filter watches
 * it ({@link ConfigWatch}): an edit is applied without a restart once the file has stayed unchanged
 * for a {@code config-watch-interval} (1 s by default), and a version with an error, an empty or
 * half-written file, or one that lost every policy is refused (logged at WARNING) while the
 * policies in force stay. {@code config-watch=false} turns this off.
 *
 * <p>Thread-safe once initialised. {@link #destroy()} stops the file watch and the shaping
 * scheduler, and closes the enforcer if the filter built it (an enforcer passed to the constructor, or a store from the
 * context attribute, belongs to the caller).
 */
public final class SluiceFilter implements Filter {

    /**
     * The servlet context attribute a listener may set to an {@link Store} before filters are
     * initialised, so that a filter configured by init-params keeps its state there.
     */
    public static final String STORE_ATTRIBUTE = "io.github.sluice.store";

    /**
     * The prefix of the servlet context attribute under which {@link #init} publishes the filter's
     * {@link Enforcer}, followed by the filter's name (e.g. {@code io.github.sluice.Enforcer.sluice}),
     * so that a metrics endpoint or a JMX registration in the same application can find it. Removed
     * by {@link #destroy()}.
     */
    public static final String ENFORCER_ATTRIBUTE_PREFIX = "io.github.sluice.Enforcer.";

    /** The init-param choosing how shaped requests wait: {@code async} (default) or {@code blocking}. */
    public static final String SHAPING_PARAM = "shaping";

    /** Distinguishes the request attributes of two Sluice filters on the same chain. */
    private static final AtomicLong INSTANCES = new AtomicLong();

    /**
     * The request attribute marking a request this filter has decided, read by a later ASYNC
     * dispatch; its own name, so that two Sluice filters on one chain decide a request each. Set
     * only on a request that went async: a container may charge for a request's first attribute
     * (Jetty 12 creates the request's attribute map then, about 0.27 us).
     */
    private final String decidedAttribute = SluiceFilter.class.getName() + ".decided." + INSTANCES.incrementAndGet();
    /**
     * Per thread, whether this filter is deciding a REQUEST dispatch on it (1) or not (0): meeting
     * the filter again on that thread, further down the dispatch's chain (the filter mapped twice),
     * passes through. A flag, not the request: storing a request into a long-lived holder costs
     * the collector's write barrier, with its fence, on every request (about 3 ns of the 40 the
     * filter costs, docs/PERFORMANCE.md), and nothing but the request being decided can run in its
     * chain on its thread (the container starts no other request there; the application's nested
     * call belongs to this one). A holder, so that entering and leaving write an array slot, not
     * the thread's map; a JDK type, so that a thread of the container's pool keeps no class of the
     * application's; and the slot {@link #SLOT} alone on its cache line: it is written twice per
     * request, and an object the collector copied next to it would otherwise share the line.
     */
    private final ThreadLocal<int[]> deciding = ThreadLocal.withInitial(() -> new int[2 * SLOT + 1]);
    /** The holder's slot: 16 ints (64 bytes) on each side of it, within the array. */
    private static final int SLOT = 16;
    private volatile Enforcer enforcer;
    private volatile Shaper shaper;
    private boolean ownsEnforcer;
    private FilterConfig published;
    /** The watch of the {@code config} file, if any. */
    private volatile ConfigWatch watch;

    /** Creates a filter configured by its init-params when the container initialises it. */
    public SluiceFilter() {
    }

    /**
     * Creates a filter that applies the given enforcer; shaped requests wait asynchronously where
     * the request supports it ({@link Shaping#ASYNC}).
     *
     * @param enforcer the enforcer; the caller keeps ownership and closes it
     * @throws NullPointerException if {@code enforcer} is null
     */
    public SluiceFilter(Enforcer enforcer) {
        this(enforcer, Shaping.ASYNC);
    }

    /**
     * Creates a filter that applies the given enforcer.
     *
     * @param enforcer the enforcer; the caller keeps ownership and closes it
     * @param shaping how shaped requests wait
     * @throws NullPointerException if an argument is null
     */
    public SluiceFilter(Enforcer enforcer, Shaping shaping) {
        this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
        this.shaper = new Shaper(Objects.requireNonNull(shaping, "shaping"));
    }

    /**
     * Builds the enforcer from the init-params, unless one was given to the constructor, and
     * publishes it under {@value #ENFORCER_ATTRIBUTE_PREFIX}{@code <filter name>}.
     *
     * @param config the filter's configuration
     * @throws ServletException if a parameter is invalid, the properties file cannot be read, or
     *     the {@value #STORE_ATTRIBUTE} attribute is not a {@link Store}; the message names the
     *     parameter and the value
     */
    @Override
    public void init(FilterConfig config) throws ServletException {
        if (enforcer != null) {
            publish(config);
            return;
        }
        String name = config.getFilterName();
        try {
            List<String> names = new ArrayList<>(Collections.list(config.getInitParameterNames()));
            names.remove(SHAPING_PARAM);
            Shaping shaping = Shaping.ofInitParam(config.getInitParameter(SHAPING_PARAM));
            Enforcer built = SluiceConfig.newEnforcer(config::getInitParameter, names,
                    config.getServletContext().getAttribute(STORE_ATTRIBUTE),
                    "servlet context attribute '" + STORE_ATTRIBUTE + "'");
            try {
                this.watch = ConfigWatch.start(built, config::getInitParameter, names);
            } catch (RuntimeException e) {
                built.close();
                throw e;
            }
            this.shaper = new Shaper(shaping);
            this.ownsEnforcer = true;
            this.enforcer = built;
        } catch (IllegalArgumentException e) {
            throw new ServletException("Sluice filter '" + name + "': " + e.getMessage(), e);
        }
        publish(config);
    }

    private void publish(FilterConfig config) {
        config.getServletContext().setAttribute(ENFORCER_ATTRIBUTE_PREFIX + config.getFilterName(), enforcer);
        this.published = config;
    }

    /**
     * Applies the policies to a request, see the class description.
     *
     * @throws IllegalStateException if the filter was built without an enforcer and never initialised
     */
    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        DispatcherType type = request.getDispatcherType();
        if (type == DispatcherType.REQUEST) {
            int[] flag = deciding.get();
            if (flag[SLOT] != 0) {
                chain.doFilter(req, res); // this filter met again in the REQUEST dispatch it decides
                return;
            }
            flag[SLOT] = 1;
            try {
                decide(request, response, chain);
            } finally {
                flag[SLOT] = 0; // however the dispatch ends: the thread's next request is decided
            }
        } else if (type == DispatcherType.ASYNC) {
            Object mark = request.getAttribute(decidedAttribute);
            if (mark == null) {
                request.setAttribute(decidedAttribute, Boolean.TRUE); // the filter met again in this dispatch passes
                decide(request, response, chain);
            } else if (mark instanceof Verdict held) {
                continueAsync(request, response, chain, held);
            } else {
                chain.doFilter(req, res); // decided, holding nothing
            }
        } else {
            chain.doFilter(req, res); // decided already, or a forward, include or error dispatch
        }
    }

    /**
     * Leaves the mark a later ASYNC dispatch of this request reads, if the dispatch just decided
     * put the request in async mode (the application, a filter behind, or Sluice's shaping): such
     * a dispatch can only start once this one has returned to the container, so the mark is there
     * before it. The mark is the verdict if it still holds permits, so that a later dispatch that
     * throws can end it ({@link #continueAsync}). Called only if the request is in async mode (read
     * once, with the release); a request that did not go async gets no attribute.
     */
    private void markAsync(HttpServletRequest request, Verdict decided) {
        request.setAttribute(decidedAttribute, decided != null && !decided.released() ? decided : Boolean.TRUE);
    }

    /**
     * Runs a later ASYNC dispatch of a decided request that holds permits. The listener registered
     * when the request went async gives them back when the request completes, fails or times out;
     * but a dispatch that throws after the response was committed is not always reported to it:
     * Jetty 12 (ee10) aborts such a request without calling {@code onError} or {@code onComplete},
     * so the permits would be held forever, and a client could exhaust a concurrency policy with a
     * handful of such requests. An exception that ends the request (no new async cycle started)
     * therefore ends the verdict here, as the REQUEST dispatch would: the committed status, or a
     * failure if nothing was committed. Whatever the listener hears later is a no-op: the release
     * is idempotent.
     */
    private static void continueAsync(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
            Verdict held) throws IOException, ServletException {
        boolean threw = true;
        try {
            chain.doFilter(request, response);
            threw = false;
        } finally {
            if (threw && !request.isAsyncStarted()) {
                PermitRelease.whenComplete(request, response, held, true);
            }
        }
    }

    /** Decides the request and runs the chain, or answers a denial; see the class description. */
    private void decide(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        Enforcer e = enforcer;
        if (e == null) {
            throw new IllegalStateException("the Sluice filter was not initialised: call init(FilterConfig)");
        }
        ServletRequestView view = new ServletRequestView(request, response);
        Verdict verdict = e.enforce(view);
        // From here on the verdict may hold permits: every way out of this method either hands them
        // to a listener (suspended) or goes through the finally.
        boolean suspended = false;
        boolean threw = true;
        try {
            if (verdict.denied()) {
                Denial.write(verdict, response, view);
                return;
            }
            verdict.writeHeaders(view);
            suspended = verdict.shaped() && shaper.delay(verdict, request, response);
            if (!suspended) {
                chain.doFilter(request, response);
            }
            threw = false;
        } finally {
            boolean async = request.isAsyncStarted();
            if (!suspended) {
                // Not suspended: the verdict was never handed to a listener or the scheduler
                PermitRelease.whenDecidingDispatchEnds(request, response, verdict, threw, async);
            }
            if (async) {
                markAsync(request, verdict);
            }
        }
    }

    /** Stops the file watch and the shaping scheduler, and closes the enforcer if this filter built it. */
    @Override
    public void destroy() {
        ConfigWatch w = watch;
        if (w != null) {
            w.close();
        }
        FilterConfig p = published;
        if (p != null) {
            p.getServletContext().removeAttribute(ENFORCER_ATTRIBUTE_PREFIX + p.getFilterName());
        }
        Shaper s = shaper;
        if (s != null) {
            s.close();
        }
        Enforcer e = enforcer;
        if (ownsEnforcer && e != null) {
            e.close();
        }
    }

    /**
     * Returns the enforcer, e.g. to inspect its store.
     *
     * @return the enforcer, or {@code null} before {@link #init} for a filter configured by init-params
     */
    public Enforcer enforcer() {
        return enforcer;
    }

    @Override
    public String toString() {
        return "SluiceFilter{" + enforcer + ", shaping=" + (shaper == null ? null : shaper.mode()) + '}';
    }
}
