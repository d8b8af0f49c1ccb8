package io.github.sluice.micrometer;

import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicyMetrics;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;

/**
 * The gauges of a policy that read the enforcer's store rather than its counters, for the alerts
 * of {@code docs/observability}: the in-memory registry's bound on the policy's keys ("registry at
 * its key bound"), and an adaptive limit's current value with its floor and ceiling ("adaptive
 * limit pinned at min"). Read when scraped; a gauge that cannot be read (a policy removed since)
 * reads NaN, which Prometheus drops.
 */
final class PolicyGauges {

    private PolicyGauges() {
    }

    static List<Meter> register(Enforcer enforcer, PolicyMetrics p, Tags t, MeterRegistry registry) {
        List<Meter> meters = new ArrayList<>();
        String name = p.name();
        if (enforcer.store() instanceof ShardedRegistry r && !(p.policy().algorithm() instanceof AdaptiveLimit)) {
            meters.add(Gauge.builder("sluice.registry.keys.max", r, reg -> {
                try {
                    return reg.maxKeys(name);
                } catch (IllegalArgumentException gone) {
                    return Double.NaN;
                }
            }).tags(t).description("the in-memory registry's bound on a policy's keys").register(registry));
        }
        Policy policy = p.policy();
        if (policy.algorithm() instanceof AdaptiveLimit<?> a && KeyResolvers.GLOBAL.equals(policy.key().toString())) {
            // Its current value, sluice.adaptive.limit, is registered with the partitions' (SluiceMetrics).
            meters.add(Gauge.builder("sluice.adaptive.limit.min", a, AdaptiveLimit::min).tags(t)
                    .description("an adaptive policy's smallest limit").register(registry));
            meters.add(Gauge.builder("sluice.adaptive.limit.max", a, AdaptiveLimit::max).tags(t)
                    .description("an adaptive policy's largest limit").register(registry));
        }
        return meters;
    }
}
