package io.github.sluice.testing;

import io.github.sluice.core.Decision;

/**
 * A reference model of one key of a limiter: the behaviour an algorithm must reproduce, written
 * plainly and independently of the implementation (different state, no compare-and-set, no
 * packing, no receipts), for randomized comparison under a fake clock.
 *
 * <p>Acquisitions are numbered from 0 in the order {@link #acquire} is called; a refund names the
 * acquisition it undoes by that number, and the model remembers by itself what that acquisition
 * took (its time, window, slot, log entries or schedule), as the receipt does for the algorithm.
 */
public interface Model {

    /**
     * Decides a request of {@code cost} permits at {@code now}.
     *
     * @param now clock reading, nanoseconds, never earlier than the previous call's
     * @param cost permits, {@code >= 0}
     * @return the decision the algorithm must produce
     */
    Decision acquire(long now, long cost);

    /**
     * Undoes acquisition number {@code call}, an admission of {@code cost > 0} not yet refunded:
     * another policy refused the same request.
     *
     * @param now clock reading, nanoseconds
     * @param cost the admission's cost
     * @param call the number of the {@link #acquire} call that admitted it
     */
    void refund(long now, long cost, int call);

    /**
     * The end of a request that holds permits (a concurrency limit). A rate limit holds nothing
     * while a request runs: the default does nothing.
     *
     * @param now clock reading, nanoseconds
     * @param cost permits, {@code >= 0}
     */
    default void release(long now, long cost) {
    }
}
