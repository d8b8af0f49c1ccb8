package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.http.Enforcer;
import io.github.sluice.key.KeyResolvers;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An adaptive policy learns how each request ended, on a real container: an AIMD policy backs off
 * when the application answers 503 (a drop by default) or its async requests time out, and not
 * when it answers 200 or throws (an exception teaches nothing). The responses are instant on a
 * frozen clock, so only the drop signal can move the limit; the limit is read where a client
 * reads it, in the next response's {@code RateLimit-Policy} {@code q}.
 */
abstract class AdaptiveDropContract extends ContainerContract {

    /** One batch per five requests; the latency objective is never reached on a frozen clock. */
    private static final String AIMD = "api = adaptive aimd min=1 max=100 initial=10 latency=5s samples=5 key=global";

    AdaptiveDropContract(Container container) {
        super(container);
    }

    /** Answers with the status {@code ?status=N}, times out ({@code /timeout}) or throws ({@code /throw}). */
    static final class Answers extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
            String uri = req.getRequestURI();
            if (uri.endsWith("/throw")) {
                throw new IllegalStateException("thrown by the application on purpose");
            }
            if (uri.endsWith("/timeout")) {
                req.startAsync().setTimeout(100);
                return;
            }
            String status = req.getParameter("status");
            res.setStatus(status == null ? 200 : Integer.parseInt(status));
            res.getWriter().write("answered");
        }
    }

    private long limitAfterFive(String policies, String target) throws Exception {
        Enforcer enforcer = enforcer(Enforcer.builder().policies(policies), false); // adaptive: on the frozen clock
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer), new Answers()));
        for (int i = 0; i < 5; i++) {
            Http.get(server.uri(target));
        }
        // The release of the fifth may land just after its response reaches the client.
        Permits.awaitHeld(enforcer, "api", KeyResolvers.GLOBAL, 0, Duration.ofSeconds(10));
        HttpResponse<String> next = Http.get(server.uri("/api/x"));
        String field = next.headers().firstValue("RateLimit-Policy").orElseThrow();
        return Long.parseLong(field.replaceAll(".*;q=([0-9]+).*", "$1"));
    }

    @Test
    void application503s_backOffTheLimit() throws Exception {
        assertEquals(9, limitAfterFive(AIMD, "/api/x?status=503"));
    }

    @Test
    void application200s_doNotBackOff() throws Exception {
        assertEquals(10, limitAfterFive(AIMD, "/api/x?status=200"));
    }

    @Test
    void application503s_withDropNone_doNotBackOff() throws Exception {
        assertEquals(10, limitAfterFive(AIMD + " drop=none", "/api/x?status=503"));
    }

    @Test
    void asyncTimeouts_backOffTheLimit_whateverTheDropStatuses() throws Exception {
        assertEquals(9, limitAfterFive(AIMD + " drop=none", "/api/timeout"));
    }

    @Test
    void exceptions_teachNothing() throws Exception {
        assertEquals(10, limitAfterFive(AIMD + " drop=5xx", "/api/throw"));
    }
}
