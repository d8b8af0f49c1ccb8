package io.github.sluice.spring.boot.actuate;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicyMetrics;
import io.github.sluice.http.StoreHealth;
import io.github.sluice.policy.Policy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code sluice} actuator endpoint ({@code /actuator/sluice}): the policies, as configured and
 * with their counters, and the health of the store.
 *
 * <ul>
 *   <li>{@code GET /actuator/sluice}: every policy and the stores;
 *   <li>{@code GET /actuator/sluice/{policy}}: one policy (404 if there is none of that name).
 * </ul>
 *
 * <p>Its default access is read-only: an operation that changes state (a reset) is refused until
 * {@code management.endpoint.sluice.access=unrestricted}. Operations on one key of a policy take
 * a second selector, {@code /actuator/sluice/{policy}/{key}}, which the one-policy read leaves
 * free.
 *
 * <p>Thread-safe: every operation reads counters that the request path updates without locks.
 */
@Endpoint(id = "sluice", defaultAccess = Access.READ_ONLY)
public class SluiceEndpoint {

    private final Enforcer enforcer;
    private final Map<String, String> configured;

    /**
     * Creates the endpoint.
     *
     * @param enforcer the enforcer to describe
     * @param configured each policy's text as configured (the {@code sluice.policies.*} values), by
     *     name; a policy not in it is described from its parts
     * @throws NullPointerException if an argument is null
     */
    public SluiceEndpoint(Enforcer enforcer, Map<String, String> configured) {
        this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
        this.configured = Map.copyOf(configured);
    }

    /**
     * Describes every policy and the stores.
     *
     * @return the policies in configuration order, and the store
     */
    @ReadOperation
    public SluiceDescriptor sluice() {
        Map<String, PolicyDescriptor> policies = new LinkedHashMap<>();
        for (PolicyMetrics m : enforcer.metrics().policies()) {
            policies.put(m.name(), describe(m));
        }
        Map<String, StoreDescriptor> stores = new LinkedHashMap<>();
        enforcer.metrics().stores().forEach((name, h) -> stores.put(name, StoreDescriptor.of(h)));
        return new SluiceDescriptor(enforcer.store().toString(), stores, policies);
    }

    /**
     * Describes one policy.
     *
     * @param policy the policy's name
     * @return the policy, or {@code null} (404) if there is none of that name
     */
    @ReadOperation
    public PolicyDescriptor policy(@Selector String policy) {
        for (PolicyMetrics m : enforcer.metrics().policies()) {
            if (m.name().equals(policy)) {
                return describe(m);
            }
        }
        return null;
    }

    private PolicyDescriptor describe(PolicyMetrics m) {
        Policy p = m.policy();
        String text = configured.get(p.name());
        return new PolicyDescriptor(text == null ? null : text.strip(), p.algorithm().toString(), p.key().toString(),
                p.match().toString(), p.cost(), p.status(), p.dryRun(),
                new Counters(m.allowed(), m.shaped(), m.denied(), m.released(),
                        m.concurrency() ? m.inFlight() : null, m.keys(), m.idleEvictions(), m.boundEvictions(),
                        m.shapingDelays(), TimeUnit.NANOSECONDS.toMillis(m.shapingDelayNanos())));
    }

    /**
     * Everything the endpoint reports.
     *
     * @param store the store holding the policies' state
     * @param stores the shared stores that reported an event (degraded or recovered), by name
     * @param policies the policies, by name, in configuration order
     */
    public record SluiceDescriptor(String store, Map<String, StoreDescriptor> stores,
            Map<String, PolicyDescriptor> policies) {
    }

    /**
     * One policy.
     *
     * @param configured the policy's text as configured in {@code sluice.policies.<name>}, or
     *     {@code null} for a policy defined otherwise (a properties file, an enforcer bean)
     * @param algorithm the algorithm and its parameters
     * @param key the key, in the policy language
     * @param match the requests it applies to
     * @param cost permits per request
     * @param status the status of its denials
     * @param dryRun whether it only reports
     * @param counters what it decided since start-up
     */
    public record PolicyDescriptor(String configured, String algorithm, String key, String match, long cost,
            int status, boolean dryRun, Counters counters) {
    }

    /**
     * A policy's counters since start-up (see {@link PolicyMetrics}).
     *
     * @param allowed requests admitted at once
     * @param shaped requests admitted after a delay
     * @param denied requests refused (dry-run: that would have been)
     * @param released requests whose concurrency permits were given back
     * @param inFlight requests holding a permit now, for a concurrency policy; else {@code null}
     * @param keys keys held now, or {@code -1} if unknown
     * @param idleEvictions keys dropped while idle
     * @param boundEvictions keys dropped at the bound on keys
     * @param shapingDelays requests delayed
     * @param shapingDelayMillis their total delay, in milliseconds
     */
    public record Counters(long allowed, long shaped, long denied, long released, Long inFlight, long keys,
            long idleEvictions, long boundEvictions, long shapingDelays, long shapingDelayMillis) {
    }

    /**
     * A shared store's health.
     *
     * @param degraded whether its failure policy decides now instead of the store
     * @param degradedForMillis how long the current episode has lasted, in milliseconds
     * @param degradations how many episodes began since start-up
     */
    public record StoreDescriptor(boolean degraded, long degradedForMillis, long degradations) {
        static StoreDescriptor of(StoreHealth h) {
            return new StoreDescriptor(h.degraded(), TimeUnit.NANOSECONDS.toMillis(h.degradedForNanos()),
                    h.degradations());
        }
    }
}
