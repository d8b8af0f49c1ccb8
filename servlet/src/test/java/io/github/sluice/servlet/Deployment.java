package io.github.sluice.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
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
 * @param async whether the filter and the servlet are async-supported
 */
record Deployment(Filter filter, Map<String, String> initParams, HttpServlet servlet, boolean async) {

    /** The given filter instance in front of the servlet, everything async-supported. */
    static Deployment of(Filter filter, HttpServlet servlet) {
        return new Deployment(filter, Map.of(), servlet, true);
    }

    /** A SluiceFilter the container creates and configures with the init-params. */
    static Deployment ofInitParams(Map<String, String> params, HttpServlet servlet) {
        return new Deployment(null, params, servlet, true);
    }

    /** The same deployment with nothing async-supported. */
    Deployment withoutAsync() {
        return new Deployment(filter, initParams, servlet, false);
    }
}
