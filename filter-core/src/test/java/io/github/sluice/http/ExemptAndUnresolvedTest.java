package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.config.SluiceConfig;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.Unresolved;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** CORS preflights pass by default; a policy decides what a request without a key gets. */
class ExemptAndUnresolvedTest {

    private final EnforcerFixture fixture = new EnforcerFixture();

    // ---- exempt methods ---------------------------------------------------------------------------

    @Test
    void optionsFlood_byDefault_neitherLimitedNorSpendingTheQuota() {
        Enforcer e = fixture.enforcer("per-ip = fixed-window 1/1m key=ip");

        for (int i = 0; i < 50; i++) {
            assertEquals(0, e.enforce(FakeRequest.get("/api").method("OPTIONS")).size());
            assertEquals(0, e.enforce(FakeRequest.get("/api").method("options")).size());
        }

        assertTrue(e.enforce(FakeRequest.get("/api")).admitted(), "the preflights spent the client's quota");
        assertTrue(e.enforce(FakeRequest.get("/api")).denied());
    }

    @Test
    void policyNamingOptions_stillLimitsOptions() {
        Enforcer e = fixture.enforcer("preflight = fixed-window 1/1m key=ip match=OPTIONS:/*",
                "per-ip = fixed-window 5/1m key=ip");

        Verdict first = e.enforce(FakeRequest.get("/api").method("OPTIONS"));
        Verdict second = e.enforce(FakeRequest.get("/api").method("OPTIONS"));

        assertEquals(1, first.size(), "only the policy that names OPTIONS applies");
        assertEquals("preflight", first.policy(0).name());
        assertTrue(second.denied());
    }

    @Test
    void exemptMethods_none_limitsOptionsLikeAnyMethod_andOthersCanBeExempted() {
        Enforcer all = fixture.builder("a = fixed-window 1/1m key=ip").exemptMethods().build();
        assertTrue(all.enforce(FakeRequest.get("/").method("OPTIONS")).admitted());
        assertTrue(all.enforce(FakeRequest.get("/").method("OPTIONS")).denied());

        Enforcer head = fixture.builder("b = fixed-window 1/1m key=ip").exemptMethods("head", "OPTIONS").build();
        assertEquals(List.of("HEAD", "OPTIONS"), head.exemptMethods());
        assertEquals(0, head.enforce(FakeRequest.get("/").method("HEAD")).size());
    }

    @Test
    void exemptMethods_selectionByName_alsoExempt() {
        Enforcer e = fixture.enforcer("a = fixed-window 1/1m key=ip");
        PolicySet s = e.select("a");

        assertEquals(0, e.enforce(FakeRequest.get("/").method("OPTIONS"), s).size());
        assertEquals(1, e.enforce(FakeRequest.get("/"), s).size());
    }

    @Test
    void exemptMethods_invalid_failsAtStartUpNamingTheSettingAndValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Enforcer.builder().exemptMethods("OPTIONS", "GET /"));
        assertEquals("exempt-methods must be HTTP methods such as OPTIONS but was 'GET /'", e.getMessage());
        // A typo must not silently exempt nothing (and leave preflights counted)
        IllegalArgumentException typo = assertThrows(IllegalArgumentException.class,
                () -> Enforcer.builder().exemptMethods("OPTINS"));
        assertEquals("exempt-methods must be registered HTTP methods such as OPTIONS but was 'OPTINS'"
                + " (did you mean 'OPTIONS'?)", typo.getMessage());
        ConfigException c = assertThrows(ConfigException.class, () -> SluiceConfig.newEnforcer(
                Map.of("policies", "a = fixed-window 1/1m key=ip", "exempt-methods", "OPTIONS,OPTIONS")::get,
                List.of("policies", "exempt-methods"), null, "test"));
        assertTrue(c.getMessage().contains("exempt-methods") && c.getMessage().contains("OPTIONS twice"), c.getMessage());
    }

    @Test
    void exemptMethods_fromConfiguration_emptyMeansNone() {
        try (Enforcer e = SluiceConfig.newEnforcer(
                Map.of("policies", "a = fixed-window 1/1m key=ip", "exempt-methods", "")::get,
                List.of("policies", "exempt-methods"), null, "test")) {
            assertEquals(List.of(), e.exemptMethods());
        }
    }

    // ---- unresolved keys ---------------------------------------------------------------------------

    @Test
    void unresolved_default_skipsThePolicy() {
        Enforcer e = fixture.enforcer("api = fixed-window 1/1m key=header:X-Api-Key");

        for (int i = 0; i < 5; i++) {
            assertEquals(0, e.enforce(FakeRequest.get("/")).size());
        }
        assertEquals(Unresolved.SKIP, e.policies().get(0).unresolved());
    }

    @Test
    void unresolved_deny_refusesWithThePolicysStatus_withoutSpendingAnyQuota() {
        Enforcer e = fixture.enforcer("per-ip = fixed-window 1/1m key=ip",
                "api = fixed-window 5/1m key=header:X-Api-Key unresolved=deny status=403");

        Verdict v = e.enforce(FakeRequest.get("/"));

        assertTrue(v.denied());
        assertEquals(403, v.status());
        assertEquals("api", v.policy(v.binding()).name());
        assertEquals(null, v.key(v.binding()));
        assertFalse(v.retryable(v.binding()));
        assertTrue(e.enforce(FakeRequest.get("/").header("X-Api-Key", "k")).admitted(),
                "the keyless denial must not have spent the per-ip quota");
    }

    @Test
    void unresolved_denyWithStatus_usesThatStatus_andTheProblemSaysWhy() throws Exception {
        Enforcer e = fixture.enforcer("api = fixed-window 5/1m key=header:X-Api-Key unresolved=deny:401");

        Verdict v = e.enforce(FakeRequest.get("/"));
        io.github.sluice.testing.RecordingResponse r = new io.github.sluice.testing.RecordingResponse();
        v.writeDenial(r, r);

        assertEquals(401, v.status());
        assertTrue(r.bodyText().contains("carries no key for policy 'api'"), r.bodyText());
    }

    @Test
    void unresolved_chainEndingInIp_alwaysHasAKey() {
        Enforcer e = fixture.enforcer("api = fixed-window 1/1m key=header:X-Api-Key|ip unresolved=deny:401");

        assertTrue(e.enforce(FakeRequest.get("/")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/")).denied());
        assertEquals(429, e.enforce(FakeRequest.get("/")).status());
    }

    @Test
    void unresolved_denyOnADryRunPolicy_reportsButNeverBlocks() {
        RecordingListener events = new RecordingListener();
        Enforcer e = fixture.builder("api = fixed-window 5/1m key=header:X-Api-Key unresolved=deny dry-run")
                .listener(events).build();

        Verdict v = e.enforce(FakeRequest.get("/"));

        assertTrue(v.admitted());
        assertTrue(v.dryRunDenied());
        assertEquals(List.of("would-deny api null"), events.events);
    }

    @Test
    void unresolved_invalid_failsNamingTheOptionAndValue() {
        ConfigException c = assertThrows(ConfigException.class,
                () -> Policy.parse("api = fixed-window 5/1m key=header:X-Api-Key unresolved=deny:200"));
        assertTrue(c.getMessage().contains("unresolved") && c.getMessage().contains("deny:200"), c.getMessage());
        ConfigException d = assertThrows(ConfigException.class,
                () -> Policy.parse("api = fixed-window 5/1m key=ip unresolved=fallback"));
        assertTrue(d.getMessage().contains("skip, deny or deny:<status>"), d.getMessage());
    }
}
