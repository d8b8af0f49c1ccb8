package io.github.sluice.http;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.internal.Units;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.RequestView;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * The default {@link EnforcementListener}: logs through {@link System.Logger} named
 * {@code io.github.sluice}.
 *
 * <ul>
 *   <li>{@code WARNING}: a store degraded; at start-up, a partition or an allow-list exemption
 *       chosen by a header any client writes;
 *   <li>{@code INFO}: an enforcer started ({@link Enforcer#description()}); a store recovered; a dry-run policy would have denied (without the key);
 *   <li>{@code DEBUG}: a request denied, e.g.
 *       {@code policy 'per-ip' denied GET /api/items key '192.0.2.1': remaining 0 of 100, retry-after 17s, reset 1m};
 *       the key a dry-run policy would have denied; a key with history dropped at the registry's
 *       bound;
 *   <li>{@code TRACE}: allowed, shaped, released, idle eviction.
 * </ul>
 *
 * <p>Keys (client addresses, API keys, user names, digests of long tokens) are personal or
 * secret: they appear at {@code DEBUG} and {@code TRACE} only, never at {@code INFO} or above.
 * They are logged with control characters, Unicode line and paragraph separators, format
 * characters (bidirectional overrides) and unpaired surrogates escaped ({@link LogText}), since
 * they come from requests and could otherwise forge or disguise log lines; keys longer than the
 * enforcer's bound are already hashed. Methods are escaped the same way, and paths too, cut after
 * {@value LogText#MAX_PATH} characters. Durations are written as
 * {@code 150ms}, {@code 1.5s}, {@code 2m}, {@code about 24s} (see {@code docs/operations.md}),
 * never in nanoseconds or ISO-8601. Nothing is formatted unless the level is enabled. Thread-safe.
 */
public final class LoggingListener implements EnforcementListener {

    private final Logger log;
    /**
     * The {@code java.util.logging.Logger} behind {@link #log} when that is the JDK's own bridge
     * to java.util.logging (the default backend), or {@code null}: the checks for {@code TRACE},
     * made on every request (allowed, released), then ask it directly, which is what the bridge
     * does, without the bridge's hop and its level mapping (about 1.3 ns of the 40 a request
     * costs the servlet filter, docs/PERFORMANCE.md). A level changed at run time still takes
     * effect at once: the logger is asked, not a copy of its level.
     */
    private final java.util.logging.Logger jul;

    /** Logs to {@code System.getLogger("io.github.sluice")}. */
    public LoggingListener() {
        this(System.getLogger("io.github.sluice"));
    }

    /**
     * Logs to the given logger.
     *
     * @param log the logger
     */
    public LoggingListener(Logger log) {
        this.log = java.util.Objects.requireNonNull(log, "log");
        this.jul = Jul.behind(log);
    }

    /** @return whether the checks for {@code TRACE} ask java.util.logging directly (for tests) */
    boolean asksJavaUtilLogging() {
        return jul != null;
    }

    /** @return whether {@code TRACE} is logged now */
    private boolean tracing() {
        java.util.logging.Logger j = jul;
        // The bridge's own mapping: TRACE is FINER.
        return j != null ? j.isLoggable(java.util.logging.Level.FINER) : log.isLoggable(Level.TRACE);
    }

    /**
     * Reaching java.util.logging, which the core reads only where the runtime has it ({@code
     * requires static java.logging}): without the module, every check goes through the
     * {@link System.Logger}.
     */
    private static final class Jul {
        /** The class of the JDK's {@link System.Logger} over java.util.logging. */
        private static final String BRIDGE = "sun.util.logging.internal.LoggingProviderImpl$JULWrapper";
        /**
         * Whether this runtime has java.logging; where it does, the core reads it (a module that
         * {@code requires static} another reads it when it is resolved).
         */
        private static final boolean PRESENT = ModuleLayer.boot().findModule("java.logging").isPresent();

        private Jul() {
        }

        /** @return the java.util.logging logger {@code log} bridges to, or null if it is not the JDK's bridge */
        static java.util.logging.Logger behind(Logger log) {
            // The bridge of a logger of the application's is java.util.logging's logger of that name.
            return PRESENT && log.getClass().getName().equals(BRIDGE)
                    ? java.util.logging.Logger.getLogger(log.getName()) : null;
        }
    }

    /**
     * Logs the enforcer's {@linkplain Enforcer#description() description} at {@code INFO}, and
     * each warning it ends with (a partition or an exemption chosen by a header any client writes)
     * at {@code WARNING} too: the enforcer calls this once, when it is built with this listener.
     *
     * @param enforcer the new enforcer
     */
    public void started(Enforcer enforcer) {
        if (log.isLoggable(Level.INFO)) {
            log.log(Level.INFO, "{0}", enforcer.description());
        }
        // The line's warnings again, on their own, for logs kept from WARNING up.
        for (String w : StartupLine.warnings(enforcer)) {
            log.log(Level.WARNING, "Sluice enforcer: {0}", w);
        }
    }

    @Override
    public void allowed(Policy policy, String key, MutableDecision decision) {
        if (tracing()) {
            log.log(Level.TRACE, "policy ''{0}'' allowed key ''{1}'': {2}", policy.name(), LogText.escape(key),
                    decision);
        }
    }

    @Override
    public void shaped(Policy policy, String key, MutableDecision decision) {
        if (tracing()) {
            log.log(Level.TRACE, "policy ''{0}'' delayed key ''{1}'': {2}", policy.name(), LogText.escape(key),
                    decision);
        }
    }

    @Override
    public void denied(Policy policy, String key, MutableDecision decision) {
        denied(policy, key, decision, null);
    }

    /**
     * Logs a denial: at {@code DEBUG} for an enforced policy, with the method, the path, the key,
     * the remaining quota and the retry-after in seconds; for a dry-run policy, the same without
     * the key at {@code INFO}, and the key at {@code DEBUG}.
     *
     * @param policy the policy
     * @param key the request's key (already hashed if it was longer than the enforcer's bound)
     * @param decision the decision
     * @param request the request, or {@code null} if unknown
     */
    @Override
    public void denied(Policy policy, String key, MutableDecision decision, RequestView request) {
        if (!policy.dryRun()) {
            if (log.isLoggable(Level.DEBUG)) {
                log.log(Level.DEBUG, "policy ''{0}'' denied {1} {2}: {3}", policy.name(), request(request),
                        key == null ? "without a key (unresolved=deny)" : "key '" + LogText.escape(key) + "'",
                        numbers(decision));
            }
            return;
        }
        if (log.isLoggable(Level.INFO)) {
            log.log(Level.INFO, "dry-run policy ''{0}'' would have denied {1} (the key is logged at DEBUG): {2}",
                    policy.name(), request == null ? "a request" : LogText.escape(request.method()), numbers(decision));
        }
        if (log.isLoggable(Level.DEBUG)) {
            log.log(Level.DEBUG, "dry-run policy ''{0}'' would have denied {1} key ''{2}''", policy.name(),
                    request(request), LogText.escape(key));
        }
    }

    /** {@code GET /api/items}, escaped and bounded, or {@code a request}. */
    private static String request(RequestView request) {
        if (request == null) {
            return "a request";
        }
        return LogText.escape(request.method()) + " " + LogText.path(request.path());
    }

    /**
     * {@code remaining 0 of 100, retry-after 17s, reset 1m}: the retry-after in whole seconds as
     * the {@code Retry-After} header says it (rounded up, at least 1), the reset as a duration.
     */
    static String numbers(MutableDecision d) {
        long retry = d.retryAfterNanos();
        return "remaining " + d.remaining() + " of " + d.limit() + ", retry-after "
                + (retry == Decision.NEVER ? "never (waiting cannot make it pass)"
                        : Math.max(1, (retry - 1) / 1_000_000_000L + 1) + "s")
                + ", reset " + Units.duration(d.resetNanos());
    }

    @Override
    public void released(Policy policy, String key, long permits) {
        if (tracing()) {
            log.log(Level.TRACE, "policy ''{0}'' released {1} permit(s) of key ''{2}''",
                    policy.name(), permits, LogText.escape(key));
        }
    }

    @Override
    public void refunded(Policy policy, String key, long permits) {
        if (tracing()) {
            log.log(Level.TRACE, "policy ''{0}'' refunded {1} permit(s) of key ''{2}''",
                    policy.name(), permits, LogText.escape(key));
        }
    }

    @Override
    public void evicted(String policy, String key, boolean lossless) {
        Level level = lossless ? Level.TRACE : Level.DEBUG;
        if (log.isLoggable(level)) {
            log.log(level, lossless ? "policy ''{0}'' dropped idle key ''{1}''"
                    : "policy ''{0}'' dropped key ''{1}'' at the bound on keys", policy, LogText.escape(key));
        }
    }

    @Override
    public void storeDegraded(String store, Throwable cause) {
        log.log(Level.WARNING, "store '" + store + "' degraded: its failure policy decides until it recovers",
                cause);
    }

    @Override
    public void storeRecovered(String store) {
        log.log(Level.INFO, "store ''{0}'' recovered", store);
    }

    @Override
    public String toString() {
        return "LoggingListener{" + log.getName() + '}';
    }
}
