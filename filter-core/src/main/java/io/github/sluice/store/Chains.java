package io.github.sluice.store;

/** What every {@link Store#acquireAll} does after a denial, shared by the default and the in-memory store's. */
final class Chains {

    private Chains() {
    }

    /**
     * Gives back what the claims before {@code refused} took (by their receipts) and peeks the
     * ones after it, for their headers.
     *
     * @param claims the first claim of the chain
     * @param refused the first claim that was denied
     * @return {@code false}
     */
    static boolean refuse(Claim claims, Claim refused) {
        for (Claim given = claims; given != refused; given = given.next()) {
            given.space().refund(given.key(), given.cost(), given.decision());
        }
        for (Claim peeked = refused.next(); peeked != null; peeked = peeked.next()) {
            peeked.space().acquire(peeked.key(), 0, peeked.decision());
        }
        return false;
    }
}
