package io.github.sluice.demo;

import io.github.sluice.request.RequestView;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;

/**
 * The demo's stand-ins for what a real service looks up in its database: the plan of an API key
 * and the contracts of its partners. The {@code per-plan} policy names them
 * ({@code plan=bean:planOf}, {@code override=bean:contractOf}); {@link DemoApplication} registers
 * them on the enforcer.
 *
 * <p>The plan is looked up from the key, never read from a header the client writes: a client that
 * could write its plan would choose {@code pro} (docs/security.md).
 */
final class Plans {

    /** A key's plan: {@code pro} for keys starting with {@code pro-}, else {@code free}. */
    static final Function<String, String> PLAN_OF_KEY = key -> key != null && key.startsWith("pro-") ? "pro" : "free";

    private static final Map<String, String> CONTRACTS = Map.of("partner-1", "50/1m");

    private Plans() {
    }

    /** @return the plan of the request's {@code X-Api-Key} */
    static String planOf(RequestView request) {
        Iterator<String> keys = request.headers("X-Api-Key");
        return PLAN_OF_KEY.apply(keys.hasNext() ? keys.next() : null);
    }

    /** @return the contract limit of {@code key}, or {@code null} if it has none */
    static String contractOf(String key) {
        return key == null ? null : CONTRACTS.get(key);
    }
}
