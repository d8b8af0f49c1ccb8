package io.github.sluice.http;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.EvictionListener;
import io.github.sluice.store.StoreListener;

/**
 * Told what the enforcer and its store decide: for metrics, audit logs and alerting. Every method
 * has an empty default, so an implementation overrides only what it needs.
 *
 * <p>It hears the request events (allowed, shaped, denied, released) and, as an {@link
 * EvictionListener} and a {@link StoreListener}, the events of the stores it is given to: the
 * in-memory registry's evictions, and a shared store's {@link #storeDegraded degradation} and
 * {@link #storeRecovered recovery}. Pass the same listener to the enforcer and to the store (for
 * Redis, {@code RedisStore.builder().listener(...)}) to hear both.
 *
 * <p>Methods are called synchronously on the request's thread (or, for {@link #released}, the
 * thread that releases; for {@link #evicted}, the thread that evicted; for the store events, the
 * store's thread). They must be fast, thread-safe, and must not throw: an exception is caught
 * and ignored so that a broken listener never changes a decision.
 *
 * <p>The {@link MutableDecision} passed is the verdict's own holder: read it during the call, do
 * not keep or modify it ({@link MutableDecision#toDecision()} makes a copy).
 *
 * <p>Dry-run policies are reported like the others; {@link Policy#dryRun()} tells them apart (a
 * dry-run denial is a request that <em>would</em> have been refused).
 */
public interface EnforcementListener extends EvictionListener, StoreListener {

    /** A listener that ignores everything. */
    EnforcementListener NONE = new EnforcementListener() { };

    /**
     * A policy admitted a request that proceeds now.
     *
     * @param policy the policy
     * @param key the request's key
     * @param decision the decision
     */
    default void allowed(Policy policy, String key, MutableDecision decision) {
    }

    /**
     * A policy admitted a request after a delay ({@link MutableDecision#delayNanos()}).
     *
     * @param policy the policy
     * @param key the request's key
     * @param decision the decision
     */
    default void shaped(Policy policy, String key, MutableDecision decision) {
    }

    /**
     * A policy refused a request (or would have, for a dry-run policy).
     *
     * @param policy the policy
     * @param key the request's key
     * @param decision the decision
     */
    default void denied(Policy policy, String key, MutableDecision decision) {
    }

    /**
     * A policy refused a request (or would have, for a dry-run policy), with the request: what the
     * enforcer calls. The default calls {@link #denied(Policy, String, MutableDecision)}, so a
     * listener that needs no request overrides that one; override this one to read the method
     * and path (the {@link LoggingListener} does).
     *
     * @param policy the policy
     * @param key the request's key
     * @param decision the decision
     * @param request the request refused; read it during the call only
     */
    default void denied(Policy policy, String key, MutableDecision decision, RequestView request) {
        denied(policy, key, decision);
    }

    /**
     * A request ended and gave its concurrency permits back.
     *
     * @param policy the concurrency policy
     * @param key the request's key
     * @param permits the permits returned
     */
    default void released(Policy policy, String key, long permits) {
    }

    /**
     * A rate limit's admission was given back by its receipt: a policy that counts by outcome
     * ({@code count=}, {@code skip=}) did not count the request's ending, or the request ended
     * while it waited out a shaping delay and never ran. Not called for concurrency permits
     * ({@link #released}), nor for the permits a request took from its other policies when one
     * refused it (those were never admitted).
     *
     * @param policy the policy
     * @param key the request's key
     * @param permits the permits the admission took
     */
    default void refunded(Policy policy, String key, long permits) {
    }

    /**
     * A release gave back permits its key did not hold, as far as the store can tell: a request
     * released twice, or released without an admission. The store clamped the key at fresh, which
     * hides the bug behind it: while other requests hold permits, such a release frees one of
     * theirs and the key admits more than its limit. Follows the {@link #released} of the same
     * release. The enforcer also logs the first of each policy at WARNING; this is where every
     * one is heard ({@link EnforcerMetrics} counts them, see
     * {@link PolicyMetrics#unmatchedReleases()}).
     *
     * @param policy the concurrency policy
     * @param key the request's key
     * @param permits the permits that matched nothing the key held, {@code >= 1}
     */
    default void unmatchedRelease(Policy policy, String key, long permits) {
    }

    /**
     * The in-memory registry dropped a key (see {@link EvictionListener}).
     *
     * @param policy the policy's name
     * @param key the key
     * @param lossless {@code true} for idle eviction of a fresh key, {@code false} at the hard bound
     */
    @Override
    default void evicted(String policy, String key, boolean lossless) {
    }
}
