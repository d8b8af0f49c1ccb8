package io.github.sluice.demo;

import io.github.sluice.http.Enforcer;
import io.github.sluice.micrometer.SluiceMetrics;
import io.github.sluice.servlet.SluiceFilter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * {@code GET /metrics}: Sluice's counts in the Prometheus text format, from Micrometer's Prometheus
 * registry. No Sluice filter is mapped to it, so a scraper is never limited.
 *
 * <p>Every {@link SluiceFilter} of the application publishes its enforcer in the servlet context
 * ({@link SluiceFilter#ENFORCER_ATTRIBUTE_PREFIX} and the filter's name); on each scrape this
 * servlet binds those it has not bound yet, tagged {@code filter=<name>}, and unbinds those that
 * are gone. Meter names start with {@code sluice_} and carry a {@code policy} label, e.g.
 * {@code sluice_decisions_total{filter="sluice",outcome="denied",policy="per-ip",status="429"} 1.0}.
 */
public final class MetricsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private transient PrometheusMeterRegistry registry;
    private final transient Map<Enforcer, SluiceMetrics> bound = new IdentityHashMap<>();

    @Override
    public void init() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        bindPublishedEnforcers(getServletContext());
        response.setContentType("text/plain; version=0.0.4; charset=utf-8");
        response.getWriter().write(registry.scrape());
    }

    private synchronized void bindPublishedEnforcers(ServletContext context) {
        Map<Enforcer, String> published = new IdentityHashMap<>();
        for (String name : Collections.list(context.getAttributeNames())) {
            if (name.startsWith(SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX)
                    && context.getAttribute(name) instanceof Enforcer e) {
                published.put(e, name.substring(SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX.length()));
            }
        }
        for (Iterator<Map.Entry<Enforcer, SluiceMetrics>> it = bound.entrySet().iterator(); it.hasNext();) {
            Map.Entry<Enforcer, SluiceMetrics> b = it.next();
            if (!published.containsKey(b.getKey())) {
                b.getValue().close();
                it.remove();
            }
        }
        published.forEach((enforcer, filter) -> bound.computeIfAbsent(enforcer, e -> {
            SluiceMetrics metrics = new SluiceMetrics(e, Tags.of("filter", filter));
            metrics.bindTo(registry);
            return metrics;
        }));
    }

    @Override
    public synchronized void destroy() {
        bound.values().forEach(SluiceMetrics::close);
        bound.clear();
        if (registry != null) {
            registry.close();
        }
    }
}
