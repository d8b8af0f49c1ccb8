package io.github.sluice.http;

/** Which rate-limit header fields a response carries. */
public enum HeaderStyle {
    /**
     * The IETF draft syntax of draft-08 and later (default): {@code RateLimit-Policy} and
     * {@code RateLimit} as Structured Fields (RFC 9651), listing every applied policy.
     */
    DRAFT("draft"),
    /**
     * The draft-06 triple {@code RateLimit-Limit}, {@code RateLimit-Remaining},
     * {@code RateLimit-Reset} (delta-seconds), for the policy closest to exhaustion.
     */
    DRAFT_06("draft-06"),
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset} (delta-seconds). */
    X_RATELIMIT("x-ratelimit"),
    /** No rate-limit fields ({@code Retry-After} is still sent with a denial). */
    NONE("none");

    private final String configName;

    HeaderStyle(String configName) {
        this.configName = configName;
    }

    /** @return the name in the configuration, e.g. {@code draft-06} */
    public String configName() {
        return configName;
    }

    /**
     * Finds a style by its configuration name.
     *
     * @param name e.g. {@code draft}
     * @return the style
     * @throws IllegalArgumentException if unknown
     */
    public static HeaderStyle ofConfigName(String name) {
        for (HeaderStyle s : values()) {
            if (s.configName.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException(
                "headers must be one of draft, draft-06, x-ratelimit, none but was '" + name + "'");
    }
}
