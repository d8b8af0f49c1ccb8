package io.github.sluice.redis;

import java.util.Objects;

/**
 * What a {@link RedisStore} decides when Redis cannot answer in time (down, unreachable, slow
 * beyond the command timeout, or the circuit breaker is open). Every such decision carries the
 * {@link io.github.sluice.core.MutableDecision#degraded() degraded} mark, so adapters can say so
 * in a response header.
 *
 * <ul>
 *   <li>{@link #failOpen()}: admit every request (availability first; the default);
 *   <li>{@link #failClosed(int)}: refuse every request with the given HTTP status (protection
 *       first; e.g. 503 Service Unavailable);
 *   <li>{@link #localFallback(int)}: decide in memory on each instance, with each policy's limit
 *       divided by the number of instances, so that the cluster as a whole stays near the
 *       shared limit.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class FailurePolicy {

    /** The three behaviours. */
    public enum Mode {
        /** Admit. */
        FAIL_OPEN,
        /** Refuse with a configured status. */
        FAIL_CLOSED,
        /** Decide locally with the limit divided by the instance count. */
        LOCAL_FALLBACK
    }

    private static final FailurePolicy OPEN = new FailurePolicy(Mode.FAIL_OPEN, 0, 1);

    private final Mode mode;
    private final int status;
    private final int instances;

    private FailurePolicy(Mode mode, int status, int instances) {
        this.mode = mode;
        this.status = status;
        this.instances = instances;
    }

    /** @return the policy that admits every request while Redis is unavailable */
    public static FailurePolicy failOpen() {
        return OPEN;
    }

    /** @return the policy that refuses every request with 503 while Redis is unavailable */
    public static FailurePolicy failClosed() {
        return failClosed(503);
    }

    /**
     * @param status the HTTP status of the refusal, in {@code [400, 599]} (429 or 503 typically)
     * @return the policy that refuses every request while Redis is unavailable
     * @throws IllegalArgumentException if the status is not a client or server error
     */
    public static FailurePolicy failClosed(int status) {
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("status must be between 400 and 599 but was " + status);
        }
        return new FailurePolicy(Mode.FAIL_CLOSED, status, 1);
    }

    /**
     * @param instances the number of application instances sharing the limits, {@code >= 1};
     *     each instance then allows {@code limit / instances} (at least 1) per key while Redis is
     *     unavailable
     * @return the policy that decides in memory while Redis is unavailable
     * @throws IllegalArgumentException if {@code instances < 1}
     */
    public static FailurePolicy localFallback(int instances) {
        if (instances < 1) {
            throw new IllegalArgumentException("instances must be >= 1 but was " + instances);
        }
        return new FailurePolicy(Mode.LOCAL_FALLBACK, 0, instances);
    }

    /** @return the behaviour */
    public Mode mode() {
        return mode;
    }

    /** @return the HTTP status of a fail-closed refusal; {@code 0} for the other modes */
    public int status() {
        return status;
    }

    /** @return the instance count of a local fallback; {@code 1} for the other modes */
    public int instances() {
        return instances;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FailurePolicy f && f.mode == mode && f.status == status
                && f.instances == instances;
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, status, instances);
    }

    @Override
    public String toString() {
        return switch (mode) {
            case FAIL_OPEN -> "fail-open";
            case FAIL_CLOSED -> "fail-closed(" + status + ")";
            case LOCAL_FALLBACK -> "local-fallback(" + instances + " instances)";
        };
    }
}
