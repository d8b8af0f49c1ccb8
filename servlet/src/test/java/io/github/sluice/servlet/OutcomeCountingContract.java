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
     * {@code /async-throw} by going async, dispatching, and committing N then throwing in the
     * {@code ASYNC} dispatch, {@code /async-throw-early} by throwing there before anything is
     * committed, {@code /timeout} by letting its async request time out.
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
            if (uri.endsWith("/async-throw") || uri.endsWith("/async-throw-early")) {
                if (req.getDispatcherType() == jakarta.servlet.DispatcherType.REQUEST) {
                    req.startAsync().dispatch();
                    return;
                }
                if (uri.endsWith("/async-throw-early")) {
                    throw new IllegalStateException("thrown by an async dispatch before the commit on purpose");
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
        deploy(charge, 100);
    }

    void deploy(String charge, int inFlight) throws Exception {
        enforcer = enforcer(Enforcer.builder().policies("login = fixed-window 3/1h key=global " + charge + "\n"
                + "inflight = concurrency " + inFlight + " key=global"), false);
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

    /**
     * An async dispatch that throws after its response was committed: the container ends the
     * request one way or another (Tomcat reports the exception to {@code onError}; Jetty 12 did not
     * end such a request at all, so its concurrency permit stayed held), and the reservation is
     * settled once, with the committed status.
     */
    @Test
    void asyncDispatchThrowingAfterTheCommit_countsTheCommittedStatus() throws Exception {
        deploy("count=401");
        send("/api/async-throw?code=401");
        assertEquals(1, charged());
        send("/api/async-throw?code=200");
        assertEquals(1, charged());
    }

    @Test
    void asyncDispatchThrowingBeforeTheCommit_countsAs500() throws Exception {
        deploy("count=5xx");
        send("/api/async-throw-early");
        assertEquals(1, charged());
        assertEquals(200, send("/api/login"));
        assertEquals(1, charged());
    }

    /**
     * The attacker's move against a container that loses such requests: async requests whose
     * {@code ASYNC} dispatch throws after the commit, one after another, against a concurrency
     * policy of one. Each must give its permit back when it ends, or the next is refused and an
     * honest client after them too.
     */
    @Test
    void asyncDispatchesThrowingAfterTheCommit_oneAfterAnother_neverExhaustAConcurrencyPolicy() throws Exception {
        deploy("count=401", 1);
        for (int i = 0; i < 3; i++) {
            int status = send("/api/async-throw?code=200");
            org.junit.jupiter.api.Assertions.assertNotEquals(429, status, "request " + i + " refused: a permit leaked");
            Permits.awaitHeld(enforcer, "inflight", "global", 0, SETTLE);
        }
        assertEquals(200, send("/api/login?code=200"), "an honest client after them");
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
