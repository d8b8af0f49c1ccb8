/**
 * Sluice's JAX-RS adapter: {@link io.github.sluice.jaxrs.SluiceFeature} and
 * {@link io.github.sluice.jaxrs.RateLimited}. Depends on the Jakarta REST 3.1 API, not on an
 * implementation; reads the servlet API when it is there (the client's address in a servlet
 * container), and runs without it.
 */
module io.github.sluice.jaxrs {
    requires transitive io.github.sluice.core;
    requires transitive jakarta.ws.rs;
    // Optional: in a servlet container, the client's address comes from the servlet request.
    requires static jakarta.servlet;

    exports io.github.sluice.jaxrs;
}
