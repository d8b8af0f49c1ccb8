package io.github.sluice.jaxrs;

import io.github.sluice.http.Verdict;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The verdicts of the requests in flight, keyed by the runtime's request object, shared by every
 * stage of one feature.
 *
 * <p>Why not request properties: in a servlet container they are the servlet request's
 * attributes, and when an {@code AsyncResponse} is resumed with an exception nobody maps, Jersey
 * 3.1 first lets the container complete the request, then runs the response filters on the
 * default exception mapper's response; by then the container may have recycled the servlet
 * request (its attributes are gone, or belong to the connection's next request). The runtime's
 * own request object is never reused, so it is a safe key.
 *
 * <p>An entry lives from the first request filter that decided the request to the last response
 * filter. Thread-safe: the response phase may run on another thread than the request phase.
 */
final class InFlight {

    /** The verdicts of one request: at most one per stage. */
    static final class Entry {
        private volatile Verdict global;
        private volatile Verdict resource;
    }

    private final ConcurrentHashMap<ContainerRequestContext, Entry> entries = new ConcurrentHashMap<>();

    /** Records a stage's verdict for the request. */
    void put(ContainerRequestContext request, boolean global, Verdict verdict) {
        Entry e = entries.computeIfAbsent(request, r -> new Entry());
        if (global) {
            e.global = verdict;
        } else {
            e.resource = verdict;
        }
    }

    /** @return the request's entry, or {@code null} if no stage decided it or all were taken */
    Entry get(ContainerRequestContext request) {
        return entries.get(request);
    }

    /**
     * Takes a stage's verdict out of the entry, once: a second response pass for the same request
     * gets {@code null}. Forgets the entry when both stages have taken theirs.
     */
    Verdict take(ContainerRequestContext request, Entry e, boolean global) {
        Verdict v;
        if (global) {
            v = e.global;
            e.global = null;
        } else {
            v = e.resource;
            e.resource = null;
        }
        if (e.global == null && e.resource == null) {
            entries.remove(request, e);
        }
        return v;
    }

    /** @return the number of requests whose response phase has not run yet */
    int size() {
        return entries.size();
    }
}
