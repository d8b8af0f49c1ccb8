/**
 * Sluice's framework-neutral core: limiter algorithms (fixed and adaptive), the in-memory sharded registry and the
 * store SPI, and the HTTP policy layer the adapters share (request view, keys, policies,
 * enforcement, headers, problem responses, configuration language, metrics and JMX). Depends on
 * nothing outside the JDK.
 */
module io.github.sluice.core {
    // The platform MXBeans: the adaptive bbr algorithm reads the process's CPU load, and each
    // enforcer can register its counts as an MXBean.
    requires transitive java.management;
    // Optional: where the runtime has it, the logging listener's per-request level checks ask
    // java.util.logging directly when it is the System.Logger's backend (LoggingListener).
    requires static java.logging;

    exports io.github.sluice.core;
    exports io.github.sluice.algorithm;
    exports io.github.sluice.adaptive;
    exports io.github.sluice.limiter;
    exports io.github.sluice.store;
    exports io.github.sluice.request;
    exports io.github.sluice.key;
    exports io.github.sluice.policy;
    exports io.github.sluice.http;
    exports io.github.sluice.config;
}
