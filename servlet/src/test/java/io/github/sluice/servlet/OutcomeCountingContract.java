package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.http.Enforcer;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Counting by outcome through the servlet filter on a real container: the final status of every
 * ending (sync, async, exception before and after the commit, async timeout) keeps or refunds the
 * request's reservation as docs/servlet.md says. Each request also holds a permit of a roomy
 * concurrency policy listed after the counting one: the release settles the reservation first, so
 * once that permit is back the counting policy's state is final.
 */
abstract class OutcomeCountingContract extends ContainerContract {

    private static final Duration SETTLE = Duration.ofSeconds(10);

    OutcomeCountingContract(Container container) {
        super(container);
    }

    /**
     * Answers {@code ?code=N} with status N: at once, {@code /async} from another thread,
     * {@code /throw} by throwing, {@code /commit-throw} by committing N and then throwing,
     * {@code /timeout} by letting its async request time out.
     */
    static final class Answers extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
            String uri = req.getRequestURI();
            String code = req.getParameter("code");
            int status = code == null ? 200 : Integer.parseInt(code);
            if (uri.endsWith("/throw")) {
                throw new IllegalStateException("thrown by the application on purpose");
            }
            if (uri.endsWith("/commit-throw")) {
                res.setStatus(status);
                res.getWriter().write("committed");
                res.flushBuffer();
                throw new IllegalStateException("thrown after the commit on purpose");
            }
            if (uri.endsWith("/async-throw")) {
                if (req.getDispatcherType() == jakarta.servlet.DispatcherType.REQUEST) {
                    req.startAsync().dispatch();
                    return;
                }
                res.setStatus(status);
                res.getWriter().write("committed");
                res.flushBuffer();
                throw new IllegalStateException("thrown after the commit of an async dispatch on purpose");
            }
            if (uri.endsWith("/timeout")) {
                req.startAsync().setTimeout(100);
                return;
            }
            if (uri.endsWith("/async")) {
                AsyncContext async = req.startAsync();
                async.start(() -> {
                    try {
                        HttpServletResponse r = (HttpServletResponse) async.getResponse();
                        r.setStatus(status);
                        r.getWriter().write("async");
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    } finally {
                        async.complete();
                    }
                });
                return;
            }
            res.setStatus(status);
            res.getWriter().write("answered");
        }
    }

    private RunningServer server;
    private Enforcer enforcer;

    void deploy(String charge) throws Exception {
        enforcer = enforcer(Enforcer.builder().policies("login = fixed-window 3/1h key=global " + charge + "\n"
                + "inflight = concurrency 100 key=global"), false);
        server = start(Deployment.of(new SluiceFilter(enforcer), new Answers()));
    }

    int send(String target) {
        try {
            return Http.get(server.uri(target)).statusCode();
        } catch (UncheckedIOException reset) {
            return -1; // a container may reset a connection whose response failed after the commit
        }
    }

    /** @return the permits the counting policy has charged, once the last request has ended */
    long charged() {
        Permits.awaitHeld(enforcer, "inflight", "global", 0, SETTLE);
        return Permits.held(enforcer, "login", "global");
    }

    @Test
    void rightAnswersNeverSpend_theFourthAfterThreeWrongIsRefused() throws Exception {
        deploy("count=401");
        for (int i = 0; i < 10; i++) {
            assertEquals(200, send("/api/login"));
        }
        assertEquals(0, charged());
        for (int i = 0; i < 3; i++) {
            assertEquals(401, send("/api/login?code=401"));
        }
        assertEquals(3, charged());
        HttpResponse<String> fourth = Http.get(server.uri("/api/login"));
        assertEquals(429, fourth.statusCode(), "refused whatever its password");
    }

    @Test
    void exceptionBeforeTheCommit_countsAs500() throws Exception {
        deploy("count=5xx");
        assertEquals(500, send("/api/throw"));
        assertEquals(1, charged());
        assertEquals(200, send("/api/login"));
        assertEquals(1, charged());
    }

    @Test
    void exceptionBeforeTheCommit_isNotAFailedLogin() throws Exception {
        deploy("count=401");
        assertEquals(500, send("/api/throw"));
        assertEquals(0, charged());
    }

    @Test
    void exceptionAfterTheCommit_countsTheCommittedStatus() throws Exception {
        deploy("count=401");
        send("/api/commit-throw?code=401");
        assertEquals(1, charged());
        send("/api/commit-throw?code=200");
        assertEquals(1, charged());
    }

    @Test
    void asyncCompletion_countsItsFinalStatus() throws Exception {
        deploy("count=401");
        assertEquals(200, send("/api/async?code=200"));
        assertEquals(0, charged());
        assertEquals(401, send("/api/async?code=401"));
        assertEquals(1, charged());
    }

    @Test
    void asyncTimeout_countsAs504() throws Exception {
        deploy("skip=5xx");
        send("/api/timeout");
        assertEquals(0, charged(), "a server error is not charged to the client");
        assertEquals(200, send("/api/login"));
        assertEquals(1, charged());
    }
}
