package io.github.sluice.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The default {@link DenialBody}: an RFC 9457 problem document,
 * <pre>{@code
 * {"type":"about:blank","title":"Too Many Requests","status":429,
 *  "detail":"Rate limit exceeded for policy 'per-ip'; retry after 17 seconds.",
 *  "violated-policies":["per-ip"]}
 * }</pre>
 * served as {@code application/problem+json}. {@code violated-policies} lists the enforced
 * policies that denied the request. Immutable and thread-safe.
 */
public final class ProblemBody implements DenialBody {

    /** The media type of RFC 9457 JSON problem documents. */
    public static final String CONTENT_TYPE = "application/problem+json";

    private static final ProblemBody DEFAULT = new ProblemBody("about:blank");

    private final String type;

    private ProblemBody(String type) {
        this.type = type;
    }

    /** @return the default problem body, with {@code "type":"about:blank"} */
    public static ProblemBody standard() {
        return DEFAULT;
    }

    /**
     * A problem body with its own {@code type} URI, e.g. documentation of your limits.
     *
     * @param type a URI reference
     * @return the renderer
     * @throws NullPointerException if {@code type} is null
     * @throws IllegalArgumentException if it is not a URI reference
     */
    public static ProblemBody withType(String type) {
        Objects.requireNonNull(type, "type");
        try {
            new java.net.URI(type);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("problem-type must be a URI but was '" + type + "'", e);
        }
        return new ProblemBody(type);
    }

    /** @return the {@code type} member */
    public String type() {
        return type;
    }

    @Override
    public String contentType(Verdict verdict) {
        return CONTENT_TYPE;
    }

    @Override
    public byte[] body(Verdict verdict) {
        int status = verdict.status();
        StringBuilder b = new StringBuilder(192);
        b.append("{\"type\":");
        Json.string(b, type);
        b.append(",\"title\":");
        Json.string(b, Reasons.phrase(status));
        b.append(",\"status\":").append(status);
        b.append(",\"detail\":");
        Json.string(b, detail(verdict));
        b.append(",\"violated-policies\":[");
        boolean first = true;
        for (int i = 0; i < verdict.size(); i++) {
            if (verdict.violated(i)) {
                if (!first) {
                    b.append(',');
                }
                Json.string(b, verdict.policy(i).name());
                first = false;
            }
        }
        b.append("]}");
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String detail(Verdict verdict) {
        int binding = verdict.binding();
        String name = binding >= 0 ? verdict.policy(binding).name() : "?";
        if (binding >= 0 && verdict.policy(binding).concurrency()) {
            return "Too many concurrent requests for policy '" + name + "'; retry after "
                    + verdict.retryAfterSeconds() + " seconds.";
        }
        if (binding >= 0 && !verdict.retryable(binding)) {
            return "The request costs more than policy '" + name + "' ever allows.";
        }
        return "Rate limit exceeded for policy '" + name + "'; retry after "
                + verdict.retryAfterSeconds() + " seconds.";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProblemBody p && p.type.equals(type);
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }

    @Override
    public String toString() {
        return "ProblemBody{type=" + type + '}';
    }
}
