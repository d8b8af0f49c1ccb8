package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeClock;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the filter tells the dispatch it decides from the ones it lets pass, over requests and
 * responses that record what the filter asks of them: the per-thread flag of the dispatch being
 * decided (the filter met again on its thread), the attribute left for a later ASYNC dispatch,
 * and what must not stick to the thread once a dispatch is over, however it ended. The
 * same rules in real containers: {@code ResponseContract}.
 */
class DecidedOnceTest {

    private final Enforcer enforcer = Enforcer.builder().policies("per-ip = fixed-window 100/1m key=ip")
            .clock(new FakeClock()).listener(EnforcementListener.NONE).build();
    private final SluiceFilter filter = new SluiceFilter(enforcer);

    @AfterEach
    void close() {
        enforcer.close();
    }

    @Test
    void theSameRequestMetAgainInItsDispatch_underAWrapper_passesThrough() throws Exception {
        Exchange a = new Exchange(DispatcherType.REQUEST);
        filter.doFilter(a.request, a.response, (req, res) ->
                filter.doFilter(new HttpServletRequestWrapper((HttpServletRequest) req), res,
                        (req2, res2) -> filter.doFilter(req2, res2, (req3, res3) -> { })));

        assertEquals(List.of("\"per-ip\";r=99;t=60"), a.fields("RateLimit"));
        assertEquals(1, decisionsSoFar());
    }

    @Test
    void anotherRequestObject_inTheChainOnItsThread_belongsToTheDecidedOne_andPasses() throws Exception {
        // Only the application can run another request object through the filter inside a
        // dispatch (a container starts no other request on a thread that is in a chain): that
        // call is part of the request being decided, and is not counted a second time.
        Exchange a = new Exchange(DispatcherType.REQUEST);
        Exchange b = new Exchange(DispatcherType.REQUEST);
        boolean[] ran = {false};
        filter.doFilter(a.request, a.response, (req, res) -> {
            filter.doFilter(b.request, b.response, (req2, res2) -> ran[0] = true);
            filter.doFilter(req, res, (req2, res2) -> { }); // a again: passes
        });

        assertTrue(ran[0]);
        assertEquals(List.of("\"per-ip\";r=99;t=60"), a.fields("RateLimit"));
        assertTrue(b.fields("RateLimit").isEmpty(), b.fields("RateLimit").toString());
        assertEquals(1, decisionsSoFar());
    }

    @Test
    void theSameRequestObject_inItsNextDispatch_onTheSameThread_isDecidedAgain() throws Exception {
        // A container recycles its request objects: once a dispatch is over, the flag is down.
        Exchange a = new Exchange(DispatcherType.REQUEST);
        filter.doFilter(a.request, a.response, (req, res) -> filter.doFilter(req, res, (req2, res2) -> { }));
        filter.doFilter(a.request, a.response, (req, res) -> { });

        assertEquals(List.of("\"per-ip\";r=99;t=60", "\"per-ip\";r=98;t=60"), a.writes("RateLimit"));
    }

    @Test
    void anotherSluiceFilter_inTheChain_decidesTheRequestItself_andMeetingEitherAgainPasses() throws Exception {
        // The flag is each filter's own: two Sluice filters on one chain decide a request each.
        Enforcer other = Enforcer.builder().policies("other = fixed-window 10/1m key=ip")
                .clock(new FakeClock()).listener(EnforcementListener.NONE).build();
        try {
            SluiceFilter second = new SluiceFilter(other);
            Exchange a = new Exchange(DispatcherType.REQUEST);
            filter.doFilter(a.request, a.response, (req, res) -> second.doFilter(req, res,
                    (req2, res2) -> filter.doFilter(req2, res2,
                            (req3, res3) -> second.doFilter(req3, res3, (req4, res4) -> { }))));

            // Then each filter counted the request once: a probe through the second one sees 8 left
            assertEquals(1, decisionsSoFar());
            Exchange probe = new Exchange(DispatcherType.REQUEST);
            second.doFilter(probe.request, probe.response, (req, res) -> { });
            assertEquals(List.of("\"other\";r=8;t=60"), probe.fields("RateLimit"));
        } finally {
            other.close();
        }
    }

