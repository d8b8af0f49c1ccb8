package io.github.sluice.http;

import io.github.sluice.policy.Policy;
import io.github.sluice.store.KeySpace;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Publishes an {@link Enforcer} as an {@link EnforcerMXBean} named
 * {@code io.github.sluice:type=Enforcer,name=<name>}, using nothing but the JDK's
 * {@code java.management}.
 *
 * <pre>{@code
 * Enforcer enforcer = Enforcer.builder().policies(policies).build();
 * EnforcerJmx.register(enforcer, "api");    // io.github.sluice:type=Enforcer,name=api
 * ...
 * enforcer.close();                          // unregisters it
 * }</pre>
 *
 * <p>The MXBean reads the enforcer's {@linkplain Enforcer#metrics() metrics} and key spaces when a
 * JMX client asks; nothing is added to the request path. It is unregistered when the enforcer is
 * closed, so a redeployed web application does not leak it (nor, through it, its class loader).
 *
 * <p>Thread-safe.
 */
public final class EnforcerJmx {

    /** The JMX domain of Sluice's MBeans. */
    public static final String DOMAIN = "io.github.sluice";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private EnforcerJmx() {
    }

    /**
     * Registers an enforcer's MXBean with the platform MBean server.
     *
     * @param enforcer the enforcer
     * @param name the MBean's {@code name} key: 1 to 64 of {@code [A-Za-z0-9._-]}, unique in the JVM
     * @return the MBean's name
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the name is malformed or already registered
     */
    public static ObjectName register(Enforcer enforcer, String name) {
        return register(enforcer, name, ManagementFactory.getPlatformMBeanServer());
    }

