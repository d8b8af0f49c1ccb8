package io.github.sluice.http;

/**
 * Gives back the concurrency permits a request holds, exactly once however the request ends
 * (normal completion, async completion, error, timeout, client abort).
 *
 * <p>{@link #release()} is idempotent and thread-safe: it may be called from any thread, any
 * number of times, concurrently; the permits are returned by the first call only. A handle that
 * holds no permits (no concurrency policy applied, or the request was denied) does nothing.
 * {@link #close()} is the same as {@link #release()}, for try-with-resources in synchronous
 * adapters.
 */
public interface ReleaseHandle extends AutoCloseable {

    /** Returns the permits held, on the first call only; later calls do nothing. Never throws. */
    void release();

    /** @return {@code true} once {@link #release()} has run (or if nothing was ever held) */
    boolean released();

    /** Same as {@link #release()}. */
    @Override
    default void close() {
        release();
    }
}
