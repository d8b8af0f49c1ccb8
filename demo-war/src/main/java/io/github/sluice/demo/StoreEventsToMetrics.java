package io.github.sluice.demo;

import io.github.sluice.http.Enforcer;
import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.store.StoreListener;
import jakarta.servlet.ServletContext;
import java.util.Collections;

/**
 * Tells every enforcer published in the servlet context (the filter's and the JAX-RS feature's)
 * that the shared Redis store degraded or recovered, so that {@code /metrics} shows
 * {@code sluice_store_degraded} and the alert "store degraded" of {@code docs/observability} can
 * fire. The store is built by {@link DemoStoreListener} before the enforcers exist, so they are
 * looked up at each event (on the store's event thread), not at start-up.
 *
 * <p>An application that builds its enforcer in code gives the store and the enforcer one
 * {@code EnforcerMetrics} instead (docs/operations.md, "What reaches the counts").
 */
final class StoreEventsToMetrics implements StoreListener {

    private final ServletContext context;

    StoreEventsToMetrics(ServletContext context) {
        this.context = context;
    }

    @Override
    public void storeDegraded(String store, Throwable cause) {
        for (Enforcer e : published()) {
            e.metrics().storeDegraded(store, cause);
        }
    }

    @Override
    public void storeRecovered(String store) {
        for (Enforcer e : published()) {
            e.metrics().storeRecovered(store);
        }
    }

    private Iterable<Enforcer> published() {
        java.util.List<Enforcer> out = new java.util.ArrayList<>();
        for (String name : Collections.list(context.getAttributeNames())) {
            if (name.startsWith(SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX)
                    && context.getAttribute(name) instanceof Enforcer e) {
                out.add(e);
            }
        }
        return out;
    }
}
