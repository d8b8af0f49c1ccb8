package io.github.sluice.http;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.Decided;
import io.github.sluice.store.Store;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A verdict decided without blocking ({@link Enforcer#enforceAsync}): the same steps as
 * {@link Verdict#decide}, each through the store's asynchronous methods
 * ({@link Store#acquireAllAsync}, {@link io.github.sluice.store.KeySpace#acquireAsync}), then the
 * same {@link Verdict#conclude}. Steps that a store decided at once ({@link Decided}) continue on
 * the calling thread without a dependent stage, so that with the in-memory store the only
 * allocation beyond the synchronous path's is the completed stage returned. Not instantiated.
 */
final class AsyncDecision {

    private AsyncDecision() {
    }

    /** Decides {@code v}'s entries, then concludes it. */
    static CompletionStage<Verdict> decide(Verdict v, Store store, EnforcementListener listener,
            RequestView request) {
        Verdict.Entry enforced = v.enforcedEntries();
        CompletionStage<Boolean> admitted = enforced == null ? Decided.ADMITTED
                : !v.unkeyed() ? store.acquireAllAsync(enforced) : refuseUnresolved(enforced);
        if (Decided.isDecided(admitted)) {
            return dryRunsThenConclude(v, admitted == Decided.ADMITTED, listener, request);
        }
        return admitted.thenCompose(ok -> dryRunsThenConclude(v, ok, listener, request));
    }

    private static CompletionStage<Verdict> dryRunsThenConclude(Verdict v, boolean admitted,
            EnforcementListener listener, RequestView request) {
        CompletableFuture<?> pending = null;
        for (Verdict.Entry e = v.dryRunEntries(); e != null; e = e.next) {
            if (e.key == null) {
                e.deny(e.how.policy.algorithm().limit(), 0, 0, Decision.NEVER);
                continue;
            }
            // Dry-run entries are independent of each other: decided together, awaited together.
            CompletionStage<Boolean> s = e.how.space.acquireAsync(e.key, e.partition, admitted ? e.how.cost : 0, e);
            if (!Decided.isDecided(s)) {
                CompletableFuture<Boolean> f = s.toCompletableFuture();
                pending = pending == null ? f : CompletableFuture.allOf(pending, f);
            }
        }
        if (pending == null) {
            return CompletableFuture.completedFuture(v.conclude(admitted, listener, request));
        }
        return pending.handle((ignored, failure) -> v.conclude(admitted, listener, request));
    }

    /**
     * As {@code Verdict.refuseUnresolved}: the keyless entries are denied, the others peeked for
     * their headers, without blocking.
     */
    private static CompletionStage<Boolean> refuseUnresolved(Verdict.Entry enforced) {
        CompletableFuture<?> pending = null;
        for (Verdict.Entry e = enforced; e != null; e = e.next) {
            if (e.key == null) {
                e.deny(e.how.policy.algorithm().limit(), 0, 0, Decision.NEVER);
                continue;
            }
            CompletionStage<Boolean> s = e.space().acquireAsync(e.key, Algorithm.NO_PARTITION, 0, e);
            if (!Decided.isDecided(s)) {
                CompletableFuture<Boolean> f = s.toCompletableFuture();
                pending = pending == null ? f : CompletableFuture.allOf(pending, f);
            }
        }
        return pending == null ? Decided.REFUSED : pending.handle((ignored, failure) -> Boolean.FALSE);
    }
}