    @Test
    void onAnotherThread_duringTheChain_theFilterDecides() throws Exception {
        // The flag is the deciding thread's: a request on another thread meanwhile is its own.
        Exchange a = new Exchange(DispatcherType.REQUEST);
        Exchange b = new Exchange(DispatcherType.REQUEST);
        filter.doFilter(a.request, a.response, (req, res) -> {
            Thread t = new Thread(() -> {
                try {
                    filter.doFilter(b.request, b.response, (req2, res2) -> { });
                } catch (IOException | ServletException e) {
                    throw new IllegalStateException(e);
                }
            });
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });

        assertEquals(List.of("\"per-ip\";r=99;t=60"), a.fields("RateLimit"));
        assertEquals(List.of("\"per-ip\";r=98;t=60"), b.fields("RateLimit"));
    }

    @Test
    void aChainThatThrew_leavesNothingOnTheThread_theSameRequestObjectIsDecidedAgainLater() throws Exception {
        // A container recycles its request objects: the next request on this thread may be the
        // very same object, and must be decided.
        Exchange a = new Exchange(DispatcherType.REQUEST);
        FilterChain throwing = (req, res) -> {
            throw new ServletException("thrown by the chain on purpose");
        };
        assertThrows(ServletException.class, () -> filter.doFilter(a.request, a.response, throwing));
        assertThrows(IllegalStateException.class, () -> filter.doFilter(a.request, a.response, (req, res) -> {
            throw new IllegalStateException("thrown by the chain on purpose");
        }));
        filter.doFilter(a.request, a.response, (req, res) -> { });

        // (each decision writes its field; the response object is reused, as the request is)
        assertEquals(List.of("\"per-ip\";r=99;t=60", "\"per-ip\";r=98;t=60", "\"per-ip\";r=97;t=60"),
                a.writes("RateLimit"));
    }

    @Test
    void aRequestThatDidNotGoAsync_getsNoAttribute_oneThatDid_isMarkedForItsAsyncDispatch() throws Exception {
        Exchange sync = new Exchange(DispatcherType.REQUEST);
        filter.doFilter(sync.request, sync.response, (req, res) -> { });
        assertTrue(sync.attributes.isEmpty(), sync.attributes.toString());

        Exchange async = new Exchange(DispatcherType.REQUEST);
        filter.doFilter(async.request, async.response, (req, res) -> async.asyncStarted = true);
        assertEquals(1, async.attributes.size(), async.attributes.toString());

        // Its ASYNC dispatch passes through, and so does a second one
        async.type = DispatcherType.ASYNC;
        filter.doFilter(async.request, async.response, (req, res) -> { });
        filter.doFilter(async.request, async.response, (req, res) -> { });
        assertEquals(1, async.fields("RateLimit").size());
        assertEquals(2, decisionsSoFar());
    }

    @Test
    void aDecidedDispatch_readsTheAsyncStateOnce_forTheReleaseAndTheMarkAlike() throws Exception {
        // Given a concurrency policy, whose verdict holds a permit until the release
        Enforcer inflight = Enforcer.builder().policies("inflight = concurrency 1 key=global")
                .clock(new FakeClock()).listener(EnforcementListener.NONE).build();
        SluiceFilter f = new SluiceFilter(inflight);
        try {
            // When a request is decided, its chain returns synchronously, then the next one
            Exchange a = new Exchange(DispatcherType.REQUEST);
            f.doFilter(a.request, a.response, (req, res) -> { });
            Exchange b = new Exchange(DispatcherType.REQUEST);
            f.doFilter(b.request, b.response, (req, res) -> { });

            // Then each asked once, the permit went back (the second was admitted), and no mark
            assertEquals(1, a.asyncReads);
            assertEquals(1, b.asyncReads);
            assertEquals(List.of("\"inflight\";r=0"), b.fields("RateLimit"));
            assertTrue(a.attributes.isEmpty() && b.attributes.isEmpty());
        } finally {
            inflight.close();
        }
    }

    @Test
    void aRequestThatWentAsyncAndThrew_isStillMarked() {
        Exchange a = new Exchange(DispatcherType.REQUEST);
        assertThrows(IOException.class, () -> filter.doFilter(a.request, a.response, (req, res) -> {
            a.asyncStarted = true;
            throw new IOException("thrown by the chain on purpose");
        }));
        assertEquals(1, a.attributes.size());
    }

