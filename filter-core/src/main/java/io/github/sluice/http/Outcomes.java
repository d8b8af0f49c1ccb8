package io.github.sluice.http;

import io.github.sluice.policy.Charge;

/**
 * How a request's ending settles the reservation of a policy that counts by outcome (see
 * {@link Charge}): the status that counts for each ending that carries none, and whether the
 * reservation is kept. Stateless.
 */
final class Outcomes {

    /** The status an exception counts as, when the adapter saw none written. */
    static final int FAILED_STATUS = 500;
    /** The status a timeout counts as: the server did not answer in time. */
    static final int TIMED_OUT_STATUS = 504;

    private Outcomes() {
    }

    /**
     * @param charge the policy's charge, not {@link Charge#ALWAYS}
     * @param ending a status ({@code > 0}), 0 for unknown, or one of {@link Verdict}'s endings
     * @return {@code true} if the reservation is kept (the request is charged); {@code false} if
     *     it is refunded
     */
    static boolean keeps(Charge charge, int ending) {
        return switch (ending) {
            // Neither a status nor a reason to give back: the stricter choice. An abort is charged
            // whatever the policy counts, so that hanging up before the answer buys nothing.
            case 0, Verdict.ABORTED -> true;
            case Verdict.FAILED -> charge.charges(FAILED_STATUS);
            case Verdict.TIMED_OUT -> charge.charges(TIMED_OUT_STATUS);
            default -> charge.charges(ending);
        };
    }
}
