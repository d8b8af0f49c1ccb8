package io.github.sluice.demo;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /api/hello}: limited by the {@code per-key} policy. */
@Path("hello")
public class HelloResource {

    /** @return a greeting */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String hello() {
        return "Hello from a JAX-RS resource behind the Sluice feature.\n";
    }
}
