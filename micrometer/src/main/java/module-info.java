/**
 * Sluice's counts as Micrometer meters: {@link io.github.sluice.micrometer.SluiceMetrics} binds an
 * enforcer to any {@code MeterRegistry} (Prometheus, OTLP, Datadog...).
 */
// Micrometer ships no module descriptor, only an Automatic-Module-Name; that is the best it offers.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.github.sluice.micrometer {
    requires transitive io.github.sluice.core;
    requires transitive micrometer.core;

    exports io.github.sluice.micrometer;
}
