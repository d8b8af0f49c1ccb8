package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Plans through the enforcer: each plan's limit, its name in the headers and the problem body,
 * {@code unlimited} and {@code blocked}, the default plan for a missing or unknown plan, and one
 * state per key across plan changes.
 */
class PlansTest {

    private final FakeClock clock = new FakeClock();

    /** The plan the application knows for each key (a database, in a real service). */
    private static final Map<String, String> PLAN_OF = Map.of("k-pro", "pro", "k-int", "internal",
            "k-ban", "banned", "k-odd", "platinum");

    private Enforcer build(String policy, UnaryOperator<Enforcer.Builder> more) {
        return more.apply(Enforcer.builder().policies(policy)).listener(EnforcementListener.NONE)
                .clock(clock).build();
    }

    private Enforcer api() {
        return build("api = fixed-window key=header:X-Api-Key plan=bean:planOf"
                + " plans=free:2/1m,pro:5/1m,internal:unlimited,banned:blocked default-plan=free",
                b -> b.keyResolver("planOf", r -> PLAN_OF.get(r.headers("X-Api-Key").next())));
    }

    private static FakeRequest key(String key) {
        return FakeRequest.get("/api").peer("198.51.100.7").header("X-Api-Key", key);
    }

    private static int admitted(Enforcer e, String key, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            if (e.enforce(key(key)).admitted()) {
                n++;
            }
        }
        return n;
    }

    @Test
    void plans_eachPlan_getsItsOwnLimit() {
        Enforcer e = api();
        assertEquals(2, admitted(e, "k-free", 10), "free: 2 per minute");
        assertEquals(5, admitted(e, "k-pro", 10), "pro: 5 per minute");
        assertEquals(100, admitted(e, "k-int", 100), "internal: never refused");
        assertEquals(0, admitted(e, "k-ban", 3), "banned: always refused");
    }

    @Test
    void plans_unknownPlanName_isTheDefaultPlan() {
        Enforcer e = api();
        assertEquals(2, admitted(e, "k-odd", 10), "'platinum' is no plan: free decides, never a free pass");
    }

    @Test
    void headers_announceThePlansQuotaAndName() {
        Enforcer e = api();
        RecordingResponse free = EnforcerFixture.headers(e.enforce(key("k-free")));
        RecordingResponse pro = EnforcerFixture.headers(e.enforce(key("k-pro")));
        assertEquals("\"api.free\";q=2;w=60", free.headers.get("RateLimit-Policy"));
        assertEquals("\"api.pro\";q=5;w=60", pro.headers.get("RateLimit-Policy"));
        assertTrue(pro.headers.get("RateLimit").startsWith("\"api.pro\";r=4;"), pro.headers.toString());
        RecordingResponse internal = EnforcerFixture.headers(e.enforce(key("k-int")));
        assertFalse(internal.headers.containsKey("RateLimit-Policy"), "an unlimited plan is not limited by the policy");
    }

    @Test
    void blocked_refusesWith403AndSaysSo() throws IOException {
        Enforcer e = api();
        Verdict v = e.enforce(key("k-ban"));
        assertTrue(v.denied());
        assertEquals(403, v.status());
        RecordingResponse r = new RecordingResponse();
        v.writeDenial(r, r);
        assertTrue(r.bodyText().contains("\"violated-policies\":[\"api.banned\"]"), r.bodyText());
        assertTrue(r.bodyText().contains("refuses every request"), r.bodyText());
    }

    @Test
    void blockedStatus_setByThePolicy() {
        Enforcer e = build("api = fixed-window key=header:X-Api-Key plan=header:X-Plan"
                + " plans=free:2/1m,banned:blocked default-plan=free blocked-status=451", UnaryOperator.identity());
        assertEquals(451, e.enforce(key("x").header("X-Plan", "banned")).status());
    }

    @Test
    void denial_problemBodyNamesThePlan() throws IOException {
        Enforcer e = api();
        admitted(e, "k-pro", 5);
        Verdict v = e.enforce(key("k-pro"));
        assertEquals(429, v.status());
        RecordingResponse r = new RecordingResponse();
        v.writeDenial(r, r);
        assertTrue(r.bodyText().contains("policy 'api.pro'"), r.bodyText());
    }

    @Test
    void planChange_upgrade_keepsWhatWasUsedAndTakesEffectAtOnce() {
        String[] plan = {"free"};
        Enforcer e = build("api = fixed-window key=header:X-Api-Key plan=bean:p plans=free:2/1m,pro:5/1m"
                + " default-plan=free", b -> b.keyResolver("p", r -> plan[0]));
        assertEquals(2, admitted(e, "k", 10), "free spent");
        plan[0] = "pro";
        assertEquals(3, admitted(e, "k", 10), "pro: 5 less the 2 used");
    }

    @Test
    void planChange_downgradeUpgradeCycle_cannotResetTheQuota() {
        String[] plan = {"pro"};
        Enforcer e = build("api = fixed-window key=header:X-Api-Key plan=bean:p plans=free:2/1m,pro:5/1m"
                + " default-plan=free", b -> b.keyResolver("p", r -> plan[0]));
        assertEquals(1, admitted(e, "k", 1));
        plan[0] = "free";
        assertEquals(1, admitted(e, "k", 10), "free: 2 less the 1 used");
        plan[0] = "pro";
        assertEquals(3, admitted(e, "k", 10), "pro again: 5 less the 2 used, not a fresh quota");
        plan[0] = "free";
        assertEquals(0, admitted(e, "k", 10));
        clock.advance(Duration.ofMinutes(1));
        assertEquals(2, admitted(e, "k", 10), "the next window is fresh");
    }

    @Test
    void planChange_spendProThenCycleThroughLowerPlans_getsNothingBack() {
        String[] plan = {"pro"};
        Enforcer e = build("api = token-bucket key=header:X-Api-Key plan=bean:p"
                + " plans=free:2/1m,mid:3/1m,pro:5/1m default-plan=free", b -> b.keyResolver("p", r -> plan[0]));
        assertEquals(5, admitted(e, "k", 10));
        for (String p : new String[] {"free", "mid", "pro", "mid", "free", "pro"}) {
            plan[0] = p;
            assertEquals(0, admitted(e, "k", 3), "after the change to " + p);
        }
    }

    @Test
    void hostilePlanHeader_unknownOrOversizedOrOddlyCased_isTheDefaultPlan() {
        Enforcer e = build("api = fixed-window key=header:X-Api-Key plan=header:X-Plan"
                + " plans=free:2/1m,pro:5/1m default-plan=free", UnaryOperator.identity());
        for (String hostile : new String[] {"PRO", "pro,pro", "pr o", "x".repeat(10_000), "pro\u0000", ""}) {
            String k = "k" + hostile.hashCode();
            int n = 0;
            for (int i = 0; i < 10; i++) {
                n += e.enforce(key(k).header("X-Plan", hostile)).admitted() ? 1 : 0;
            }
            assertEquals(2, n, "plan header '" + hostile.substring(0, Math.min(10, hostile.length())) + "'");
        }
        // A header the client writes is the client's choice: that is why the docs show bean: and attribute:.
        int n = 0;
        for (int i = 0; i < 10; i++) {
            n += e.enforce(key("chooser").header("X-Plan", "pro")).admitted() ? 1 : 0;
        }
        assertEquals(5, n);
    }

    @Test
    void headers_withAnotherPolicy_eachPlanKeepsItsOwnValue() {
        Enforcer e = build("per-ip = token-bucket 100/1m key=ip\n" + "api = fixed-window key=header:X-Api-Key"
                + " plan=header:X-Plan plans=free:2/1m,pro:5/1m default-plan=free", UnaryOperator.identity());
        for (int i = 0; i < 3; i++) {
            assertEquals("\"per-ip\";q=100;w=60, \"api.free\";q=2;w=60", EnforcerFixture.headers(
                    e.enforce(key("a" + i))).headers.get("RateLimit-Policy"));
            assertEquals("\"per-ip\";q=100;w=60, \"api.pro\";q=5;w=60", EnforcerFixture.headers(
                    e.enforce(key("b" + i).header("X-Plan", "pro"))).headers.get("RateLimit-Policy"));
        }
    }

    @Test
    void refusedByAnotherPolicysMissingKey_newKeyOfAPlan_isPeekedNotBroken() {
        Enforcer e = build("user = fixed-window 5/1m key=principal unresolved=deny:401\n"
                + "api = fixed-window key=header:X-Api-Key plan=header:X-Plan plans=free:2/1m,pro:5/1m default-plan=free",
                UnaryOperator.identity());
        Verdict v = e.enforce(key("never-seen").header("X-Plan", "pro"));
        assertEquals(401, v.status());
        assertEquals("\"user\";q=5;w=60, \"api.pro\";q=5;w=60",
                EnforcerFixture.headers(v).headers.get("RateLimit-Policy"));
        int n = 0;
        for (int i = 0; i < 10; i++) {
            n += e.enforce(key("never-seen").header("X-Plan", "pro").principal("alice")).admitted() ? 1 : 0;
        }
        assertEquals(5, n, "the refused request took nothing of the key's 5");
    }
}
