/**
 * Sluice's JAX-RS adapter: {@link io.github.sluice.jaxrs.SluiceFeature} and
 * {@link io.github.sluice.jaxrs.RateLimited}. Depends on the Jakarta REST 3.1 API, not on an
 * implementation.
 */
module io.github.sluice.jaxrs {
    requires transitive io.github.sluice.core;
    requires transitive jakarta.ws.rs;

    exports io.github.sluice.jaxrs;
}
