package io.github.sluice.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The two asynchronous decisions that are already taken: shared, immutable, completed stages that
 * a store returns from {@link Store#acquireAllAsync} or {@link KeySpace#acquireAsync} when it
 * decided on the calling thread (the in-memory store always; a remote store when a cached denial
 * or its failure policy answered). A caller recognises them by identity ({@link #isDecided}) and
 * continues on its own thread without allocating a dependent stage: this is how the asynchronous
 * path of the in-memory store costs what the synchronous one does.
 *
 * <p>The stages are those of {@link CompletableFuture#completedStage}: they cannot be completed
 * again or obtruded. Thread-safe.
 */
public final class Decided {

    /** Every claim was admitted. */
    public static final CompletionStage<Boolean> ADMITTED = CompletableFuture.completedStage(Boolean.TRUE);
    /** A claim was denied (and what the others took was given back). */
    public static final CompletionStage<Boolean> REFUSED = CompletableFuture.completedStage(Boolean.FALSE);

    private Decided() {
    }

    /**
     * @param admitted the decision
     * @return {@link #ADMITTED} or {@link #REFUSED}; allocates nothing
     */
    public static CompletionStage<Boolean> of(boolean admitted) {
        return admitted ? ADMITTED : REFUSED;
    }

    /**
     * @param stage a stage returned by a store
     * @return {@code true} if it is {@link #ADMITTED} or {@link #REFUSED} (then the decision is
     *     {@code stage == ADMITTED}); {@code false} for any other stage, complete or not
     */
    public static boolean isDecided(CompletionStage<Boolean> stage) {
        return stage == ADMITTED || stage == REFUSED;
    }
}
