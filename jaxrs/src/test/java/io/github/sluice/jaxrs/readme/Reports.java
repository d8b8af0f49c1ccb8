package io.github.sluice.jaxrs.readme;

import io.github.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

/** The resource of the README's JAX-RS quick start, run by {@code QuickStartTest}. */
// README: resource (begin)
@Path("/api/reports")
public class Reports {

    @GET
    public String list() {
        return "[]";
    }

    @POST
    @Path("export")
    @RateLimited("exports")
    public String export() {
        return "queued";
    }
}
// README: resource (end)
