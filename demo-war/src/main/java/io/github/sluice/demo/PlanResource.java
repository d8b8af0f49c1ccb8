package io.github.sluice.demo;

import io.github.sluice.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/plan}: limited by the {@code per-plan} policy, per {@code X-Api-Key}, by the
 * key's plan, each window opened by the key's first request: keys starting with {@code pro-} are
 * plan {@code pro}, 20 per minute; every other key is plan {@code free}, 5 per minute; the key
 * {@code partner-1} has a contract of 50 per minute (see {@link Plans}). {@code RateLimit-Policy}
 * names the plan: {@code "per-plan.free";q=5;w=60}, {@code "per-plan.pro";q=20;w=60},
 * {@code "per-plan.override";q=50;w=60}.
 */
@Path("plan")
@RateLimited("per-plan")
public class PlanResource {

    /**
     * @param key the caller's API key
     * @return which plan the key is on
     */
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String plan(@HeaderParam("X-Api-Key") String key) {
        return "Hello, " + key + ": your plan is " + (Plans.contractOf(key) != null ? "a contract"
                : Plans.PLAN_OF_KEY.apply(key)) + ".\n";
    }
}
