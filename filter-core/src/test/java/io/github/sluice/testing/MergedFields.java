package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.testing.StructuredFields.Item;
import java.util.List;
import java.util.function.Function;

/**
 * The assertion every two-layer test makes on a real response (docs/configuration.md, "Two layers
 * on one request"): exactly one {@code RateLimit-Policy} line and one {@code RateLimit} line, each
 * a valid Structured Field List naming exactly the expected policies, each once, and, when a layer
 * refused, exactly one {@code Retry-After}.
 */
public final class MergedFields {

    private MergedFields() {
    }

    /**
     * Asserts the merged fields.
     *
     * @param lines the response's field lines of a name (any client's accessor)
     * @param policies the policy names the layers applied
     * @param refused whether a layer refused the request
     * @return the {@code RateLimit} members, in order
     */
    public static List<Item> assertMerged(Function<String, List<String>> lines, List<String> policies, boolean refused) {
        List<String> policy = lines.apply("RateLimit-Policy");
        List<String> limit = lines.apply("RateLimit");
        assertEquals(1, policy.size(), "RateLimit-Policy lines: " + policy);
        assertEquals(1, limit.size(), "RateLimit lines: " + limit);
        List<Item> policyItems = items(policy.get(0));
        List<Item> limitItems = items(limit.get(0));
        // The members' order is the order the layers wrote them in (outer first, except where an
        // inner layer's denial is written before an outer one's response phase): compared as sets.
        assertEquals(policies.stream().sorted().toList(), policyItems.stream().map(i -> (String) i.value()).sorted().toList(),
                "RateLimit-Policy: " + policy.get(0));
        assertEquals(policies.stream().sorted().toList(), limitItems.stream().map(i -> (String) i.value()).sorted().toList(),
                "RateLimit: " + limit.get(0));
        assertEquals(refused ? 1 : 0, lines.apply("Retry-After").size(), "Retry-After lines");
        return limitItems;
    }

    private static List<Item> items(String field) {
        return StructuredFields.parseList(field).stream().map(Item.class::cast).toList();
    }
}
