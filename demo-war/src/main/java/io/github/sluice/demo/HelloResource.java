package io.github.sluice.demo;

import io.github.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/hello}: limited by the {@code per-key} policy, 5 requests per 10 s per
 * {@code X-Api-Key}, or per client address without one.
 */
@Path("hello")
@RateLimited("per-key")
public class HelloResource {

    /** @return a greeting */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String hello() {
        return "Hello from a JAX-RS resource behind the Sluice feature.\n";
    }
}
