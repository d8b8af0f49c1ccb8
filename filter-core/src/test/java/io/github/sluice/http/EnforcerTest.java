package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnforcerTest {

    private final EnforcerFixture f = new EnforcerFixture();

    @Test
    void enforce_onlyMatchingPoliciesApply() {
        Enforcer e = f.enforcer("api = token-bucket 5/1m key=ip match=/api/*",
                "login = fixed-window 3/1m key=ip match=POST:/login");

        assertEquals(List.of("api"), names(e.enforce(FakeRequest.get("/api/orders"))));
        assertEquals(List.of("api"), names(e.enforce(FakeRequest.get("/api"))));
        assertEquals(List.of("login"), names(e.enforce(FakeRequest.get("/login").method("POST"))));
        assertEquals(List.of("login"), names(e.enforce(FakeRequest.get("/login").method("post"))));
        assertEquals(List.of(), names(e.enforce(FakeRequest.get("/login"))));
    }

    @Test
    void enforce_nullKey_policyDoesNotApply() {
        Enforcer e = f.enforcer("per-key = token-bucket 1/1m key=header:X-Api-Key");

        Verdict v1 = e.enforce(FakeRequest.get("/"));
        Verdict v2 = e.enforce(FakeRequest.get("/"));

        assertTrue(v1.admitted() && v2.admitted());
        assertEquals(0, v2.size());
    }

    @Test
    void enforce_keysAreIndependent() {
        Enforcer e = f.enforcer("per-ip = token-bucket 1/1m key=ip");

        assertTrue(e.enforce(FakeRequest.get("/").peer("192.0.2.1")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/").peer("192.0.2.2")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/").peer("192.0.2.1")).denied());
    }

    @Test
    void enforce_overLongKey_isHashedBeforeReachingTheStore() {
        Enforcer e = f.enforcer("per-key = token-bucket 1/1m key=header:X-Api-Key");
        String secret = "k".repeat(5000);

        Verdict v = e.enforce(FakeRequest.get("/").header("X-Api-Key", secret));

        assertTrue(v.key(0).startsWith("sha256:"));
        assertTrue(e.enforce(FakeRequest.get("/").header("X-Api-Key", secret)).denied(), "same key, same bucket");
    }

    @Test
    void enforce_allowListedClient_bypassesThePolicy() {
        Enforcer e = f.enforcer("per-ip = token-bucket 1/1m key=ip allow=192.0.2.0/24,partner");
        FakeRequest office = FakeRequest.get("/").peer("192.0.2.9");

        for (int i = 0; i < 5; i++) {
            Verdict v = e.enforce(office);
            assertTrue(v.admitted());
            assertEquals(0, v.size(), "an allow-listed request is not counted");
        }
        assertTrue(e.enforce(FakeRequest.get("/").peer("198.51.100.1")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/").peer("198.51.100.1")).denied());
    }

    @Test
    void enforce_allowListedKey_bypassesThePolicy() {
        Enforcer e = f.enforcer("per-key = token-bucket 1/1m key=header:X-Api-Key allow=partner");

        e.enforce(FakeRequest.get("/").header("X-Api-Key", "partner"));
        assertTrue(e.enforce(FakeRequest.get("/").header("X-Api-Key", "partner")).admitted());
    }

    @Test
    void enforce_oneDenies_permitsTakenByTheOthersAreGivenBack() {
        // Given a roomy policy checked before a tight one
        Enforcer e = f.enforcer("roomy = token-bucket 10/1m key=ip", "tight = fixed-window 1/1m key=ip");
        FakeRequest r = FakeRequest.get("/");
        e.enforce(r);

        // When the tight one denies three times
        for (int i = 0; i < 3; i++) {
            Verdict v = e.enforce(r);
            assertTrue(v.denied());
            assertEquals(List.of("tight"), v.violatedPolicies());
            assertEquals(1, v.binding());
        }

        // Then the roomy one lost only the permit of the admitted request
        assertEquals(9, peek(e, "roomy", "192.0.2.1").remaining());
    }

    @Test
    void enforce_denial_usesThePolicyStatusAndTheProblemBody() throws Exception {
        Enforcer e = f.enforcer("busy = token-bucket 1/1m key=global status=503");
        FakeRequest r = FakeRequest.get("/");
        e.enforce(r);

        Verdict v = e.enforce(r);
        RecordingResponse response = new RecordingResponse();
        v.writeDenial(response, response);

        assertEquals(503, v.status());
        assertEquals("application/problem+json", response.headers.get("Content-Type"));
        assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity\",\"title\":\"Request cannot be satisfied due to temporary server capacity constraints\",\"status\":503,"
                + "\"detail\":\"Rate limit exceeded for policy 'busy'; retry after 60 seconds.\","
                + "\"violated-policies\":[\"busy\"]}", response.bodyText());
    }

    @Test
    void enforce_customDenialBody_replacesTheProblem() throws Exception {
        Enforcer e = f.builder("p = token-bucket 1/1m key=global")
                .denialBody(DenialBody.of("text/plain; charset=utf-8", "slow down")).build();
        e.enforce(FakeRequest.get("/"));
        RecordingResponse response = new RecordingResponse();

        e.enforce(FakeRequest.get("/")).writeDenial(response, response);

        assertEquals("text/plain; charset=utf-8", response.headers.get("Content-Type"));
        assertEquals("slow down", response.bodyText());
    }

    @Test
    void enforce_callbackDenialBody_seesTheVerdict() throws Exception {
        DenialBody callback = new DenialBody() {
            @Override
            public String contentType(Verdict verdict) {
                return "application/json";
            }

            @Override
            public byte[] body(Verdict verdict) {
                return ("{\"wait\":" + verdict.retryAfterSeconds() + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            }
        };
        Enforcer e = f.builder("p = token-bucket 1/1m key=global").denialBody(callback).build();
        e.enforce(FakeRequest.get("/"));
        RecordingResponse response = new RecordingResponse();

        e.enforce(FakeRequest.get("/")).writeDenial(response, response);

        assertEquals("{\"wait\":60}", response.bodyText());
    }

    @Test
    void enforce_costAboveCapacity_isRefusedAtSelection() {
        Enforcer e = f.enforcer("p = token-bucket 5/1m key=global");

        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> e.select(List.of("p"), 6));
        assertEquals("cost must be <= the limit 5 of policy 'p' but was 6", ex.getMessage());
    }

    @Test
    void select_namedPolicies_ignoreTheirMatchAndUseTheGivenCost() {
        Enforcer e = f.enforcer("a = token-bucket 10/1m key=ip match=/never", "b = token-bucket 10/1m key=ip match=/never");
        PolicySet both = e.select(List.of("b", "a"), 4);
        FakeRequest r = FakeRequest.get("/anything");

        Verdict v = e.enforce(r, both);

        assertEquals(List.of("b", "a"), names(v));
        assertEquals(6, peek(e, "a", "192.0.2.1").remaining());
        assertEquals(6, peek(e, "b", "192.0.2.1").remaining());
        assertEquals(4, v.cost(0));
        e.enforce(r, e.select("a"));
        assertEquals(5, peek(e, "a", "192.0.2.1").remaining(), "without a cost, the policy's own cost");
    }

    @Test
    void select_invalid_failsAtSelection() {
        Enforcer e = f.enforcer("a = token-bucket 10/1m key=ip");

        assertEquals("unknown policy 'x'; known policies: [a]",
                assertThrows(IllegalArgumentException.class, () -> e.select("x")).getMessage());
        assertEquals("policy 'a' is selected twice",
                assertThrows(IllegalArgumentException.class, () -> e.select("a", "a")).getMessage());
        assertEquals("a policy selection needs at least one policy name",
                assertThrows(IllegalArgumentException.class, () -> e.select()).getMessage());
        assertEquals("cost must be >= 0 but was -1",
                assertThrows(IllegalArgumentException.class, () -> e.select(List.of("a"), -1)).getMessage());
        Enforcer other = f.builder("a = token-bucket 10/1m key=ip").store(
                io.github.sluice.store.ShardedRegistry.builder().build()).build();
        assertThrows(IllegalArgumentException.class, () -> other.enforce(FakeRequest.get("/"), e.select("a")));
    }

    @Test
    void dryRun_neverBlocksButReportsInHeadersAndEvents() {
        // Given a dry-run policy of 1 per minute
        RecordingListener events = new RecordingListener();
        Enforcer e = f.builder("trial = token-bucket 1/1m key=ip dry-run").listener(events).build();
        FakeRequest r = FakeRequest.get("/").peer("192.0.2.1");

        // When two requests arrive
        e.enforce(r);
        Verdict second = e.enforce(r);

        // Then both pass; the second reports the would-be denial
        assertTrue(second.admitted());
        assertTrue(second.dryRunDenied());
        assertTrue(second.dryRun(0));
        assertEquals(List.of(), second.violatedPolicies());
        assertEquals("\"trial\";r=0;t=60", EnforcerFixture.headers(second).headers.get("RateLimit"));
        assertEquals(List.of("allowed trial 192.0.2.1", "would-deny trial 192.0.2.1"), events.events);
    }

    @Test
    void dryRun_denialNeverRollsBackEnforcedPolicies() {
        Enforcer e = f.enforcer("real = token-bucket 10/1m key=ip", "trial = token-bucket 1/1m key=ip dry-run");
        FakeRequest r = FakeRequest.get("/");

        e.enforce(r);
        Verdict v = e.enforce(r);

        assertTrue(v.admitted());
        assertEquals(8, peek(e, "real", "192.0.2.1").remaining());
        assertEquals(List.of("real", "trial"), names(v));
    }

    @Test
    void dryRun_afterAnEnforcedDenial_onlyPeeks() {
        Enforcer e = f.enforcer("trial = token-bucket 5/1m key=ip dry-run", "real = token-bucket 1/1m key=ip");
        FakeRequest r = FakeRequest.get("/");
        e.enforce(r);

        Verdict v = e.enforce(r);

        assertTrue(v.denied());
        assertEquals(List.of("real", "trial"), names(v), "enforced entries first");
        assertEquals(4, peek(e, "trial", "192.0.2.1").remaining(), "the denied request took nothing from the dry-run policy");
    }

    @Test
    void verdicts_reorderingOrOverridingEntries_neverAlterTheEnforcersPolicies() {
        // Given a dry-run policy configured before an enforced one, and a selection with a cost
        Enforcer e = f.enforcer("trial = token-bucket 50/1m key=ip dry-run", "real = token-bucket 50/1m key=ip",
                "other = token-bucket 50/1m key=ip match=/other");
        FakeRequest r = FakeRequest.get("/");

        // When verdicts reorder entries (enforced first) and override costs
        Verdict reordered = e.enforce(r);
        Verdict selected = e.enforce(r, e.select(List.of("other", "trial"), 5));

        // Then each verdict is right, and the enforcer still holds its policies in order with their costs
        assertEquals(List.of("real", "trial"), names(reordered));
        assertEquals(List.of("other", "trial"), names(selected));
        assertEquals(5, selected.cost(0));
        assertEquals(List.of("trial", "real", "other"), e.policies().stream().map(Policy::name).toList());
        Verdict plain = e.enforce(FakeRequest.get("/other"));
        assertEquals(List.of("real", "trial", "other").size(), plain.size());
        assertEquals(List.of("real", "other", "trial"), names(plain));
        assertEquals(1, plain.cost(0));
        assertEquals(50 - 1 - 1, peek(e, "real", "192.0.2.1").remaining());
        assertEquals(50 - 1 - 5 - 1, peek(e, "trial", "192.0.2.1").remaining());
    }

    @Test
    void listener_reportsAllowedAndTheDenialOnly() {
        RecordingListener events = new RecordingListener();
        Enforcer e = f.builder("a = token-bucket 10/1m key=global", "b = token-bucket 1/1m key=global")
                .listener(events).build();

        e.enforce(FakeRequest.get("/"));
        e.enforce(FakeRequest.get("/"));

        assertEquals(List.of("allowed a global", "allowed b global", "denied b global"), events.events);
    }

    @Test
    void listener_throwing_neverChangesADecision() {
        EnforcementListener broken = new EnforcementListener() {
            @Override
            public void allowed(Policy policy, String key, MutableDecision decision) {
                throw new IllegalStateException("broken listener");
            }
        };
        Enforcer e = f.builder("a = token-bucket 1/1m key=global").listener(broken).build();

        assertTrue(e.enforce(FakeRequest.get("/")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/")).denied());
    }

    @Test
    void verdict_accessorsOfADenialOnly_failOnAnAdmission() {
        Enforcer e = f.enforcer("a = token-bucket 1/1m key=global");
        Verdict v = e.enforce(FakeRequest.get("/"));

        assertEquals("status is defined for a denial only, but the verdict is ALLOWED",
                assertThrows(IllegalStateException.class, v::status).getMessage());
        assertThrows(IllegalStateException.class, v::retryAfterSeconds);
        assertThrows(IllegalStateException.class, () -> v.writeBody(new RecordingResponse(), new RecordingResponse()));
        assertThrows(IndexOutOfBoundsException.class, () -> v.policy(1));
        assertEquals(Outcome.ALLOWED, v.outcome());
        assertEquals(Outcome.ALLOWED, v.decision(0).outcome());
    }

    @Test
    void binding_admitted_isThePolicyClosestToExhaustion() {
        Enforcer e = f.enforcer("a = token-bucket 10/1m key=global", "b = token-bucket 4/1m key=global",
                "c = token-bucket 100/1m key=global");

        Verdict v = e.enforce(FakeRequest.get("/"));

        assertEquals("b", v.policy(v.binding()).name());
    }

    @Test
    void builder_duplicateNames_areRefused() {
        Policy p = Policy.parse("a = token-bucket 1/1m key=ip");

        assertEquals("policy name 'a' is used twice",
                assertThrows(IllegalArgumentException.class,
                        () -> Enforcer.builder().policy(p).policy(p).build()).getMessage());
        assertEquals("max-key-length must be between 40 and 4096 but was 39",
                assertThrows(IllegalArgumentException.class, () -> Enforcer.builder().maxKeyLength(39)).getMessage());
    }

    @Test
    void close_leavesAGivenStoreToItsOwner() {
        int[] closed = {0};
        io.github.sluice.store.Store counting = new io.github.sluice.store.Store() {
            @Override
            public io.github.sluice.store.KeySpace keySpace(String name, io.github.sluice.core.Algorithm<?> algorithm) {
                return f.registry.keySpace(name, algorithm);
            }

            @Override
            public void close() {
                closed[0]++;
            }
        };
        Enforcer shared = f.builder("a = token-bucket 1/1m key=ip").store(counting).build();

        shared.close();

        assertEquals(0, closed[0]);
        assertSame(counting, shared.store());
        assertTrue(shared.enforce(FakeRequest.get("/")).admitted(), "a shared store stays usable");
    }

    private static List<String> names(Verdict v) {
        return java.util.stream.IntStream.range(0, v.size()).mapToObj(i -> v.policy(i).name()).toList();
    }

    /** Reads a key's state without taking anything (a cost-0 acquisition). */
    private static MutableDecision peek(Enforcer e, String policy, String key) {
        Policy p = e.policies().stream().filter(x -> x.name().equals(policy)).findFirst().orElseThrow();
        MutableDecision out = new MutableDecision();
        e.store().keySpace(p.name(), p.algorithm()).acquire(key, 0, out);
        return out;
    }
}
