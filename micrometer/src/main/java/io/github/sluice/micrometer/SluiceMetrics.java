package io.github.sluice.micrometer;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.EnforcerMetrics;
import io.github.sluice.http.PolicyMetrics;
import io.github.sluice.http.StoreHealth;
import io.github.sluice.store.StoreLatency;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Binds an {@link Enforcer}'s counts ({@link Enforcer#metrics()}) to a Micrometer
 * {@link MeterRegistry}.
 *
 * <pre>{@code
 * PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
 * SluiceMetrics metrics = new SluiceMetrics(enforcer, Tags.of("app", "shop"));
 * metrics.bindTo(registry);
 * ...
 * metrics.close();   // removes the meters, e.g. when the enforcer goes away
 * }</pre>
 *
 * <h2>Meters</h2>
 * <table>
 *   <caption>meters and their tags</caption>
 *   <tr><th>name (Prometheus)</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@code sluice.decisions} ({@code sluice_decisions_total})</td><td>counter</td>
 *       <td>policy, outcome, status</td><td>requests each policy decided. {@code outcome}:
 *       {@code allowed}, {@code shaped}, {@code denied}; for a dry-run policy {@code allowed},
 *       {@code dry_run_shaped} (not delayed) and {@code dry_run_denied} (not refused).
 *       {@code status}: the HTTP status of a denial ({@code 429}, the policy's own, or the one a
 *       degraded store asked for), {@code none} for the other outcomes</td></tr>
 *   <tr><td>{@code sluice.releases} ({@code sluice_releases_total})</td><td>counter</td>
 *       <td>policy</td><td>requests that gave a concurrency policy's permits back</td></tr>
 *   <tr><td>{@code sluice.releases.unmatched} ({@code sluice_releases_unmatched_total})</td>
 *       <td>counter</td><td>policy</td><td>releases that gave back permits their key did not hold
 *       (a request released twice, or without an admission): 0 unless an adapter or store has a
 *       bug that can over-admit; alert on any increase</td></tr>
 *   <tr><td>{@code sluice.concurrency.in.flight} ({@code sluice_concurrency_in_flight})</td>
 *       <td>gauge</td><td>policy</td><td>requests holding a concurrency policy's permits</td></tr>
 *   <tr><td>{@code sluice.shaping.delay} ({@code sluice_shaping_delay_seconds_count},
 *       {@code _sum})</td><td>timer</td><td>policy</td><td>requests an enforced policy delayed,
 *       and the total delay</td></tr>
 *   <tr><td>{@code sluice.adaptive.limit} ({@code sluice_adaptive_limit})</td><td>gauge</td>
 *       <td>policy</td><td>the current limit of an adaptive policy keyed {@code global} (only
 *       those: a policy keyed per client has one limit per key)</td></tr>
 *   <tr><td>{@code sluice.adaptive.partition.limit} ({@code sluice_adaptive_partition_limit})</td>
 *       <td>gauge</td><td>policy, partition</td><td>a partition's guaranteed share of that limit,
 *       {@code ceil(share * limit)}</td></tr>
 *   <tr><td>{@code sluice.shaping.delay.le} ({@code sluice_shaping_delay_le_total}; not {@code _bucket}, a suffix Prometheus reserves for its own histograms)</td>
 *       <td>counter</td><td>policy, le</td><td>requests an enforced policy delayed by at most
 *       {@code le} seconds (1 ms to 10 s, and {@code +Inf}): cumulative buckets for
 *       {@code histogram_quantile}</td></tr>
 *   <tr><td>{@code sluice.registry.keys} ({@code sluice_registry_keys})</td><td>gauge</td>
 *       <td>policy</td><td>keys the store holds for the policy</td></tr>
 *   <tr><td>{@code sluice.registry.evictions} ({@code sluice_registry_evictions_total})</td>
 *       <td>counter</td><td>policy, cause</td><td>keys dropped: {@code cause=idle} (lossless) or
 *       {@code cause=bound} (a key with history, at the bound on keys)</td></tr>
 *   <tr><td>{@code sluice.registry.keys.max} ({@code sluice_registry_keys_max})</td><td>gauge</td>
 *       <td>policy</td><td>the in-memory registry's bound on the policy's keys (in-memory store only)</td></tr>
 *   <tr><td>{@code sluice.adaptive.limit.min}, {@code .max} ({@code sluice_adaptive_limit_min}, {@code _max})</td>
 *       <td>gauge</td><td>policy</td><td>an adaptive policy's smallest and largest limit
 *       (policies with {@code key=global})</td></tr>
 *   <tr><td>{@code sluice.decisions.degraded} ({@code sluice_decisions_degraded_total})</td>
 *       <td>counter</td><td>policy</td><td>decisions a degraded shared store's failure policy made
 *       (also counted under their outcome in {@code sluice.decisions})</td></tr>
 *   <tr><td>{@code sluice.config.reloads} ({@code sluice_config_reloads_total})</td><td>counter</td>
 *       <td>result</td><td>versions of the watched configuration file: {@code applied}, or
 *       {@code refused} (the policies in force stayed; logged at WARNING)</td></tr>
 *   <tr><td>{@code sluice.store.degraded} ({@code sluice_store_degraded})</td><td>gauge</td>
 *       <td>store</td><td>1 while the shared store is degraded, else 0</td></tr>
 *   <tr><td>{@code sluice.store.degraded.duration} ({@code sluice_store_degraded_duration_seconds})</td>
 *       <td>time gauge</td><td>store</td><td>how long the current degraded episode has lasted</td></tr>
 *   <tr><td>{@code sluice.store.degraded.time} ({@code sluice_store_degraded_time_seconds_total})</td>
 *       <td>counter</td><td>store</td><td>time spent degraded, all episodes</td></tr>
 *   <tr><td>{@code sluice.store.degradations} ({@code sluice_store_degradations_total})</td>
 *       <td>counter</td><td>store</td><td>times the store became degraded</td></tr>
 *   <tr><td>{@code sluice.store.latency} ({@code sluice_store_latency_seconds_count}, {@code _sum})</td>
 *       <td>timer</td><td>store, operation</td><td>round trips to a shared store that Redis
 *       answered, and their total time ({@link StoreLatency}; the Redis store's operations:
 *       {@code acquire}, {@code release}, {@code renew}, {@code probe})</td></tr>
 *   <tr><td>{@code sluice.store.latency.le} ({@code sluice_store_latency_le_total})</td>
 *       <td>counter</td><td>store, operation, le</td><td>those round trips that took at most
 *       {@code le} seconds (100 µs to 1 s, {@code le} from {@code 0.0001} to {@code 1.0}, and {@code +Inf}): cumulative buckets for
 *       {@code histogram_quantile}, 13 per operation</td></tr>
 * </table>
 * Every meter also carries the tags given to the constructor. A store's latency appears when an
 * enforcer is built with the store ({@code Store.latency()}); its health appears when it reports its
 * first event (to an {@link EnforcerMetrics} that the store was given as its listener); a denial
 * status other than the policy's own appears the first time it is counted.
 *
 * <h2>Never the key</h2>
 * No meter is tagged with a client's key (address, API key, user): keys are unbounded, so a flood
 * of spoofed addresses would become a flood of time series, and they are personal data.
 *
 * <h2>Cost</h2>
 * The meters are functions of the enforcer's own counters, read when the registry is scraped;
 * binding adds nothing to the request path. The meters hold the counters weakly (Micrometer's
 * default), so a bound registry does not keep a closed enforcer alive; {@link #close()} removes
 * them.
 *
 * <p>Thread-safe.
 */
public final class SluiceMetrics implements MeterBinder, AutoCloseable {

    private final Enforcer enforcer;
    private final Tags tags;
    private final List<Bound> bound = new ArrayList<>();

    /** One registry this binder was bound to, with what it added there. */
    private static final class Bound implements EnforcerMetrics.Observer {
        final MeterRegistry registry;
        final Tags tags;
        final Enforcer enforcer;
        final List<Meter> meters = new ArrayList<>();

        Bound(MeterRegistry registry, Tags tags, Enforcer enforcer) {
            this.registry = registry;
            this.tags = tags;
            this.enforcer = enforcer;
        }

        /** The enforcer's own meters: the watched configuration file's versions, applied or refused. */
        synchronized void enforcer(EnforcerMetrics m) {
            meters.add(FunctionCounter.builder("sluice.config.reloads", m, EnforcerMetrics::configReloadsApplied)
                    .tags(tags.and("result", "applied"))
                    .description("versions of the watched configuration file decided").register(registry));
            meters.add(FunctionCounter.builder("sluice.config.reloads", m, EnforcerMetrics::configReloadsRefused)
                    .tags(tags.and("result", "refused"))
                    .description("versions of the watched configuration file decided").register(registry));
        }

        @Override
        public synchronized void policyAdded(PolicyMetrics policy) {
            policy(policy);
        }

        @Override
        public synchronized void statusAdded(PolicyMetrics policy, int status) {
            denials(policy, status);
        }

        @Override
        public synchronized void storeAdded(StoreHealth store) {
            store(store);
        }

        @Override
        public synchronized void storeLatencyAdded(StoreLatency latency) {
            latency(latency);
        }

        synchronized void policy(PolicyMetrics p) {
            Tags t = tags.and("policy", p.name());
            boolean dry = p.dryRun();
            decisions(p, t, "allowed", PolicyMetrics::allowed);
            decisions(p, t, dry ? "dry_run_shaped" : "shaped", PolicyMetrics::shaped);
            for (int status : p.deniedStatuses()) {
                denials(p, status);
            }
            if (p.overrides()) {
                meters.add(FunctionCounter.builder("sluice.overrides.fallbacks", p, PolicyMetrics::overrideFallbacks)
                        .tags(t).description("requests decided by the client's plan because the override lookup"
                                + " did not answer in time or failed").register(registry));
            }
            if (!p.concurrency()) {
                meters.add(FunctionCounter.builder("sluice.refunds", p, PolicyMetrics::refunds).tags(t)
                        .description("admissions given back by their receipt: requests a policy that counts by"
                                + " outcome did not count, and requests that ended while delayed").register(registry));
            }
            if (p.concurrency()) {
                meters.add(FunctionCounter.builder("sluice.releases", p, PolicyMetrics::released).tags(t)
                        .description("requests that gave a concurrency policy's permits back").register(registry));
                meters.add(FunctionCounter.builder("sluice.releases.unmatched", p, PolicyMetrics::unmatchedReleases)
                        .tags(t).description("releases that gave back permits their key did not hold")
                        .register(registry));
                meters.add(Gauge.builder("sluice.concurrency.in.flight", p, PolicyMetrics::inFlight).tags(t)
                        .description("requests holding a concurrency policy's permits").register(registry));
            }
            if (!dry) {
                meters.add(FunctionTimer.builder("sluice.shaping.delay", p, PolicyMetrics::shapingDelays,
                        PolicyMetrics::shapingDelayNanos, TimeUnit.NANOSECONDS).tags(t)
                        .description("requests a policy delayed, and the total delay").register(registry));
                long[] bounds = PolicyMetrics.shapingDelayBounds();
                for (int b = 0; b <= bounds.length; b++) {
                    int bucket = b;
                    String le = b == bounds.length ? "+Inf" : Double.toString(bounds[b] / 1e9);
                    meters.add(FunctionCounter.builder("sluice.shaping.delay.le", p, m -> m.shapingDelays(bucket))
                            .tags(t.and("le", le)).description("requests a policy delayed by at most le seconds")
                            .register(registry));
                }
            }
            if (p.adaptive()) {
                meters.add(Gauge.builder("sluice.adaptive.limit", p, PolicyMetrics::adaptiveLimit).tags(t)
                        .description("the current limit of an adaptive policy keyed global").register(registry));
                for (String partition : p.adaptivePartitions()) {
                    meters.add(Gauge.builder("sluice.adaptive.partition.limit", p,
                            m -> m.adaptivePartitionLimit(partition)).tags(t.and("partition", partition))
                            .description("a partition's guaranteed share of its adaptive policy's current limit")
                            .register(registry));
                }
            }
            meters.add(Gauge.builder("sluice.registry.keys", p, PolicyMetrics::keys).tags(t)
                    .description("keys the store holds for a policy").register(registry));
            meters.addAll(PolicyGauges.register(enforcer, p, t, registry));
            meters.add(FunctionCounter.builder("sluice.decisions.degraded", p, PolicyMetrics::degradedDecisions).tags(t)
                    .description("decisions a degraded shared store's failure policy made").register(registry));
            meters.add(FunctionCounter.builder("sluice.registry.evictions", p, PolicyMetrics::idleEvictions)
                    .tags(t.and("cause", "idle"))
                    .description("keys dropped by the in-memory registry").register(registry));
            meters.add(FunctionCounter.builder("sluice.registry.evictions", p, PolicyMetrics::boundEvictions)
                    .tags(t.and("cause", "bound"))
                    .description("keys dropped by the in-memory registry").register(registry));
        }

        private void decisions(PolicyMetrics p, Tags t, String outcome,
                java.util.function.ToDoubleFunction<PolicyMetrics> count) {
            meters.add(FunctionCounter.builder("sluice.decisions", p, count)
                    .tags(t.and("outcome", outcome).and("status", "none"))
                    .description("requests each policy decided").register(registry));
        }

        synchronized void denials(PolicyMetrics p, int status) {
            meters.add(FunctionCounter.builder("sluice.decisions", p, m -> m.denied(status))
                    .tags(tags.and("policy", p.name()).and("outcome", p.dryRun() ? "dry_run_denied" : "denied")
                            .and("status", status == 0 ? "other" : Integer.toString(status)))
                    .description("requests each policy decided").register(registry));
        }

        synchronized void store(StoreHealth s) {
            Tags t = tags.and("store", s.name());
            meters.add(Gauge.builder("sluice.store.degraded", s, h -> h.degraded() ? 1 : 0).tags(t)
                    .description("1 while the shared store is degraded and its failure policy decides")
                    .register(registry));
            meters.add(TimeGauge.builder("sluice.store.degraded.duration", s, TimeUnit.NANOSECONDS,
                    StoreHealth::degradedForNanos).tags(t)
                    .description("how long the current degraded episode has lasted").register(registry));
            meters.add(FunctionCounter.builder("sluice.store.degraded.time", s, h -> h.degradedTotalNanos() / 1e9)
                    .tags(t).baseUnit("seconds")
                    .description("time the store spent degraded").register(registry));
            meters.add(FunctionCounter.builder("sluice.store.degradations", s, StoreHealth::degradations).tags(t)
                    .description("times the store became degraded").register(registry));
        }

        /** A timer (count and total) and cumulative buckets per operation of a store. */
        synchronized void latency(StoreLatency l) {
            long[] bounds = StoreLatency.bounds();
            for (int op = 0; op < l.operations().size(); op++) {
                int i = op;
                Tags t = tags.and("store", l.store()).and("operation", l.operations().get(op));
                meters.add(FunctionTimer.builder("sluice.store.latency", l, s -> s.count(i), s -> s.totalNanos(i),
                        TimeUnit.NANOSECONDS).tags(t)
                        .description("round trips to the shared store, and their total time").register(registry));
                for (int b = 0; b <= bounds.length; b++) {
                    int bucket = b;
                    String le = b == bounds.length ? "+Inf" : seconds(bounds[b]);
                    meters.add(FunctionCounter.builder("sluice.store.latency.le", l, s -> s.countAtMost(i, bucket))
                            .tags(t.and("le", le)).description("round trips to the shared store that took at most"
                                    + " le seconds").register(registry));
                }
            }
        }

        /** Seconds as Prometheus' clients write {@code le}: {@code 0.0001}, {@code 0.25}, {@code 1.0}. */
        private static String seconds(long nanos) {
            String s = Double.toString(nanos / 1e9);
            return s.indexOf('E') < 0 ? s : java.math.BigDecimal.valueOf(nanos / 1e9).stripTrailingZeros().toPlainString();
        }

        synchronized void remove() {
            for (Meter m : meters) {
                registry.remove(m);
            }
            meters.clear();
        }
    }

    /**
     * Binds an enforcer's counts, with no extra tags.
     *
     * @param enforcer the enforcer
     * @throws NullPointerException if null
     */
    public SluiceMetrics(Enforcer enforcer) {
        this(enforcer, Tags.empty());
    }

    /**
     * Binds an enforcer's counts, adding tags to every meter (e.g. the application's name).
     *
     * @param enforcer the enforcer
     * @param tags tags for every meter; none may be named {@code policy}, {@code outcome},
     *     {@code status}, {@code cause}, {@code store}, {@code result}, {@code le} or
     *     {@code operation}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a tag uses one of the names above
     */
    public SluiceMetrics(Enforcer enforcer, Iterable<Tag> tags) {
        this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
        for (Tag t : this.tags) {
            if (List.of("policy", "outcome", "status", "cause", "store", "result", "le", "operation").contains(t.getKey())) {
                throw new IllegalArgumentException("tags must not use the name '" + t.getKey()
                        + "', which Sluice's meters set themselves, but had " + t);
            }
        }
    }

    /**
     * Registers the meters: one set per policy of the enforcer, one per store that has reported.
     * Meters of policies, statuses and stores that appear later are registered when they appear.
     *
     * @param registry the registry
     * @throws NullPointerException if null
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Bound b = new Bound(Objects.requireNonNull(registry, "registry"), tags, enforcer);
        EnforcerMetrics metrics = enforcer.metrics();
        synchronized (b) {
            // Observe first, under b's lock: whatever appears meanwhile is registered after the
            // known ones, not lost between the two.
            metrics.observe(b);
            b.enforcer(metrics);
            for (PolicyMetrics p : metrics.policies()) {
                b.policy(p);
            }
            for (StoreHealth s : metrics.stores().values()) {
                b.store(s);
            }
            for (StoreLatency l : metrics.storeLatencies().values()) {
                b.latency(l);
            }
        }
        synchronized (bound) {
            bound.add(b);
        }
    }

    /** Removes every meter this binder registered, from every registry, and stops observing. */
    @Override
    public void close() {
        synchronized (bound) {
            for (Bound b : bound) {
                enforcer.metrics().unobserve(b);
                b.remove();
            }
            bound.clear();
        }
    }

    @Override
    public String toString() {
        return "SluiceMetrics{" + enforcer + ", tags=" + tags + '}';
    }
}
