package io.github.sluice.jaxrs;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

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
