package io.github.sluice.http;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * The default {@link EnforcementListener}: logs through {@link System.Logger} named
 * {@code io.github.sluice}.
 *
 * <ul>
 *   <li>{@code WARNING}: a store degraded;
 *   <li>{@code INFO}: a store recovered; a dry-run policy would have denied (without the key);
 *   <li>{@code DEBUG}: a request denied; the key a dry-run policy would have denied; a key with
 *       history dropped at the registry's bound;
 *   <li>{@code TRACE}: allowed, shaped, released, idle eviction.
 * </ul>
 *
 * <p>Keys (client addresses, API keys, user names, digests of long tokens) are personal or
 * secret: they appear at {@code DEBUG} and {@code TRACE} only, never at {@code INFO} or above.
 * They are logged with control characters, Unicode line and paragraph separators and format
 * characters (bidirectional overrides) escaped, since they come from requests and could otherwise
 * forge or disguise log lines; keys longer than the enforcer's bound are already hashed. Nothing
 * is formatted unless the level is enabled. Thread-safe.
 */
public final class LoggingListener implements EnforcementListener {

    private final Logger log;

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
    }

    @Override
    public void allowed(Policy policy, String key, MutableDecision decision) {
        if (log.isLoggable(Level.TRACE)) {
            log.log(Level.TRACE, "policy ''{0}'' allowed key ''{1}'': {2}", policy.name(), safe(key), decision);
        }
    }

    @Override
    public void shaped(Policy policy, String key, MutableDecision decision) {
        if (log.isLoggable(Level.TRACE)) {
            log.log(Level.TRACE, "policy ''{0}'' delayed key ''{1}'': {2}", policy.name(), safe(key), decision);
        }
    }

    @Override
    public void denied(Policy policy, String key, MutableDecision decision) {
        if (!policy.dryRun()) {
            if (log.isLoggable(Level.DEBUG)) {
                log.log(Level.DEBUG, "policy ''{0}'' denied key ''{1}'': {2}", policy.name(), safe(key), decision);
            }
            return;
        }
        if (log.isLoggable(Level.INFO)) {
            log.log(Level.INFO, "dry-run policy ''{0}'' would have denied a request (its key is logged at DEBUG): {1}",
                    policy.name(), decision);
        }
        if (log.isLoggable(Level.DEBUG)) {
            log.log(Level.DEBUG, "dry-run policy ''{0}'' would have denied key ''{1}''", policy.name(), safe(key));
        }
    }

    @Override
    public void released(Policy policy, String key, long permits) {
        if (log.isLoggable(Level.TRACE)) {
            log.log(Level.TRACE, "policy ''{0}'' released {1} permit(s) of key ''{2}''",
                    policy.name(), permits, safe(key));
        }
    }

    @Override
    public void evicted(String policy, String key, boolean lossless) {
        Level level = lossless ? Level.TRACE : Level.DEBUG;
        if (log.isLoggable(level)) {
            log.log(level, lossless ? "policy ''{0}'' dropped idle key ''{1}''"
                    : "policy ''{0}'' dropped key ''{1}'' at the bound on keys", policy, safe(key));
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

    /** Escapes what could forge or disguise a log line, as {@code \\uXXXX}. */
    static String safe(String key) {
        if (key == null) {
            return "null";
        }
        for (int i = 0; i < key.length(); i++) {
            if (unsafe(key.charAt(i))) {
                StringBuilder b = new StringBuilder(key.length() + 8);
                for (int j = 0; j < key.length(); j++) {
                    char c = key.charAt(j);
                    if (unsafe(c)) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
                return b.toString();
            }
        }
        return key;
    }

    private static boolean unsafe(char c) {
        if (c < 0x80) {
            return c < 0x20 || c == 0x7f;
        }
        if (Character.isISOControl(c)) {
            return true;
        }
        int type = Character.getType(c);
        return type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.FORMAT;
    }

    @Override
    public String toString() {
        return "LoggingListener{" + log.getName() + '}';
    }
}
