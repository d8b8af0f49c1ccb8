package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.ForwardedHeader;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link Enforcer.Builder} is the one builder of the HTTP layer: every setting is given once, and
 * the order of the calls never changes the enforcer built.
 */
class EnforcerBuilderTest {

    private static final String POLICY = "per-ip = token-bucket 1/1m key=ip allow=203.0.113.0/24";

    /** A client at 198.51.100.7 behind a trusted proxy at 10.0.0.1 (or 10.0.0.2: another hop). */
    private static FakeRequest viaProxy(String proxy) {
        return FakeRequest.get("/").peer(proxy).header("X-Forwarded-For", "198.51.100.7");
    }

    private static Enforcer build(UnaryOperator<Enforcer.Builder> settings) {
        return settings.apply(Enforcer.builder()).listener(EnforcementListener.NONE).clock(new FakeClock()).build();
    }

    @Test
    void clientAddressSettings_givenAfterThePolicyText_reachItsIpKey() {
        // Given the proxies trusted after the policies were parsed
        Enforcer e = build(b -> b.policies("per-ip = token-bucket 1/1m key=ip").trustedProxies("10.0.0.0/8"));

        // When the same client comes through two proxies
        boolean first = e.enforce(viaProxy("10.0.0.1")).admitted();
        boolean second = e.enforce(viaProxy("10.0.0.2")).admitted();

        // Then both requests are keyed by the client, not by the proxy
        assertTrue(first);
        assertFalse(second, "the client's one permit a minute is spent, whichever proxy it comes through");
    }

    @Test
    void callOrder_neverChangesTheEnforcer() {
        Enforcer before = build(b -> b.trustedProxies("10.0.0.0/8").forwardedHeader(ForwardedHeader.FORWARDED)
                .ipv6Prefix(56).dryRun(true).policies(POLICY));
        Enforcer after = build(b -> b.policies(POLICY).ipv6Prefix(56).dryRun(true)
                .forwardedHeader(ForwardedHeader.FORWARDED).trustedProxies("10.0.0.0/8"));
        ClientAddress expected = ClientAddress.builder().trustedProxies("10.0.0.0/8")
                .header(ForwardedHeader.FORWARDED).ipv6Prefix(56).build();

        assertEquals(before.policies(), after.policies());
        assertEquals(expected, before.clientAddress());
        assertEquals(expected, after.clientAddress());
        assertSame(expected.getClass(), before.policies().get(0).key().getClass());
        assertEquals(expected, before.policies().get(0).key(), "the ip key has the enforcer's settings");
    }

    @Test
    void allowList_andIpKey_findTheClientWithTheSameSettings() {
        // Given a policy that allow-lists a network, behind trusted proxies
        Enforcer e = build(b -> b.policies(POLICY).trustedProxies("10.0.0.0/8"));
        FakeRequest office = FakeRequest.get("/").peer("10.0.0.1").header("X-Forwarded-For", "203.0.113.9");

        // Then the office, seen through the proxy, is never counted
        for (int i = 0; i < 3; i++) {
            assertTrue(e.enforce(office).admitted(), "request " + i + " of the allow-listed client");
        }
        // and another client, through the same proxy, has its own one permit
        assertTrue(e.enforce(viaProxy("10.0.0.1")).admitted());
        assertFalse(e.enforce(viaProxy("10.0.0.1")).admitted());
    }

    @Test
    void policyKeyedByItsOwnClientAddress_thatDiffersFromTheEnforcers_failsAtBuild() {
        Policy own = Policy.builder("per-ip").algorithm(TokenBucket.of(Rate.perMinute(1)))
                .key(ClientAddress.builder().trustedProxies("192.168.0.0/16").build()).build();

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Enforcer.builder().policy(own).trustedProxies("10.0.0.0/8").build());

