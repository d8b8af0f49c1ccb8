package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What clients see: rate-limit headers on allowed and denied responses, Retry-After, denial bodies. */
abstract class ResponseContract extends ContainerContract {

    ResponseContract(Container container) {
        super(container);
    }

    @Test
    void allowed_response_carriesRateLimitHeaders() throws Exception {
        // Given a token bucket of 2 per minute per client address
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(
                "per-ip = token-bucket 2/1m key=ip match=/api/*")), app));

        // When a request passes
        HttpResponse<String> ok = Http.get(server.uri("/api/ok"));

        // Then the application answered, with the policy and the quota left
        assertEquals(200, ok.statusCode());
        assertEquals("ok", ok.body());
        assertEquals("\"per-ip\";q=2;w=60", ok.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertEquals("\"per-ip\";r=1;t=30", ok.headers().firstValue("RateLimit").orElseThrow());
        assertFalse(ok.headers().firstValue("Retry-After").isPresent());
    }

    @Test
    void filterMappedThrice_behindAWrapper_decidesEachRequestOnce() throws Exception {
        // Given the same filter mapped on /*, then behind a filter that wraps the request, on
        // /api/* and on the servlet's name (Jetty calls it three times per dispatch), 2 per minute
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(
                "per-ip = token-bucket 2/1m key=ip match=/api/*")), app).withFilterMappedThrice());

        // When three requests pass one after the other
        HttpResponse<String> first = Http.get(server.uri("/api/ok"));
        HttpResponse<String> second = Http.get(server.uri("/api/ok"));
        HttpResponse<String> third = Http.get(server.uri("/api/ok"));

        // Then each was decided once: two admitted with one RateLimit field each, the third refused
        assertEquals(200, first.statusCode());
        assertEquals(List.of("\"per-ip\";r=1;t=30"), first.headers().allValues("RateLimit"));
        assertEquals(200, second.statusCode());
        assertEquals(List.of("\"per-ip\";r=0;t=60"), second.headers().allValues("RateLimit"));
        assertEquals(429, third.statusCode());
    }

    @ParameterizedTest
    @ValueSource(strings = {"redispatch", "redispatch-later"})
    void requestDispatchedAgainByTheApplication_isDecidedOnce(String scenario) throws Exception {
        // Given 2 per minute, and an application that goes async and dispatches the request again,
        // in the same dispatch or from another thread racing the end of the first dispatch
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(
                "per-ip = token-bucket 2/1m key=ip match=/api/*")), app));

        // When three requests pass one after the other
        HttpResponse<String> first = Http.get(server.uri("/api/" + scenario));
        HttpResponse<String> second = Http.get(server.uri("/api/" + scenario));
        HttpResponse<String> third = Http.get(server.uri("/api/" + scenario));

        // Then the ASYNC dispatch of each passed through: two admitted with one RateLimit field
        // each (the one set in the REQUEST dispatch), the third refused
        assertEquals("ASYNC", first.body());
        assertEquals(List.of("\"per-ip\";r=1;t=30"), first.headers().allValues("RateLimit"));
        assertEquals("ASYNC", second.body());
        assertEquals(List.of("\"per-ip\";r=0;t=60"), second.headers().allValues("RateLimit"));
        assertEquals(429, third.statusCode());
    }

    @Test
    void synchronousRequest_carriesNoAttributeOfTheFilter_andIsStillDecidedOnce() throws Exception {
        // Given the filter mapped three times (the per-thread note, not an attribute, passes the
        // repeats), 2 per minute
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(
                "per-ip = token-bucket 2/1m key=ip match=/api/*")), app).withFilterMappedThrice());

        // When a request that does not go async asks the application for Sluice's attributes
        HttpResponse<String> r = Http.get(server.uri("/api/attributes"));

        // Then there is none (a container may charge for a request's first attribute), and the
        // request was decided once
        assertEquals(200, r.statusCode());
        assertEquals("", r.body());
        assertEquals(List.of("\"per-ip\";r=1;t=30"), r.headers().allValues("RateLimit"));
    }

    @Test
    void denied_response_is429WithRetryAfterHeadersAndProblemBody_andSkipsTheApplication() throws Exception {
        // Given a token bucket of 2 per minute, emptied by two requests
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(
                "per-ip = token-bucket 2/1m key=ip match=/api/*")), app));
        Http.get(server.uri("/api/ok"));
        Http.get(server.uri("/api/ok"));

        // When a third request asks for a path whose application would throw
        HttpResponse<String> denied = Http.get(server.uri("/api/throw"));

        // Then it is refused before the application runs (no 500), with everything a client needs
        assertEquals(429, denied.statusCode());
        assertEquals("30", denied.headers().firstValue("Retry-After").orElseThrow());
        assertEquals("\"per-ip\";q=2;w=60", denied.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertEquals("\"per-ip\";r=0;t=30", denied.headers().firstValue("RateLimit").orElseThrow());
        assertEquals("application/problem+json", denied.headers().firstValue("Content-Type").orElseThrow());
        assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\",\"title\":\"Request cannot be satisfied as assigned quota has been exceeded\",\"status\":429,"
                + "\"detail\":\"Rate limit exceeded for policy 'per-ip'; retry after 30 seconds.\","
                + "\"violated-policies\":[\"per-ip\"]}", denied.body());
        assertEquals(Long.toString(denied.body().length()),
                denied.headers().firstValue("Content-Length").orElseThrow());
    }

    @Test
    void denied_withInitParams_writesCustomBodyStatusAndHeaderStyle() throws Exception {
        // Given a filter configured by init-params: 1 per minute, status 503, a fixed text body, X- headers
        RunningServer server = start(Deployment.ofInitParams(Map.of(
                "policies", "per-ip = fixed-window 1/1m key=ip status=503",
                "headers", "x-ratelimit",
                "denial-body", "Slow down, please.",
                "denial-content-type", "text/plain; charset=utf-8",
                "listener", "none"), app));
        assertEquals(200, Http.get(server.uri("/api/ok")).statusCode());

        // When the second request arrives within the minute
        HttpResponse<String> denied = Http.get(server.uri("/api/ok"));

        // Then it gets the configured status, body and header style
        assertEquals(503, denied.statusCode());
        assertEquals("Slow down, please.", denied.body());
        assertEquals("text/plain;charset=utf-8",
                denied.headers().firstValue("Content-Type").orElseThrow().replace(" ", ""));
        assertEquals("1", denied.headers().firstValue("X-RateLimit-Limit").orElseThrow());
        assertEquals("0", denied.headers().firstValue("X-RateLimit-Remaining").orElseThrow());
        assertTrue(denied.headers().firstValue("Retry-After").isPresent());
        assertFalse(denied.headers().firstValue("RateLimit").isPresent());
    }

    @Test
    void initParams_configFileOnTheFileSystem_isLoaded() throws Exception {
        // Given a filter whose policies come from a properties file named by an absolute path
        Path file = Path.of("src", "test", "resources", "sluice-file.properties").toAbsolutePath();
        RunningServer server = start(Deployment.ofInitParams(Map.of("config", file.toString()), app));

        // When two requests carry the same API key
        HttpResponse<String> first = Http.get(server.uri("/api/ok"), "X-Api-Key", "k1");
        HttpResponse<String> second = Http.get(server.uri("/api/ok"), "X-Api-Key", "k1");

        // Then the file's policy (1 per minute per key) and its header style apply
        assertEquals(200, first.statusCode());
        assertEquals("1", first.headers().firstValue("X-RateLimit-Limit").orElseThrow());
        assertEquals(429, second.statusCode());
        assertEquals("Too many requests for this API key.", second.body());
    }

    @Test
    void earlyCommit_byTheApplication_stillCarriesHeaders() throws Exception {
        // Given a policy in front of an application that flushes a large body before returning
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(
                "per-ip = token-bucket 5/1m key=ip")), app));

        // When it is called
        HttpResponse<String> ok = Http.get(server.uri("/api/flush"));

        // Then the headers were set before the response was committed
        assertEquals(200, ok.statusCode());
        assertEquals(64 * 1024, ok.body().length());
        assertEquals("\"per-ip\";r=4;t=12", ok.headers().firstValue("RateLimit").orElseThrow());
    }

    @Test
    void noPolicyApplies_passesThroughWithoutHeaders() throws Exception {
        // Given a policy for /api/admin/* only
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(
                "admin = token-bucket 1/1m key=ip match=/api/admin/*")), app));

        // When other paths are requested again and again
        HttpResponse<String> last = null;
        for (int i = 0; i < 3; i++) {
            last = Http.get(server.uri("/api/ok"));
        }

        // Then they are neither limited nor annotated, while the admin path is
        assertEquals(200, last.statusCode());
        assertFalse(last.headers().firstValue("RateLimit").isPresent());
        assertEquals(200, Http.get(server.uri("/api/admin/ok")).statusCode());
        assertEquals(429, Http.get(server.uri("/api/admin/ok")).statusCode());
    }

    @Test
    void denied_whenTheClientHasGone_isWrittenWithoutThrowing() throws Exception {
        // Given a filter in front of which the response's body cannot be written (the client reset it)
        SluiceFilter sluice = new SluiceFilter(enforcer("per-ip = token-bucket 1/1m key=ip"));
        AtomicReference<Throwable> escaped = new AtomicReference<>();
        Filter brokenPipe = new Filter() {
            @Override
            public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) {
                try {
                    sluice.doFilter(req, new BrokenBody((HttpServletResponse) res), chain);
                } catch (IOException | ServletException | RuntimeException e) {
                    escaped.set(e);
                }
            }
        };
        RunningServer server = start(Deployment.of(brokenPipe, app));
        assertEquals(204, Http.get(server.uri("/api/empty")).statusCode());

        // When a request is denied
        HttpResponse<String> denied = Http.get(server.uri("/api/empty"));

        // Then the status and headers went out and nothing escaped the filter
        assertNull(escaped.get());
        assertEquals(429, denied.statusCode());
        assertTrue(denied.headers().firstValue("Retry-After").isPresent());
    }

    /** A response whose body stream fails like a connection the client has reset. */
    private static final class BrokenBody extends HttpServletResponseWrapper {
        BrokenBody(HttpServletResponse response) {
            super(response);
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            throw new IOException("Connection reset by peer");
        }
    }
}
