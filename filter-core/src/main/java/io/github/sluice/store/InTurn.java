package io.github.sluice.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The walk of {@link Store#acquireInTurn}: one claim after the other, continuing on the calling
 * thread while decisions are {@linkplain Decided taken at once}, and on the completing thread of
 * the first one that is not. Not instantiated.
 */
final class InTurn {

    private InTurn() {
    }

    /** Acquires from {@code c} on, {@code first} being the chain's first claim. */
    static CompletionStage<Boolean> from(Claim first, Claim c) {
        for (; c != null; c = c.next()) {
            CompletionStage<Boolean> s = c.space().acquireAsync(c.key(), c.partition(), c.cost(), c.decision());
            if (s == Decided.ADMITTED) {
                continue;
            }
            if (s == Decided.REFUSED) {
                return refused(first, c);
            }
            Claim at = c;
            return s.thenCompose(admitted -> admitted ? from(first, at.next()) : refused(first, at));
        }
        return Decided.ADMITTED;
    }

    /**
     * {@code denied} refused: gives back what the claims before it took (a refund never waits),
     * then peeks the claims after it, for their headers.
     */
    private static CompletionStage<Boolean> refused(Claim first, Claim denied) {
        for (Claim given = first; given != denied; given = given.next()) {
            given.space().refund(given.key(), given.cost(), given.decision());
        }
        CompletableFuture<?>[] pending = null;
        int n = 0;
        for (Claim peeked = denied.next(); peeked != null; peeked = peeked.next()) {
            CompletionStage<Boolean> s = peeked.space().acquireAsync(peeked.key(), peeked.partition(), 0,
                    peeked.decision());
            if (!Decided.isDecided(s)) {
                if (pending == null) {
                    int left = 0;
                    for (Claim k = peeked; k != null; k = k.next()) {
                        left++;
                    }
                    pending = new CompletableFuture<?>[left];
                }
                pending[n++] = s.toCompletableFuture();
            }
        }
        if (n == 0) {
            return Decided.REFUSED;
        }
        return CompletableFuture.allOf(java.util.Arrays.copyOf(pending, n)).handle((ignored, failure) -> Boolean.FALSE);
    }
}
