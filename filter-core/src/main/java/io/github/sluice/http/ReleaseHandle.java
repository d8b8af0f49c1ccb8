package io.github.sluice.http;

/**
 * Gives back the concurrency permits a request holds, exactly once however the request ends
 * (normal completion, async completion, error, timeout, client abort).
 *
 * <h2>How the request ended</h2>
 * Adaptive policies ({@code io.github.sluice.adaptive}) learn from how each request they admitted
 * ended, so an adapter releases with what it knows:
 * <ul>
 *   <li>{@link #release(int)} with the response's status: a <em>drop</em> (overload) for a policy
 *       whose {@linkplain io.github.sluice.policy.Policy#drop() drop statuses} hold it (503 and
 *       504 by default), otherwise a success whose latency is learned;
 *   <li>{@link #releaseTimedOut()} when the request timed out (an async timeout): a drop for
 *       every adaptive policy;
 *   <li>{@link #releaseFailed()} when an exception escaped the application or the client went
 *       away: the permits come back and nothing is learned, since the latency of a failure says
 *       nothing about load (as concurrency-limits' {@code onIgnore});
 *   <li>{@link #release()} when the adapter knows nothing more: learned as a success.
 * </ul>
 * Only the first call of any of them counts.
 *
 * <p>{@link #release()} is idempotent and thread-safe: it may be called from any thread, any
 * number of times, concurrently; the permits are returned by the first call only. A handle that
 * holds no permits (no concurrency policy applied, or the request was denied) does nothing.
 * {@link #close()} is the same as {@link #release()}, for try-with-resources in synchronous
 * adapters.
 */
public interface ReleaseHandle extends AutoCloseable {

    /**
     * Returns the permits held, on the first call only; later calls do nothing. Never throws.
     * Adaptive policies learn the request's latency, as not dropped.
     */
    void release();

    /**
     * Returns the permits held, on the first call only, for a request that ended with an HTTP
     * status. Never throws. The default calls {@link #release()}.
     *
     * @param status the response's status; a drop for an adaptive policy whose drop statuses hold it
     */
    default void release(int status) {
        release();
    }

    /**
     * Returns the permits held, on the first call only, for a request that timed out: a drop for
     * every adaptive policy. Never throws. The default calls {@link #release()}.
     */
    default void releaseTimedOut() {
        release();
    }

    /**
     * Returns the permits held, on the first call only, for a request ended by an exception or a
     * client that went away: adaptive policies learn nothing from it. Never throws. The default
     * calls {@link #release()}.
     */
    default void releaseFailed() {
        release();
    }

    /**
     * Returns the permits held, on the first call only, for a request the client abandoned (it
     * closed the connection, or a reactive subscriber cancelled). Never throws. The default calls
     * {@link #releaseFailed()}.
     */
    default void releaseAborted() {
        releaseFailed();
    }

    /** @return {@code true} once {@link #release()} has run (or if nothing was ever held) */
    boolean released();

    /** Same as {@link #release()}. */
    @Override
    default void close() {
        release();
    }
}
