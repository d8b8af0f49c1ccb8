package io.github.sluice.spring.boot.actuate;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.KeyState;
import io.github.sluice.http.PolicyMetrics;
import io.github.sluice.http.StoreHealth;
import io.github.sluice.policy.Policy;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code sluice} actuator endpoint ({@code /actuator/sluice}): the policies, as configured and
 * with their counters, and the health of the store.
 *
 * <ul>
 *   <li>{@code GET /actuator/sluice}: every policy and the stores;
 *   <li>{@code GET /actuator/sluice/{policy}}: one policy (404 if there is none of that name);
 *   <li>{@code GET /actuator/sluice/{policy}/{key}}: a client key's state under that policy
 *       (limit, remaining, seconds until fully restored, in flight), read without consuming
 *       anything ({@link Enforcer#inspect(String, String)});
 *   <li>{@code DELETE /actuator/sluice/{policy}/{key}}: forgets the key's state under that policy,
 *       so its next request finds a fresh quota ({@link Enforcer#reset(String, String)});
 *       concurrency policies are never reset (their state is the requests still running).
 * </ul>
 * The key is the rest of the path, so keys with a slash (an IPv6 network such as
 * {@code 2001:db8:1:2::/64}) work; percent-encode other reserved characters.
 *
 * <p>Its default access is read-only: the reset is refused (not exposed) until
 * {@code management.endpoint.sluice.access=unrestricted}. Keys are client identities: expose the
 * endpoint only behind the same protection as the rest of the actuator.
 *
 * <p>Thread-safe: every operation reads counters that the request path updates without locks.
 */
@Endpoint(id = "sluice", defaultAccess = Access.READ_ONLY)
public class SluiceEndpoint {

    private final Enforcer enforcer;
    private final Map<String, String> configured;
    /** The policies the configured texts describe: a later version in force has no configured text. */
    private final Map<String, Policy> described;

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
        Map<String, Policy> startup = new HashMap<>();
        for (Policy p : enforcer.policies()) {
            startup.put(p.name(), p);
        }
        this.described = Map.copyOf(startup);
    }

    /**
     * Describes every policy in force and the stores.
     *
     * @return the policies in force (after a change at run time, the new versions) in
     *     configuration order, and the store
     */
    @ReadOperation
    public SluiceDescriptor sluice() {
        Map<String, PolicyDescriptor> policies = new LinkedHashMap<>();
        for (Policy p : enforcer.policies()) {
            policies.put(p.name(), describe(p));
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
        for (Policy p : enforcer.policies()) {
            if (p.name().equals(policy)) {
                return describe(p);
            }
        }
        return null;
    }

    /**
     * Reads a client key's state under one policy, consuming nothing.
     *
     * @param policy the policy's name
     * @param key the key as the policy resolves it (e.g. {@code 192.0.2.7}, or for a chain
     *     {@code header:X-Api-Key:k-123}), the remaining path segments joined by {@code /}
     * @return the state, or {@code null} (404) if there is no policy of that name
     */
    @ReadOperation
    public KeyState key(@Selector String policy, @Selector(match = Selector.Match.ALL_REMAINING) String[] key) {
        if (!known(policy)) {
            return null;
        }
        return enforcer.inspect(String.join("/", key), policy);
    }

    /**
     * Forgets a client key's state under one policy. Refused unless the endpoint's access is
     * unrestricted.
     *
     * @param policy the policy's name
     * @param key the key, as for {@link #key}
     * @return what was done (200), or 404 if there is no policy of that name
     */
    @DeleteOperation
    public WebEndpointResponse<Reset> reset(@Selector String policy,
            @Selector(match = Selector.Match.ALL_REMAINING) String[] key) {
        if (!known(policy)) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        String k = String.join("/", key);
        return new WebEndpointResponse<>(new Reset(policy, k, enforcer.reset(k, policy)));
    }

    private boolean known(String policy) {
        for (Policy p : enforcer.policies()) {
            if (p.name().equals(policy)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The answer to a reset.
     *
     * @param policy the policy's name
     * @param key the key
     * @param forgotten {@code true} if the key had state under the policy, now forgotten;
     *     {@code false} if it had none, or the policy is a concurrency limit (never reset)
     */
    public record Reset(String policy, String key, boolean forgotten) {
    }

    /** A policy in force, with the counters of its name (kept across changes at run time). */
    private PolicyDescriptor describe(Policy p) {
        PolicyMetrics m = enforcer.metrics().policy(p.name());
        // The configured text describes the version built at start-up, not one put in force later.
        String text = p.equals(described.get(p.name())) ? configured.get(p.name()) : null;
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
     *     {@code null} for a policy defined otherwise (a properties file, an enforcer bean) or
     *     changed at run time since start-up (the other fields describe the version in force)
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
