package io.github.sluice.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.util.Map;

/**
 * What a container test deploys at the root context: the Sluice filter on {@code /*} for the
 * REQUEST and ASYNC dispatcher types (an instance, or the class configured by init-params), and
 * one servlet on {@code /api/*}; both async-supported unless {@link #async} is false.
 *
 * @param filter the filter instance, or {@code null} to let the container create a
 *     {@link SluiceFilter} from {@code initParams}
 * @param initParams the filter's init-params (ignored by an instance built with an enforcer)
 * @param servlet the application
 * @param async whether the filters and the servlet are async-supported
 * @param front a filter mapped in front of Sluice, on {@code /*} for REQUEST and ASYNC, or {@code null}
 * @param lenientUris whether the container routes URIs it would refuse by default as ambiguous
 *     (Jetty's {@code UriCompliance.LEGACY}; Tomcat has no such switch for these and ignores it)
 * @param mappedThrice whether the Sluice filter is mapped three times, as a careless configuration
 *     may: on {@code /*}, then, behind a filter that wraps the request, on {@code /api/*} and on
 *     the servlet's name (Jetty then calls it three times per dispatch; Tomcat once)
 */
record Deployment(Filter filter, Map<String, String> initParams, HttpServlet servlet, boolean async, Filter front,
        boolean lenientUris, boolean mappedThrice) {

    /** The given filter instance in front of the servlet, everything async-supported. */
    static Deployment of(Filter filter, HttpServlet servlet) {
        return new Deployment(filter, Map.of(), servlet, true, null, false, false);
    }

    /** A SluiceFilter the container creates and configures with the init-params. */
    static Deployment ofInitParams(Map<String, String> params, HttpServlet servlet) {
        return new Deployment(null, params, servlet, true, null, false, false);
    }

    /** The same deployment with nothing async-supported. */
    Deployment withoutAsync() {
        return new Deployment(filter, initParams, servlet, false, front, lenientUris, mappedThrice);
    }

    /** The same deployment with {@code front} mapped before the Sluice filter. */
    Deployment behind(Filter front) {
        return new Deployment(filter, initParams, servlet, async, front, lenientUris, mappedThrice);
    }

    /** The same deployment on a container that routes ambiguous URIs instead of refusing them. */
    Deployment withLenientUris() {
        return new Deployment(filter, initParams, servlet, async, front, true, mappedThrice);
    }

    /** The same deployment with the Sluice filter mapped three times (see {@link #mappedThrice}). */
    Deployment withFilterMappedThrice() {
        return new Deployment(filter, initParams, servlet, async, front, lenientUris, true);
    }

    /** A filter that wraps the request in a plain wrapper, as many frameworks' filters do. */
    static final class Wrapping implements Filter {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request), response);
        }
    }
}
