package io.github.sluice.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import org.junit.jupiter.api.Test;

/**
 * A client chooses header values freely. Whatever it sends, it must land in a bucket of its own:
 * never in the bucket of a key that was hashed for being too long, never in another source's
 * bucket of a fallback chain, and never in an allow-list entry meant for a hashed key.
 */
class KeyNamespaceTest {

    private final FakeClock clock = new FakeClock();

    private Enforcer enforcer(String line) {
        return Enforcer.builder().store(ShardedRegistry.builder().clock(clock).build())
                .listener(EnforcementListener.NONE).policy(Policy.parse(line)).build();
    }

    private static FakeRequest withKey(String key) {
        return FakeRequest.get("/").header("X-Api-Key", key);
    }

    @Test
    void digestSentVerbatim_getsItsOwnBucketNotTheVictims() {
        // Given a victim whose long token is stored as its digest, and a quota of one
        Enforcer e = enforcer("per-key = token-bucket 1/1m key=header:X-Api-Key");
        String victimToken = "victim-" + "t".repeat(300);
        Verdict victim = e.enforce(withKey(victimToken));
        String digest = victim.key(0);
        assertTrue(digest.startsWith(Keys.HASH_PREFIX), digest);

        // When an attacker sends the digest itself
        Verdict attacker = e.enforce(withKey(digest));

        // Then it is counted in a bucket of its own, and the victim's bucket is untouched by it
        assertTrue(attacker.admitted(), "the attacker's first request is its own");
        assertNotEquals(digest, attacker.key(0));
        assertTrue(e.enforce(withKey(digest)).denied(), "the attacker's second request hits its own bucket");
        clock.advance(java.time.Duration.ofMinutes(1));
        assertTrue(e.enforce(withKey(victimToken)).admitted());
    }

    @Test
    void bound_rawKeyInTheDigestNamespace_isHashedWhateverItsLength() {
        String digest = Keys.bound("x".repeat(500), 128);

        assertNotEquals(digest, Keys.bound(digest, 128));
        assertTrue(Keys.bound(digest, 128).startsWith(Keys.HASH_PREFIX));
        assertNotEquals(Keys.bound("sha256:", 128), "sha256:");
        assertEquals("sha256", Keys.bound("sha256", 128), "only the prefix with its colon is reserved");
        assertEquals("SHA256:abc", Keys.bound("SHA256:abc", 128), "keys are compared exactly, case included");
    }

    @Test
    void allowListedDigest_copiedFromALog_isNotMatchedByTheDigestSentVerbatim() {
        String partnerToken = "partner-" + "p".repeat(300);
        String digest = Keys.hash(partnerToken);
        Enforcer e = enforcer("per-key = token-bucket 1/1m key=header:X-Api-Key allow=" + digest);

        assertTrue(e.enforce(withKey(partnerToken)).admitted());
        assertTrue(e.enforce(withKey(partnerToken)).admitted(), "the partner bypasses the policy");
        assertTrue(e.enforce(withKey(digest)).admitted());
        assertTrue(e.enforce(withKey(digest)).denied(), "the digest sent verbatim is an ordinary key");
    }

    @Test
    void allowListedLongKey_isMatchedThoughTheResolvedKeyIsHashed() {
        String partnerToken = "partner-" + "p".repeat(300);
        Enforcer e = enforcer("per-key = token-bucket 1/1m key=header:X-Api-Key allow=" + partnerToken);

        for (int i = 0; i < 3; i++) {
            assertTrue(e.enforce(withKey(partnerToken)).admitted(), "request " + i);
        }
        assertTrue(e.enforce(withKey(partnerToken + "x")).admitted());
        assertTrue(e.enforce(withKey(partnerToken + "x")).denied(), "a near miss is an ordinary key");
    }

    @Test
    void chainOfTwoAttributes_sameValueFromEachSource_areDifferentKeys() {
        // A user who registers the name of a tenant must not share (or exhaust) the tenant's quota.
        KeyResolver chain = KeyResolvers.firstOf(KeyResolvers.attribute("tenant"), KeyResolvers.attribute("user"));

        String tenant = chain.resolve(FakeRequest.get("/").attribute("tenant", "acme"));
        String user = chain.resolve(FakeRequest.get("/").attribute("user", "acme"));

        assertNotEquals(tenant, user);
        assertEquals("attribute:tenant:acme", tenant);
        assertEquals("attribute:user:acme", user);
    }

    @Test
    void chainOfTwoHeaders_sameValueFromEachHeader_areDifferentKeys() {
        KeyResolver chain = KeyResolvers.firstOf(KeyResolvers.header("X-Api-Key"), KeyResolvers.header("X-Token"));

        assertNotEquals(chain.resolve(FakeRequest.get("/").header("X-Api-Key", "k")),
                chain.resolve(FakeRequest.get("/").header("X-Token", "k")));
    }

    @Test
    void chainOfCustomResolvers_taggedByTheirNames_andForeignResolversByTheirPlace() {
        KeyResolver a = KeyResolvers.custom("a", r -> r.header("A"));
        KeyResolver b = KeyResolvers.custom("b", r -> r.header("B"));
        KeyResolver lambda = r -> r.header("C");

        KeyResolver chain = KeyResolvers.firstOf(a, b, lambda);

        assertEquals("custom:a:1", chain.resolve(FakeRequest.get("/").header("A", "1")));
        assertEquals("custom:b:1", chain.resolve(FakeRequest.get("/").header("B", "1")));
        assertEquals("#3:1", chain.resolve(FakeRequest.get("/").header("C", "1")),
                "a resolver without a configuration name is tagged by its place, the same on every instance");
    }

    @Test
    void chain_sourceGivenTwice_isRejected() {
        assertEquals("a key fallback chain must not name 'ip' twice",
                assertThrows(IllegalArgumentException.class,
                        () -> KeyResolvers.firstOf(KeyResolvers.ip(), KeyResolvers.ip())).getMessage());
        assertEquals("a key fallback chain must not name 'header:x-api-key' twice",
                assertThrows(IllegalArgumentException.class, () -> KeyResolvers.firstOf(
                        KeyResolvers.header("X-Api-Key"), KeyResolvers.header("x-api-key"))).getMessage());
    }

    @Test
    void chain_tagThatExtendsAnother_isRejectedAsAmbiguous() {
        // attribute:a + ":b:v" and attribute:a:b + ":v" would be one key
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyResolvers.firstOf(
                KeyResolvers.attribute("a"), KeyResolvers.attribute("a:b")));
        assertEquals("a key fallback chain must not hold both 'attribute:a' and 'attribute:a:b': "
                + "their keys could be equal", e.getMessage());
    }

    @Test
    void chain_sourceAfterAConstant_isRejectedAsUnreachable() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyResolvers.firstOf(
                KeyResolvers.global(), KeyResolvers.ip()));
        assertEquals("a key fallback chain must end at 'global', which always yields a key, but 'ip' follows it",
                e.getMessage());
    }

    @Test
    void chainKeys_neverEnterTheDigestNamespace() {
        KeyResolver chain = KeyResolvers.firstOf(KeyResolvers.header("X-Api-Key"), KeyResolvers.ip());
        String digest = Keys.hash("whatever");

        String key = Keys.bound(chain.resolve(withKey(digest)), 128);

        assertFalse(key.startsWith(Keys.HASH_PREFIX), key);
        assertEquals("header:X-Api-Key:" + digest, key);
    }
}
