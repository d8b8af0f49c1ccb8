package io.github.sluice.servlet;

import io.github.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * The JAX-RS resource behind the servlet filter in {@link TwoLayersContract}, served by Jersey at
 * {@code /api/*}. Public for Jersey; its annotations come from the class path, outside the module
 * the tests are compiled into (hence the suppressed lint warning).
 */
@SuppressWarnings("exports")
@Path("/")
public class LayeredResource {

    /** Creates the resource (Jersey does). */
    public LayeredResource() {
    }

    /** @return {@code open}: only the path-matched policies apply */
    @GET
    @Path("open")
    public String open() {
        return "open";
    }

    /** @return {@code limited}: the path-matched policies and {@code @RateLimited("per-user")} */
    @GET
    @Path("limited")
    @RateLimited("per-user")
    public String limited() {
        return "limited";
    }
}
