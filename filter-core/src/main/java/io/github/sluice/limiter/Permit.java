package io.github.sluice.limiter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Semaphore;

/**
 * The answer of a {@link ConcurrencyLimiter}: a permit to hand back when the work ends, or a
 * refusal. Use it in a try-with-resources block so that a granted permit is released exactly
 * once, however the work ends:
 *
 * <pre>{@code
 * try (Permit permit = limiter.tryAcquire()) {
 *     if (!permit.granted()) {
 *         return tooBusy();
 *     }
 *     return doWork();
 * }
 * }</pre>
 *
 * <p>{@link #release()} frees the permit the first time it is called and does nothing after, so a
 * second release can never free a permit held by someone else. A refused permit holds nothing;
 * releasing it does nothing.
 *
 * <p>Thread-safe.
 */
public final class Permit implements AutoCloseable {

    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(Permit.class, "released", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The single refused permit: holds nothing, so sharing it is safe. */
    static final Permit REFUSED = new Permit(null, 0);

    private final Semaphore semaphore;
    private final int permits;
    @SuppressWarnings("unused") // accessed through RELEASED
    private volatile int released;

    Permit(Semaphore semaphore, int permits) {
        this.semaphore = semaphore;
        this.permits = permits;
    }

    /** @return {@code true} if the permit was granted and must be released when the work ends */
    public boolean granted() {
        return semaphore != null;
    }

    /** @return the number of permits this handle holds (0 when refused) */
    public int permits() {
        return permits;
    }

    /** @return {@code true} if this granted permit has been released */
    public boolean released() {
        return semaphore != null && released != 0;
    }

    /**
     * Hands the permit back, the first time only. Does nothing on a refused permit or on a second
     * call.
     *
     * @return {@code true} if this call freed the permit
     */
    public boolean release() {
        if (semaphore == null || !RELEASED.compareAndSet(this, 0, 1)) {
            return false;
        }
        semaphore.release(permits);
        return true;
    }

    /** Same as {@link #release()}, for try-with-resources. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        if (semaphore == null) {
            return "Permit{refused}";
        }
        return "Permit{" + permits + (released() ? ", released}" : ", held}");
    }
}
