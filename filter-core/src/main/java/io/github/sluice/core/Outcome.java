package io.github.sluice.core;

/** What a limiter decided for one request. */
public enum Outcome {
    /** The request may proceed now. */
    ALLOWED,
    /**
     * The request is admitted but must first wait {@link Decision#delayNanos()}: the third outcome
     * of a shaping limiter (leaky bucket, shaping). Adapters honour the delay before the request
     * proceeds.
     */
    SHAPED,
    /** The request is refused; {@link Decision#retryAfterNanos()} tells when it would succeed. */
    DENIED;

    /**
     * Tells whether a request with this outcome proceeds (now or after a delay).
     *
     * @return {@code true} for {@link #ALLOWED} and {@link #SHAPED}
     */
    public boolean admitted() {
        return this != DENIED;
    }
}
