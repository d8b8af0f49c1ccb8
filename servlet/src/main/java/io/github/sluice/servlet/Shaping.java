package io.github.sluice.servlet;

/**
 * How a shaped request waits for its slot before the filter chain runs.
 *
 * <p>Either way the wait is at most the shaping policy's maximum delay (longer waits are
 * denials), and a concurrency permit the request holds stays held while it waits.
 */
public enum Shaping {

    /**
     * Suspend the request ({@code startAsync}) and free the container thread; a scheduler thread
     * resumes it with {@code AsyncContext.dispatch()} when the delay has passed, and the chain
     * then runs in an {@code ASYNC} dispatch. Filters after Sluice run on that dispatch only if
     * they are mapped to the {@code ASYNC} dispatcher type. Falls back to {@link #BLOCKING} when
     * the request does not support async (a servlet or filter in the chain is not
     * {@code async-supported}).
     */
    ASYNC,

    /** Hold the container thread for the delay, then run the chain in the same dispatch. */
    BLOCKING;

    /**
     * Parses the {@value SluiceFilter#SHAPING_PARAM} init-param.
     *
     * @param value {@code async}, {@code blocking}, or {@code null} for {@link #ASYNC}
     * @return the mode
     * @throws IllegalArgumentException if the value is anything else
     */
    static Shaping ofInitParam(String value) {
        if (value == null) {
            return ASYNC;
        }
        return switch (value.strip()) {
            case "async" -> ASYNC;
            case "blocking" -> BLOCKING;
            default -> throw new IllegalArgumentException("init-param '" + SluiceFilter.SHAPING_PARAM
                    + "' must be async or blocking but was '" + value + "'");
        };
    }
}
