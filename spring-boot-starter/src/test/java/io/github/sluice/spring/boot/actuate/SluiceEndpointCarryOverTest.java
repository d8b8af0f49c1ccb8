package io.github.sluice.spring.boot.actuate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.KeyState;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.Inheritance;
import io.github.sluice.store.ShardedRegistry;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code sluice} actuator endpoint while a changed policy carries its keys over: a reset
 * forgets the key (it failed with 500) and the client is admitted, a read creates no state, and
 * the listing describes the version in force (it showed the first one). Called directly, on a
 * frozen clock.
 */
class SluiceEndpointCarryOverTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    private final ShardedRegistry registry = ShardedRegistry.builder().clock(now::get).shards(4).build();
    private final Enforcer enforcer = Enforcer.builder().store(registry).listener(EnforcementListener.NONE)
            .policies("per-ip = fixed-window 5/1h key=ip").build();
    private final SluiceEndpoint endpoint = new SluiceEndpoint(enforcer,
            Map.of("per-ip", "fixed-window 5/1h key=ip"));

    /** A request from 192.0.2.1. */
    private static final RequestView CLIENT = new RequestView() {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/";
        }

        @Override
        public Iterator<String> headers(String name) {
            return Collections.emptyIterator();
        }

        @Override
        public String peerAddress() {
            return "192.0.2.1";
        }

        @Override
        public String principal() {
            return null;
        }

        @Override
        public Object attribute(String name) {
            return null;
        }
    };

    private int admit(int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            if (enforcer.enforce(CLIENT).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    /** A client spent its 5 of 5/h, then the limit changed to 6/h: carry-over is under way. */
    private void spendThenChange() {
        assertEquals(5, admit(6));
        now.addAndGet(60_000_000_000L);
        enforcer.reconfigure("per-ip = fixed-window 6/1h key=ip status=503", Inheritance.KEEP_CONSUMED);
    }

    @Test
    void reset_duringCarryOver_forgetsTheKey_andTheClientIsAdmittedAfterwards() {
        spendThenChange();

        WebEndpointResponse<SluiceEndpoint.Reset> reset = endpoint.reset("per-ip", new String[] {"192.0.2.1"});

        assertEquals(200, reset.getStatus());
        assertTrue(reset.getBody().forgotten());
        assertEquals(6, admit(7));
    }

    @Test
    void key_duringCarryOver_readsTheCarriedState_andCreatesNoState() {
        spendThenChange();
        long keys = enforcer.metrics().policy("per-ip").keys();

        KeyState state = endpoint.key("per-ip", new String[] {"192.0.2.1"});

        assertEquals(6, state.limit());
        assertEquals(1, state.remaining());
        assertEquals(keys, enforcer.metrics().policy("per-ip").keys(), "a read keeps nothing");
        assertEquals(1, admit(2), "the client is decided as the read said");
    }

    @Test
    void listing_afterAReload_describesTheVersionInForce() {
        spendThenChange();

        SluiceEndpoint.PolicyDescriptor listed = endpoint.sluice().policies().get("per-ip");
        SluiceEndpoint.PolicyDescriptor one = endpoint.policy("per-ip");

        assertEquals(listed, one);
        assertEquals(503, one.status());
        assertTrue(one.algorithm().contains("limit=6"), one.algorithm());
        assertNull(one.configured(), "the start-up text describes the old version");
        assertEquals(5, one.counters().allowed(), "the counters of the name are kept");
    }

    @Test
    void listing_beforeAnyChange_keepsTheConfiguredText() {
        assertEquals("fixed-window 5/1h key=ip", endpoint.policy("per-ip").configured());
    }
}
