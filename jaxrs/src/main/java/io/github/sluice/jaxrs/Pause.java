package io.github.sluice.jaxrs;

import java.util.concurrent.TimeUnit;

/**
 * How a shaped request waits before it proceeds. JAX-RS offers filters no way to suspend a
 * request, so the default blocks the filter's thread for the delay, which the policy bounds (a
 * shaping policy turns a delay above its maximum into a denial).
 */
@FunctionalInterface
interface Pause {

    /** Sleeps on the calling thread; an interrupt ends the wait early and is kept. */
    Pause SLEEP = nanos -> {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            // Proceed: the request holds its permits and was admitted; the caller sees the flag.
            Thread.currentThread().interrupt();
        }
    };

    /**
     * Waits.
     *
     * @param nanos the delay, {@code > 0}
     */
    void await(long nanos);
}
