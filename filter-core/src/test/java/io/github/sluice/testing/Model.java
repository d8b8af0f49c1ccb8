package io.github.sluice.testing;

import io.github.sluice.core.Decision;

/**
 * A reference model of one key of a limiter: the behaviour an algorithm must reproduce, written
 * plainly and independently of the implementation (different state, no compare-and-set, no
 * packing), for randomized comparison under a fake clock.
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
     * Gives permits back (a refund, or the end of a request for a concurrency limit).
     *
     * @param now clock reading, nanoseconds
     * @param cost permits, {@code >= 0}
     */
    void release(long now, long cost);
}
