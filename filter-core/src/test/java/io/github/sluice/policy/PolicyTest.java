package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.key.KeyResolvers;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PolicyTest {

    private static Policy.Builder base() {
        return Policy.builder("p").algorithm(TokenBucket.of(Rate.perSecond(5))).key(KeyResolvers.ip());
    }

    @Test
    void builder_defaults() {
        Policy p = base().build();

        assertEquals(Match.ALL, p.match());
        assertEquals(1, p.cost());
        assertEquals(429, p.status());
        assertEquals(false, p.dryRun());
        assertEquals(true, p.allow().isEmpty());
        assertEquals(p, p.toBuilder().build());
        assertNotEquals(p, p.toBuilder().status(503).build());
        assertEquals("Policy{p, token-bucket{interval=200ms, burst=5}, key=ip{trusted=[], header=X-Forwarded-For, "
                + "ipv6Prefix=64}, match=/*, cost=1, status=429}", p.toString());
    }

    @Test
    void toString_costWithADefault_namesTheDefault() {
        Policy p = base().cost(RequestCost.header("X-Batch-Size").orElse(3)).build();

        assertTrue(p.toString().contains(", cost=header:X-Batch-Size, cost-default=3, "), p.toString());
        assertFalse(base().build().toString().contains("cost-default"));
    }

    @Test
    void builder_invalid_failsWithTheRuleAndThePolicy() {
        assertEquals("policy name must match [a-z0-9-]{1,64} but was 'per_ip'",
                assertThrows(IllegalArgumentException.class, () -> Policy.builder("per_ip")).getMessage());
        assertEquals("policy name must match [a-z0-9-]{1,64} but was '" + "a".repeat(65) + "'",
                assertThrows(IllegalArgumentException.class, () -> Policy.builder("a".repeat(65))).getMessage());
        assertEquals("algorithm must be set (policy 'p')",
                assertThrows(IllegalStateException.class, () -> Policy.builder("p").key(KeyResolvers.ip()).build())
                        .getMessage());
        assertEquals("key must be set (policy 'p')", assertThrows(IllegalStateException.class,
                () -> Policy.builder("p").algorithm(TokenBucket.of(Rate.perSecond(1))).build()).getMessage());
        assertEquals("status must be between 400 and 599 but was 600 (policy 'p')",
                assertThrows(IllegalArgumentException.class, () -> base().status(600)).getMessage());
        assertEquals("cost must be >= 1 but was 0 (policy 'p')",
                assertThrows(IllegalArgumentException.class, () -> base().cost(0)).getMessage());
        assertEquals("cost must be <= the limit 5 but was 6 (policy 'p')",
                assertThrows(IllegalArgumentException.class, () -> base().cost(6).build()).getMessage());
        assertThrows(NullPointerException.class, () -> Policy.builder(null));
        assertThrows(NullPointerException.class, () -> base().match((Match) null));
    }
}