        assertTrue(e.getMessage().startsWith("key ip must use the client-address settings given to the enforcer"),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("(policy 'per-ip')"), e.getMessage());
    }

    @Test
    void ipKeyInAChain_getsTheEnforcersSettings() {
        ClientAddress proxied = ClientAddress.builder().trustedProxies("10.0.0.0/8").build();
        Policy chained = Policy.parse("p = token-bucket 1/1m key=principal|ip");

        Enforcer e = build(b -> b.policy(chained).trustedProxies("10.0.0.0/8"));

        assertEquals(KeyResolvers.firstOf(KeyResolvers.principal(), proxied), e.policies().get(0).key());
    }

    @Test
    void dryRun_makesEveryPolicyDryRun_andDeniesNothing() {
        Enforcer e = build(b -> b.dryRun(true).policies("a = token-bucket 1/1m key=global\n"
                + "b = fixed-window 1/1m key=global dry-run"));

        assertTrue(e.policies().stream().allMatch(Policy::dryRun), e.policies().toString());
        for (int i = 0; i < 3; i++) {
            assertTrue(e.enforce(FakeRequest.get("/")).admitted());
        }
    }

    @Test
    void registrySettings_withAGivenStore_failAtBuild_namingThem() {
        try (ShardedRegistry store = ShardedRegistry.builder().build()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Enforcer.builder()
                    .maxKeys(10).store(store).shards(4).maxKeys(20).build());

            assertEquals("maxKeys=20, shards=4 configure the default in-memory store, but a store was given (" + store
                    + "); configure that store instead", e.getMessage());
        }
    }

    @Test
    void registrySettings_configureTheDefaultStore() {
        try (Enforcer e = Enforcer.builder().policies("a = token-bucket 1/1m key=ip").maxKeys(1000)
                .memoryBudget(64L << 20).shards(8).maxKeyLength(64).build()) {
            ShardedRegistry store = (ShardedRegistry) e.store();

            assertEquals(1000, store.maxKeys("a"));
            assertEquals(64L << 20, store.memoryBudget());
            assertEquals(8, store.shards());
            assertEquals(64, store.maxKeyLength());
        }
    }

    @Test
    void maxKeys_aboveABillion_isRefusedAtOnce() {
        assertEquals("maxKeys must be at most 1000000000 but was 1000000001", assertThrows(
                IllegalArgumentException.class, () -> Enforcer.builder().maxKeys(1_000_000_001)).getMessage());
    }

    @Test
    void duplicateNames_acrossObjectsAndText_failAtBuild() {
        Enforcer.Builder b = Enforcer.builder().policy(Policy.parse("a = token-bucket 1/1m key=ip"))
                .policies("a = fixed-window 1/1m key=ip");

        assertEquals("policy name 'a' is used twice",
                assertThrows(IllegalArgumentException.class, b::build).getMessage());
    }

    @Test
    void policiesAsObjectsOrAsText_buildEqualEnforcers() {
        Enforcer text = build(b -> b.policies("a = token-bucket 100/1m key=ip match=/api/*"));
        Enforcer code = build(b -> b.policies(List.of(Policy.builder("a")
                .algorithm(TokenBucket.of(Rate.perMinute(100))).key(KeyResolvers.ip())
                .match(io.github.sluice.policy.Match.paths("/api/*")).build())));

        assertEquals(text.policies(), code.policies());
    }

    @Test
    void everyOrderOfTheSettings_buildsTheSameEnforcer() {
        // Given every setting as one step; the policies keep their relative order, which is meaningful
        DenialBody body = DenialBody.of("text/plain", "slow down");
        List<UnaryOperator<Enforcer.Builder>> steps = List.of(
                b -> b.policy(Policy.parse("a = token-bucket 5/1s key=ip allow=203.0.113.0/24"))
                        .policies("b = gcra 10/1m key=principal|ip\nc = fixed-window 3/1m key=global"),
                b -> b.trustedProxies("10.0.0.0/8", "fd00::/8"),
                b -> b.forwardedHeader(ForwardedHeader.FORWARDED),
                b -> b.ipv6Prefix(48),
                b -> b.dryRun(true),
                b -> b.headers(new HeaderOptions(HeaderStyle.X_RATELIMIT, true, false, null)),
                b -> b.denialBody(body),
                b -> b.maxKeyLength(64));
        Enforcer reference = build(b -> {
            steps.forEach(step -> step.apply(b));
            return b;
        });
        java.util.Random random = new java.util.Random(13);

        // When they are given in 200 random orders
        for (int round = 0; round < 200; round++) {
            List<UnaryOperator<Enforcer.Builder>> order = new java.util.ArrayList<>(steps);
            java.util.Collections.shuffle(order, random);
            Enforcer e = build(b -> {
                order.forEach(step -> step.apply(b));
                return b;
            });

            // Then the enforcer is the same
            assertEquals(reference.policies(), e.policies(), "round " + round);
            assertEquals(reference.clientAddress(), e.clientAddress(), "round " + round);
            assertEquals(reference.headerOptions(), e.headerOptions(), "round " + round);
            assertEquals(reference.denialBody(), e.denialBody(), "round " + round);
            assertEquals(reference.maxKeyLength(), e.maxKeyLength(), "round " + round);
            e.close();
        }
        assertTrue(reference.policies().stream().allMatch(Policy::dryRun));
        reference.close();
    }
}
