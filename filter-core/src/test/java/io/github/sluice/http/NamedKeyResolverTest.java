package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.PolicyParser;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@code key=bean:<name>}: a policy keyed by a resolver the application registers under a name
 * ({@link Enforcer.Builder#keyResolver}), bound when the enforcer is built, alone or in a
 * {@code |} fallback chain.
 */
class NamedKeyResolverTest {

    /** The tenant an earlier filter put on the request, as a Spring bean would read it. */
    private static final KeyResolver TENANT = r -> (String) r.attribute("tenant");

    private static Enforcer build(String policies, UnaryOperator<Enforcer.Builder> more) {
        return more.apply(Enforcer.builder().policies(policies)).listener(EnforcementListener.NONE)
                .clock(new FakeClock()).build();
    }

    private static FakeRequest tenant(String name) {
        return FakeRequest.get("/").peer("198.51.100.7").attribute("tenant", name);
    }

    @Test
    void beanKey_registeredResolver_limitsEachTenantSeparately() {
        Enforcer e = build("per-tenant = fixed-window 1/1m key=bean:tenantResolver",
                b -> b.keyResolver("tenantResolver", TENANT));

        assertTrue(e.enforce(tenant("acme")).admitted());
        assertFalse(e.enforce(tenant("acme")).admitted(), "acme spent its one request");
        assertTrue(e.enforce(tenant("globex")).admitted(), "globex has a quota of its own");
        assertEquals("bean:tenantResolver", e.policies().get(0).key().toString(),
                "the applied policy still reads as configured");
    }

    @Test
    void beanKey_registeredAfterThePolicies_isBoundAtBuild() {
        Enforcer e = Enforcer.builder().keyResolver("tenantResolver", TENANT)
                .policies("per-tenant = fixed-window 1/1m key=bean:tenantResolver")
                .listener(EnforcementListener.NONE).build();
        assertTrue(e.enforce(tenant("acme")).admitted());
        assertFalse(e.enforce(tenant("acme")).admitted());
    }

    @Test
    void beanKey_unknownName_failsAtBuildNamingThePolicyAndTheName() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> build("per-tenant = fixed-window 1/1m key=ip|bean:tenantResolvr",
                        b -> b.keyResolver("tenantResolver", TENANT)));
        assertTrue(error.getMessage().contains("bean:tenantResolvr"), error.getMessage());
        assertTrue(error.getMessage().contains("policy 'per-tenant'"), error.getMessage());
    }

    @Test
    void beanKey_inAFallbackChain_fallsBackAndNeverSharesAQuotaWithAnotherSource() {
        // Given a chain whose first source is the tenant and whose last is the address
        Enforcer e = build("p = fixed-window 1/1m key=bean:tenantResolver|ip",
                b -> b.keyResolver("tenantResolver", TENANT));

        // A tenant named like a client's address does not spend that client's quota
        assertTrue(e.enforce(tenant("198.51.100.9")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/").peer("198.51.100.9")).admitted(),
                "the address 198.51.100.9 and the tenant '198.51.100.9' are two keys");
        assertFalse(e.enforce(FakeRequest.get("/").peer("198.51.100.9")).admitted());
        assertEquals("bean:tenantResolver|ip", e.policies().get(0).key().toString());
    }

    @Test
    void beanKey_resolverThatThrows_yieldsNoKey() {
        Enforcer e = build("p = fixed-window 1/1m key=bean:broken", b -> b.keyResolver("broken", r -> {
            throw new IllegalStateException("bug in the application's resolver");
        }));
        for (int i = 0; i < 3; i++) {
            assertTrue(e.enforce(tenant("acme")).admitted(), "the policy does not apply to a request it cannot key");
        }
    }

    @Test
    void beanKey_parsed_equalsTheBuiltPolicy() {
        Policy parsed = PolicyParser.parse("p = fixed-window 5/10s key=bean:tenantResolver", "test").get(0);
        Policy built = Policy.builder("p").algorithm(FixedWindow.of(5, Duration.ofSeconds(10)))
                .key(KeyResolvers.bean("tenantResolver")).build();
        assertEquals(built, parsed);
    }

    @Test
    void beanKey_withoutAName_failsAtParseWithAnExample() {
        ConfigException error = assertThrows(ConfigException.class,
                () -> PolicyParser.parse("p = fixed-window 5/10s key=bean:", "test"));
        assertTrue(error.getMessage().contains("key bean needs a name, e.g. bean:tenantResolver"), error.getMessage());
    }

    @Test
    void keyResolver_sameNameTwice_fails() {
        Enforcer.Builder b = Enforcer.builder().keyResolver("tenantResolver", TENANT);
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> b.keyResolver("tenantResolver", r -> "x"));
        assertTrue(error.getMessage().contains("'tenantResolver' is registered twice"), error.getMessage());
    }

    @Test
    void unboundReference_resolvingARequest_throwsNamingTheReference() {
        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> KeyResolvers.bean("tenantResolver").resolve(tenant("acme")));
        assertTrue(error.getMessage().contains("bean:tenantResolver"), error.getMessage());
    }
}
