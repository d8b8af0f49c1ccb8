package io.github.sluice.spring.boot.actuate;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.TopClients;
import io.github.sluice.policy.Policy;
import java.util.List;
import java.util.Objects;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code sluicetop} actuator endpoint: the clients a policy refused (or admitted) most over the
 * last minutes, heaviest first, each with its count and the count's error bound
 * ({@link TopClients}).
 *
 * <p>{@code GET /actuator/sluicetop?policy=per-ip&by=denied&period=5m}: {@code by} is
 * {@code denied} or {@code admitted} (kept only with {@code sluice.top-clients-admitted=true}),
 * {@code period} {@code 1m} to {@code 15m}; the three are required (Boot answers 400 without one).
 * A malformed {@code by} or {@code period} is a 400; an unknown policy or a list not kept a 404.
 * It is an endpoint of its own, not a path under {@code /actuator/sluice}, whose paths are a
 * policy's name and a client key, so that no policy name or key can shadow it.
 *
 * <p>It shows client keys: expose it only behind the same protection as the rest of the actuator
 * ({@code management.endpoints.web.exposure.include=sluicetop}). Read-only. Thread-safe.
 */
@Endpoint(id = "sluicetop", defaultAccess = Access.READ_ONLY)
public class SluiceTopEndpoint {

    private final Enforcer enforcer;

    /**
     * Creates the endpoint.
     *
     * @param enforcer the enforcer whose policies it shows
     * @throws NullPointerException if null
     */
    public SluiceTopEndpoint(Enforcer enforcer) {
        this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
    }

    /**
     * Lists a policy's heaviest clients.
     *
     * @param policy the policy's name
     * @param by {@code denied} or {@code admitted}
     * @param period {@code 1m} to {@code 15m}
     * @return the list (200), or 400 / 404 as the class comment says
     */
    @ReadOperation
    public WebEndpointResponse<Top> top(String policy, String by, String period) {
        TopClients.By what;
        int minutes;
        try {
            what = TopClients.By.of(by);
            minutes = TopClients.minutes(period);
        } catch (IllegalArgumentException bad) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        for (Policy p : enforcer.policies()) {
            if (p.name().equals(policy)) {
                if (!enforcer.metrics().policy(policy).keepsTopClients(what)) {
                    return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
                }
                TopClients.Top top = enforcer.metrics().policy(policy).topClients(what).top(minutes);
                return new WebEndpointResponse<>(new Top(top.policy(), what.label(), minutes + "m", top.size(),
                        top.total(), top.bound(), top.entries()));
            }
        }
        return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }

    /**
     * The answer: the fields of the admin servlet's {@code /top} document.
     *
     * @param policy the policy's name
     * @param by {@code denied} or {@code admitted}
     * @param period the period, e.g. {@code 5m}
     * @param size counters per minute, and the most clients listed
     * @param total requests counted over the period
     * @param bound the most requests a client not listed can have made
     * @param top the clients, heaviest first: key, count (at least the true number), error (the
     *     count's most excess)
     */
    public record Top(String policy, String by, String period, int size, long total, long bound,
            List<TopClients.Entry> top) {
    }
}
