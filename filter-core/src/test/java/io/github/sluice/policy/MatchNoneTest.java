package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code match=none}: a policy applied only when selected by name (JAX-RS {@code @RateLimited}). */
class MatchNoneTest {

    @Test
    void parse_none_isTheMatchOfNoRequest() {
        // Given the text form "none"
        Match m = Match.parse(" none ");

        // Then it is NONE, matches nothing and prints back as "none"
        assertSame(Match.NONE, m);
        assertFalse(m.matches("GET", "/"));
        assertFalse(m.matches("POST", "/none"));
        assertEquals("none", m.toString());
        assertTrue(m.rules().isEmpty());
    }

    @Test
    void parse_noneAsAPathPattern_isStillRejected() {
        // "/none" is a path; bare words other than "none" are not patterns
        assertTrue(Match.parse("/none").matches("GET", "/none"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Match.parse("nothing"));
        assertTrue(e.getMessage().contains("'nothing'"), e.getMessage());
    }

    @Test
    void enforce_policyMatchingNone_appliesOnlyWhenSelectedByName() {
        // Given a policy of 1 per minute that matches no path
        Policy p = Policy.parse("exports = fixed-window 1/1m key=global match=none");
        try (Enforcer enforcer = Enforcer.builder().policies(List.of(p)).listener(EnforcementListener.NONE).build()) {
            FakeRequest request = FakeRequest.get("/exports");

            // When requests are decided by path, then by name
            Verdict byPath = enforcer.enforce(request);
            PolicySet selection = enforcer.select("exports");
            Verdict first = enforcer.enforce(request, selection);
            Verdict second = enforcer.enforce(request, selection);

            // Then the path never applies it, the selection does
            assertEquals(0, byPath.size());
            assertTrue(first.admitted());
            assertTrue(second.denied());
        }
    }
}