    @Test
    void theFirstDispatchSeenIsAsync_isDecided_andMarked_laterOnesPass() throws Exception {
        Exchange a = new Exchange(DispatcherType.ASYNC);
        filter.doFilter(a.request, a.response, (req, res) -> { });
        filter.doFilter(a.request, a.response, (req, res) -> { });
        assertEquals(List.of("\"per-ip\";r=99;t=60"), a.fields("RateLimit"));
        assertEquals(1, a.attributes.size());
    }

    @Test
    void forwardIncludeAndErrorDispatches_passUndecided() throws Exception {
        for (DispatcherType type : List.of(DispatcherType.FORWARD, DispatcherType.INCLUDE, DispatcherType.ERROR)) {
            Exchange a = new Exchange(type);
            boolean[] ran = {false};
            filter.doFilter(a.request, a.response, (req, res) -> ran[0] = true);
            assertTrue(ran[0], type.name());
            assertTrue(a.fields("RateLimit").isEmpty(), type.name());
        }
        assertEquals(0, decisionsSoFar());
    }

    /** The requests the policy has counted so far, read from a probe request's own field. */
    private int decisionsSoFar() throws Exception {
        Exchange probe = new Exchange(DispatcherType.REQUEST);
        filter.doFilter(probe.request, probe.response, (req, res) -> { });
        String field = probe.fields("RateLimit").get(0);
        int left = Integer.parseInt(field.substring(field.indexOf("r=") + 2, field.indexOf(";t=")));
        return 100 - 1 - left;
    }

    /** A request from 192.0.2.1 for {@code GET /x} and its response, recording what the filter does. */
    private static final class Exchange {
        DispatcherType type;
        boolean asyncStarted;
        /** How often the filter asked {@code isAsyncStarted()} (in Jetty, under the channel's lock). */
        int asyncReads;
        final Map<String, Object> attributes = new HashMap<>();
        final List<String[]> headers = new ArrayList<>();
        /** Every field written, in order, also those a later write replaced. */
        final List<String[]> written = new ArrayList<>();
        final HttpServletRequest request;
        final HttpServletResponse response;

        Exchange(DispatcherType type) {
            this.type = type;
            this.request = (HttpServletRequest) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {HttpServletRequest.class}, (proxy, m, args) -> switch (m.getName()) {
                        case "getDispatcherType" -> this.type;
                        case "isAsyncStarted" -> {
                            asyncReads++;
                            yield asyncStarted;
                        }
                        case "isAsyncSupported" -> true;
                        case "getAttribute" -> attributes.get((String) args[0]);
                        case "setAttribute" -> {
                            attributes.put((String) args[0], args[1]);
                            yield null;
                        }
                        case "getMethod" -> "GET";
                        case "getServletPath" -> "/x";
                        case "getRemoteAddr" -> "192.0.2.1";
                        case "getPathInfo", "getHeader", "getHeaders", "getUserPrincipal" -> null;
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
            this.response = (HttpServletResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {HttpServletResponse.class}, (proxy, m, args) -> switch (m.getName()) {
                        case "addHeader" -> {
                            headers.add(new String[] {(String) args[0], (String) args[1]});
                            written.add(new String[] {(String) args[0], (String) args[1]});
                            yield null;
                        }
                        case "setHeader" -> {
                            headers.removeIf(h -> h[0].equalsIgnoreCase((String) args[0]));
                            headers.add(new String[] {(String) args[0], (String) args[1]});
                            written.add(new String[] {(String) args[0], (String) args[1]});
                            yield null;
                        }
                        case "getHeader" -> fields((String) args[0]).stream().findFirst().orElse(null);
                        case "getHeaders" -> fields((String) args[0]);
                        case "getStatus" -> 200;
                        case "isCommitted" -> false;
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }

        List<String> fields(String name) {
            return headers.stream().filter(h -> h[0].equals(name)).map(h -> h[1]).toList();
        }

        List<String> writes(String name) {
            return written.stream().filter(h -> h[0].equals(name)).map(h -> h[1]).toList();
        }
    }
}
