package io.github.sluice.spring.boot.health;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.StoreHealth;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of the store that holds Sluice's state (the {@code sluice} health contributor) on
 * Spring Boot 4.0, whose health API is {@code org.springframework.boot.health.contributor} in
 * {@code spring-boot-health}. The same report as Boot 3.x's
 * {@link io.github.sluice.spring.boot.actuate.SluiceHealthIndicator}.
 *
 * <p>{@code UP} while every shared store answers; {@code OUT_OF_SERVICE} while one is degraded
 * (its failure policy decides instead: fail open, fail closed or local limits), with how long and
 * how often. Not {@code DOWN}: the application still serves, and restarting it would not bring
 * Redis back, so a liveness probe must not act on it; {@code OUT_OF_SERVICE} takes the instance
 * out of a load balancer's rotation if the readiness group includes {@code sluice}, which is the
 * operator's choice (it is not in Boot's liveness or readiness groups by default).
 *
 * <p>Thread-safe.
 */
public class SluiceHealthIndicator extends AbstractHealthIndicator {

    private final Enforcer enforcer;

    /**
     * Creates the indicator.
     *
     * @param enforcer the enforcer whose stores it reports
     * @throws NullPointerException if {@code enforcer} is null
     */
    public SluiceHealthIndicator(Enforcer enforcer) {
        super("Sluice store health check failed");
        this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up().withDetail("store", enforcer.store().toString());
        for (Map.Entry<String, StoreHealth> e : enforcer.metrics().stores().entrySet()) {
            StoreHealth h = e.getValue();
            if (h.degraded()) {
                builder.status(Status.OUT_OF_SERVICE);
            }
            builder.withDetail(e.getKey(), Map.of("degraded", h.degraded(),
                    "degradedForMillis", TimeUnit.NANOSECONDS.toMillis(h.degradedForNanos()),
                    "degradations", h.degradations()));
        }
    }
}
