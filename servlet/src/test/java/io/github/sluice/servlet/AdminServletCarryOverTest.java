package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.Inheritance;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SluiceAdminServlet} while a changed policy carries its keys over: a reset answers 200 and
 * lifts the limit (it answered 501 "cannot reset keys"), a read creates no state, and the listing
 * shows the reloaded policy (it showed the first version). The servlet is called directly, with
 * stand-ins for the container's objects, on a frozen clock.
 */
class AdminServletCarryOverTest {

    private static final String ATTRIBUTE = SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX + "sluice";

    private final FakeClock clock = new FakeClock();
    private final ShardedRegistry registry = ShardedRegistry.builder().clock(clock).shards(4).build();
    private final Enforcer enforcer = Enforcer.builder().store(registry).listener(EnforcementListener.NONE)
            .policies("per-ip = fixed-window 5/1h key=ip").build();
    private final FakeRequest client = FakeRequest.get("/").peer("192.0.2.1");
    private final SluiceAdminServlet servlet = new SluiceAdminServlet();

    /** A response's status and body. */
    private record Answer(int status, String body) {
    }

    @BeforeEach
    void startServletAndChangeThePolicy() throws Exception {
        ServletContext context = proxy(ServletContext.class, (name, args) -> switch (name) {
            case "getAttributeNames" -> Collections.enumeration(List.of(ATTRIBUTE));
            case "getAttribute" -> ATTRIBUTE.equals(args[0]) ? enforcer : null;
            default -> null;
        });
        servlet.init(proxy(ServletConfig.class, (name, args) -> switch (name) {
            case "getServletContext" -> context;
            case "getServletName" -> "admin";
            default -> null;
        }));
        // A client spends its 5 of 5/h, then the limit changes to 6/h: carry-over is under way
        assertEquals(5, admit(6));
        clock.advance(Duration.ofMinutes(1));
        enforcer.reconfigure("per-ip = fixed-window 6/1h key=ip", Inheritance.KEEP_CONSUMED);
    }

    private int admit(int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            if (enforcer.enforce(client).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, java.util.function.BiFunction<String, Object[], Object> answer) {
        return (T) Proxy.newProxyInstance(AdminServletCarryOverTest.class.getClassLoader(), new Class<?>[] {type},
                (p, m, args) -> m.getName().equals("toString") ? type.getSimpleName()
                        : m.getName().equals("hashCode") ? System.identityHashCode(p)
                        : m.getName().equals("equals") ? (Object) (p == args[0])
                        : answer.apply(m.getName(), args));
    }

    private Answer call(String method, String path, Map<String, String> params) throws Exception {
        HttpServletRequest request = proxy(HttpServletRequest.class, (name, args) -> switch (name) {
            case "getMethod" -> method;
            case "getPathInfo" -> path;
            case "getParameter" -> params.get((String) args[0]);
            case "getParameterValues" -> params.containsKey((String) args[0]) ? new String[] {params.get((String) args[0])} : null;
            default -> null;
        });
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        ServletOutputStream out = new ServletOutputStream() {
            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void write(int b) {
                body.write(b);
            }
        };
        int[] status = {200};
        HttpServletResponse response = proxy(HttpServletResponse.class, (name, args) -> {
            if (name.equals("setStatus")) {
                status[0] = (Integer) args[0];
            }
            return name.equals("getOutputStream") ? out : null;
        });
        if (method.equals("DELETE")) {
            servlet.doDelete(request, response);
        } else {
            servlet.doGet(request, response);
        }
        return new Answer(status[0], body.toString(StandardCharsets.UTF_8));
    }

    @Test
    void deleteKey_duringCarryOver_answers200_andTheClientIsAdmittedAfterwards() throws Exception {
        assertEquals(1, admit(2), "6/h less the 5 it used");

        Answer reset = call("DELETE", "/keys", Map.of("key", "192.0.2.1"));

        assertEquals(200, reset.status(), reset.body());
        assertEquals("{\"key\":\"192.0.2.1\",\"reset\":[\"per-ip\"]}", reset.body());
        assertEquals(6, admit(7));
    }

    @Test
    void deleteKeyOfAKeyNotBackYet_duringCarryOver_liftsTheOldState() throws Exception {
        Answer reset = call("DELETE", "/keys", Map.of("key", "192.0.2.1", "policy", "per-ip"));

        assertEquals(200, reset.status(), reset.body());
        assertTrue(reset.body().contains("\"reset\":[\"per-ip\"]"), reset.body());
        assertEquals(6, admit(7));
    }

    @Test
    void getKey_duringCarryOver_readsTheCarriedState_andCreatesNoState() throws Exception {
        long keys = enforcer.metrics().policy("per-ip").keys();

        Answer read = call("GET", "/keys", Map.of("key", "192.0.2.1"));

        assertEquals(200, read.status(), read.body());
        assertTrue(read.body().contains("\"limit\":6,\"remaining\":1"), read.body());
        assertEquals(keys, enforcer.metrics().policy("per-ip").keys(), "a read keeps nothing");
        assertEquals(1, admit(2), "the client is decided as the read said");
    }

    @Test
    void getPolicies_afterAReload_listsTheVersionInForce() throws Exception {
        Answer policies = call("GET", "/policies", Map.of());

        assertEquals(200, policies.status(), policies.body());
        assertTrue(policies.body().contains("\"policy\":\"per-ip = fixed-window 6/1h key=ip\""), policies.body());
        assertTrue(policies.body().contains("\"limit\":6"), policies.body());
        assertFalse(policies.body().contains("5/1h"), policies.body());
        assertTrue(policies.body().contains("\"allowed\":5"), "the counters of the name are kept: " + policies.body());
    }
}
