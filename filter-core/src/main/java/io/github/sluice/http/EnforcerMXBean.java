package io.github.sluice.http;

import java.util.Map;

/**
 * An enforcer seen through JMX (registered by {@link EnforcerJmx}): its policies as configured,
 * what each decided, and how many keys the store holds for each. The maps are keyed by policy
 * name, in configuration order; JMX clients (JConsole, VisualVM, Jolokia) show them as tables.
 *
 * <p>Counts are those of {@link Enforcer#metrics()}; see {@link PolicyMetrics} for what each one
 * means. Every read is a fresh sum; nothing is cached. Thread-safe.
 */
public interface EnforcerMXBean {

    /** @return each policy as configured, in configuration order */
    String[] getPolicies();

    /** @return requests each policy admitted at once */
    Map<String, Long> getAllowed();

    /** @return requests each policy admitted after a delay (dry-run policies: without one) */
    Map<String, Long> getShaped();

    /** @return requests each enforced policy refused (dry-run policies are not listed) */
    Map<String, Long> getDenied();

    /** @return requests each dry-run policy would have refused (enforced policies are not listed) */
    Map<String, Long> getDryRunDenied();

    /** @return requests whose permits each concurrency policy got back (only concurrency policies) */
    Map<String, Long> getReleased();

    /** @return requests holding each concurrency policy's permits now (only concurrency policies) */
    Map<String, Long> getInFlight();

    /**
     * @return releases that gave back permits their key did not hold, per concurrency policy (only
     *     concurrency policies): 0 unless an adapter or store released a request twice or without
     *     an admission; see {@link PolicyMetrics#unmatchedReleases()}
     */
    Map<String, Long> getUnmatchedReleases();

    /**
     * @return requests decided by the client's plan because the override lookup did not answer in
     *     time or failed, per policy with {@code override=} (only those); see
     *     {@link PolicyMetrics#overrideFallbacks()}
     */
    Map<String, Long> getOverrideFallbacks();

    /** @return total delay each enforced policy imposed by shaping, in milliseconds */
    Map<String, Long> getShapingDelayMillis();

    /**
     * @return the current limit of each adaptive policy keyed {@code global} (only those); see
     *     {@link PolicyMetrics#adaptiveLimit()}
     */
    Map<String, Long> getAdaptiveLimit();

    /**
     * @return each partition's guaranteed share of its adaptive policy's current limit, keyed
     *     {@code policy/partition} (only adaptive policies keyed {@code global} with partitions);
     *     see {@link PolicyMetrics#adaptivePartitionLimit(String)}
     */
    Map<String, Long> getAdaptivePartitionLimit();

    /** @return keys the store holds for each policy now ({@code -1} if the store cannot tell) */
    Map<String, Long> getKeys();

    /** @return keys of each policy dropped while idle (lossless) */
    Map<String, Long> getIdleEvictions();

    /** @return keys with history of each policy dropped at the registry's bound (lossy) */
    Map<String, Long> getBoundEvictions();

    /** @return keys held for all policies together: the registry's size */
    long getKeyCount();

    /** @return the names of the shared stores that are degraded now (their failure policy decides) */
    String[] getDegradedStores();

    /**
     * @return the enforcer in one line, as logged at start-up ({@link Enforcer#description()}):
     *     its policies in the policy language, header style, trusted proxies, exempt methods and
     *     store; the policies in force now, after any reconfiguration
     */
    String getDescription();

    /**
     * The clients a policy refused (or admitted) most over the last minutes, heaviest first, as the
     * admin endpoint's JSON ({@link AdminJson#top}): each with its count and the count's error
     * bound ({@link TopClients}). An operation, not an attribute: it takes arguments, and its answer
     * holds client keys.
     *
     * @param policy the policy's name
     * @param by {@code denied} or {@code admitted}
     * @param period {@code 1m} to {@code 15m}
     * @return the JSON document
     * @throws IllegalArgumentException if the policy is unknown, {@code by} or {@code period} malformed
     * @throws IllegalStateException if that list is not kept ({@code top-clients=0}, or admitted
     *     without {@code top-clients-admitted=true})
     */
    String topClients(String policy, String by, String period);
}