    /**
     * Registers an enforcer's MXBean with an MBean server. It is unregistered when the enforcer
     * closes.
     *
     * @param enforcer the enforcer
     * @param name the MBean's {@code name} key: 1 to 64 of {@code [A-Za-z0-9._-]}, unique in the server
     * @param server the MBean server
     * @return the MBean's name
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the name is malformed or already registered
     */
    public static ObjectName register(Enforcer enforcer, String name, MBeanServer server) {
        Objects.requireNonNull(enforcer, "enforcer");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(server, "server");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name must be 1 to 64 of [A-Za-z0-9._-] but was '" + name + "'");
        }
        ObjectName objectName;
        try {
            objectName = new ObjectName(DOMAIN + ":type=Enforcer,name=" + name);
            server.registerMBean(new Bean(enforcer), objectName);
        } catch (InstanceAlreadyExistsException e) {
            throw new IllegalArgumentException("name must be unique but an MBean named '" + name
                    + "' is already registered (" + DOMAIN + ":type=Enforcer,name=" + name + ")", e);
        } catch (JMException e) {
            throw new IllegalArgumentException("cannot register the MBean of enforcer '" + name + "': " + e, e);
        }
        enforcer.onClose(() -> {
            try {
                server.unregisterMBean(objectName);
            } catch (InstanceNotFoundException gone) {
                // Unregistered by someone else: nothing left to leak.
            } catch (JMException e) {
                System.getLogger("io.github.sluice").log(System.Logger.Level.WARNING,
                        "cannot unregister " + objectName, e);
            }
        });
        return objectName;
    }

    /** The MXBean: reads the enforcer when asked. */
    private static final class Bean implements EnforcerMXBean {
        private final Enforcer enforcer;

        Bean(Enforcer enforcer) {
            this.enforcer = enforcer;
        }

        private Map<String, Long> each(Predicate<Policy> which, ToLongFunction<PolicyMetrics> value) {
            Map<String, Long> out = new LinkedHashMap<>();
            EnforcerMetrics metrics = enforcer.metrics();
            for (Policy p : enforcer.policyArray()) {
                if (which.test(p)) {
                    out.put(p.name(), value.applyAsLong(metrics.policy(p.name())));
                }
            }
            return out;
        }

        @Override
        public String[] getPolicies() {
            Policy[] policies = enforcer.policyArray();
            String[] out = new String[policies.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = policies[i].toString();
            }
            return out;
        }

        @Override
        public Map<String, Long> getAllowed() {
            return each(p -> true, PolicyMetrics::allowed);
        }

        @Override
        public Map<String, Long> getShaped() {
            return each(p -> true, PolicyMetrics::shaped);
        }

        @Override
        public Map<String, Long> getDenied() {
            return each(p -> !p.dryRun(), PolicyMetrics::denied);
        }

        @Override
        public Map<String, Long> getDryRunDenied() {
            return each(Policy::dryRun, PolicyMetrics::denied);
        }

        @Override
        public Map<String, Long> getReleased() {
            return each(Policy::concurrency, PolicyMetrics::released);
        }

        @Override
        public Map<String, Long> getInFlight() {
            return each(Policy::concurrency, PolicyMetrics::inFlight);
        }

        @Override
        public Map<String, Long> getUnmatchedReleases() {
            return each(Policy::concurrency, PolicyMetrics::unmatchedReleases);
        }

        @Override
        public Map<String, Long> getOverrideFallbacks() {
            return each(p -> p.plans() != null && p.plans().override() != null, PolicyMetrics::overrideFallbacks);
        }

        @Override
        public Map<String, Long> getShapingDelayMillis() {
            return each(p -> !p.dryRun(), m -> m.shapingDelayNanos() / 1_000_000);
        }

        @Override
        public Map<String, Long> getAdaptiveLimit() {
            Map<String, Long> out = new LinkedHashMap<>();
            EnforcerMetrics metrics = enforcer.metrics();
            for (Policy p : enforcer.policyArray()) {
                PolicyMetrics m = metrics.policy(p.name());
                if (m != null && m.adaptive()) {
                    out.put(p.name(), m.adaptiveLimit());
                }
            }
            return out;
        }

        @Override
        public Map<String, Long> getAdaptivePartitionLimit() {
            Map<String, Long> out = new LinkedHashMap<>();
            EnforcerMetrics metrics = enforcer.metrics();
            for (Policy p : enforcer.policyArray()) {
                PolicyMetrics m = metrics.policy(p.name());
                if (m != null && m.adaptive()) {
                    for (String partition : m.adaptivePartitions()) {
                        out.put(p.name() + "/" + partition, m.adaptivePartitionLimit(partition));
                    }
                }
            }
            return out;
        }

        @Override
        public Map<String, Long> getKeys() {
            Map<String, Long> out = new LinkedHashMap<>();
            Policy[] policies = enforcer.policyArray();
            KeySpace[] spaces = enforcer.spaceArray();
            for (int i = 0; i < policies.length; i++) {
                out.put(policies[i].name(), spaces[i].size());
            }
            return out;
        }

        @Override
        public Map<String, Long> getIdleEvictions() {
            return each(p -> true, PolicyMetrics::idleEvictions);
        }

        @Override
        public Map<String, Long> getBoundEvictions() {
            return each(p -> true, PolicyMetrics::boundEvictions);
        }

        @Override
        public long getKeyCount() {
            long total = 0;
            for (KeySpace s : enforcer.spaceArray()) {
                total += Math.max(0, s.size());
            }
            return total;
        }

        @Override
        public String[] getDegradedStores() {
            return enforcer.metrics().stores().values().stream()
                    .filter(StoreHealth::degraded).map(StoreHealth::name).toArray(String[]::new);
        }

        @Override
        public String getDescription() {
            return enforcer.description();
        }

        @Override
        public String topClients(String policy, String by, String period) {
            TopClients.By what = TopClients.By.of(by);
            int minutes = TopClients.minutes(period);
            for (Policy p : enforcer.policyArray()) {
                if (p.name().equals(policy)) {
                    return AdminJson.top(enforcer.metrics().policy(policy).topClients(what).top(minutes));
                }
            }
            throw new IllegalArgumentException("no policy '" + policy + "'");
        }
    }
}
