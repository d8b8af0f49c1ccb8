package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.http.Enforcer;
import io.github.sluice.jaxrs.SluiceFeature;
import io.github.sluice.testing.MergedFields;
import io.github.sluice.testing.StructuredFields.Item;
import java.net.http.HttpResponse;
import java.util.List;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter on {@code /*} in front of Jersey with the JAX-RS feature (its path stage and
 * its {@code @RateLimited} stage), two enforcers on one request: the client gets one
 * {@code RateLimit-Policy} line and one {@code RateLimit} line listing every layer's policies,
 * admitted or refused (docs/configuration.md, "Two layers on one request"). Jersey 3 here; the
 * javax build runs it with Jersey 2 on Jetty 10 and Tomcat 9.
 */
abstract class TwoLayersContract extends ContainerContract {

    /** The policy {@link LayeredResource} names in {@code @RateLimited}. */
    private static final String PER_USER = "per-user = fixed-window 2/1m key=global match=none";

    private RunningServer server;

    TwoLayersContract(Container container) {
        super(container);
    }

    private void deploy(String filterPolicies, String featurePolicies) throws Exception {
        Enforcer filter = enforcer(filterPolicies);
        Enforcer feature = enforcer(featurePolicies);
        ResourceConfig app = new ResourceConfig().register(LayeredResource.class).register(new SluiceFeature(feature));
        server = start(Deployment.of(new SluiceFilter(filter), new ServletContainer(app)));
    }

    private void deploy() throws Exception {
        deploy("inflight = concurrency 10 key=global",
                "jaxrs-all = fixed-window 100/1m key=global\n" + PER_USER);
    }

    private HttpResponse<String> get(String path) {
        return Http.get(server.uri(path));
    }

    private static List<Item> merged(HttpResponse<String> r, List<String> policies, boolean refused) {
        return MergedFields.assertMerged(name -> r.headers().allValues(name), policies, refused);
    }

    @Test
    void filterAndPathStage_admitted_oneLineEach_withBoth() throws Exception {
        deploy();

        HttpResponse<String> r = get("/api/open");

        assertEquals(200, r.statusCode());
        merged(r, List.of("inflight", "jaxrs-all"), false);
        assertEquals("\"inflight\";q=10;qu=\"concurrent-requests\", \"jaxrs-all\";q=100;w=60",
                r.headers().firstValue("RateLimit-Policy").orElseThrow());
    }

    @Test
    void filterAndBothJaxRsStages_admitted_oneLineEach_withAllThree() throws Exception {
        deploy();

        HttpResponse<String> r = get("/api/limited");

        assertEquals(200, r.statusCode());
        List<Item> limit = merged(r, List.of("inflight", "jaxrs-all", "per-user"), false);
        assertEquals("per-user", limit.get(0).value(), "closest to exhaustion first: 1 of 2 left");
    }

    @Test
    void resourceStageRefuses_oneLineEach_withEveryLayer_andOneRetryAfter() throws Exception {
        deploy();
        get("/api/limited");
        get("/api/limited");

        HttpResponse<String> r = get("/api/limited");

        assertEquals(429, r.statusCode());
        List<Item> limit = merged(r, List.of("inflight", "jaxrs-all", "per-user"), true);
        assertEquals("per-user", limit.get(0).value(), "the refusing policy leads");
        assertEquals(0L, limit.get(0).param("r"));
    }

    @Test
    void pathStageRefuses_theFiltersPolicyStillListed() throws Exception {
        deploy("inflight = concurrency 10 key=global", "jaxrs-all = fixed-window 1/1m key=global\n" + PER_USER);
        get("/api/open");

        HttpResponse<String> r = get("/api/open");

        assertEquals(429, r.statusCode());
        merged(r, List.of("inflight", "jaxrs-all"), true);
    }

    /**
     * Both layers call a policy {@code per-ip}, with different quotas: the client sees one
     * {@code per-ip}, and {@code q} and {@code r} are the same layer's, the one that refuses first.
     */
    @Test
    void samePolicyNameInBothLayers_listedOnce_asTheLayerCloserToExhaustion() throws Exception {
        deploy("shared = fixed-window 3/1m key=global", "shared = fixed-window 100/1m key=global\n" + PER_USER);
        get("/api/open");

        HttpResponse<String> r = get("/api/open");

        List<Item> limit = merged(r, List.of("shared"), false);
        assertEquals("\"shared\";q=3;w=60", r.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertEquals(1L, limit.get(0).param("r"), "the filter's: 1 of 3 left, not 98 of 100");
    }
}
