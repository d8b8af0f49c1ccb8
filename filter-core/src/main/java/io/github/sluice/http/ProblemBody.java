package io.github.sluice.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The default {@link DenialBody}: an RFC 9457 problem document,
 * <pre>{@code
 * {"type":"https://iana.org/assignments/http-problem-types#quota-exceeded",
 *  "title":"Request cannot be satisfied as assigned quota has been exceeded","status":429,
 *  "detail":"Rate limit exceeded for policy 'per-ip'; retry after 17 seconds.",
 *  "violated-policies":["per-ip"]}
 * }</pre>
 * served as {@code application/problem+json}. {@code violated-policies} lists the enforced
 * policies that denied the request.
 *
 * <p>The {@linkplain #standard() standard} body takes its {@code type} from the IETF RateLimit
 * header fields draft's problem types: {@value #QUOTA_EXCEEDED} for a 429 and
 * {@value #TEMPORARY_REDUCED_CAPACITY} for a 503 (a concurrency or adaptive limit, or a store
 * that fails closed), each with the draft's title; any other status a policy is given gets
 * {@code about:blank} and the status's reason phrase, as RFC 9457 says. {@link #withType(String)}
 * replaces the type for every status, and then the title is the reason phrase. Immutable and
 * thread-safe.
 */
public final class ProblemBody implements DenialBody {

    /** The media type of RFC 9457 JSON problem documents. */
    public static final String CONTENT_TYPE = "application/problem+json";

    /** The draft's problem type for a request over its quota (HTTP 429). */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

    /** The draft's problem type for a request refused for lack of capacity (HTTP 503). */
    public static final String TEMPORARY_REDUCED_CAPACITY =
            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    private static final String QUOTA_EXCEEDED_TITLE = "Request cannot be satisfied as assigned quota has been exceeded";
    private static final String REDUCED_CAPACITY_TITLE =
            "Request cannot be satisfied due to temporary server capacity constraints";

    /** The standard body's type: chosen per status. */
    private static final ProblemBody DEFAULT = new ProblemBody(null);

    /** A fixed type, or {@code null} for the standard choice per status. */
    private final String type;

    private ProblemBody(String type) {
        this.type = type;
    }

    /**
     * @return the standard problem body: the draft's {@value #QUOTA_EXCEEDED} for 429,
     *     {@value #TEMPORARY_REDUCED_CAPACITY} for 503, {@code about:blank} otherwise
     */
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

    /**
     * @param status the response status, e.g. 429
     * @return the {@code type} member this body writes for {@code status}
     */
    public String type(int status) {
        if (type != null) {
            return type;
        }
        return status == 429 ? QUOTA_EXCEEDED : status == 503 ? TEMPORARY_REDUCED_CAPACITY : "about:blank";
    }

    private String title(int status) {
        if (type == null && status == 429) {
            return QUOTA_EXCEEDED_TITLE;
        }
        if (type == null && status == 503) {
            return REDUCED_CAPACITY_TITLE;
        }
        return Reasons.phrase(status);
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
        Json.string(b, type(status));
        b.append(",\"title\":");
        Json.string(b, title(status));
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
                Json.string(b, verdict.label(i));
                first = false;
            }
        }
        b.append("]}");
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String detail(Verdict verdict) {
        int binding = verdict.binding();
        String name = binding >= 0 ? verdict.label(binding) : "?";
        if (binding >= 0 && verdict.blocked(binding)) {
            return "Policy '" + name + "' refuses every request of this client.";
        }
        if (binding >= 0 && verdict.policy(binding).concurrency()) {
            return "Too many concurrent requests for policy '" + name + "'; retry after "
                    + seconds(verdict.retryAfterSeconds()) + ".";
        }
        if (binding >= 0 && verdict.key(binding) == null) {
            return "The request carries no key for policy '" + name + "' (such as a required header or credential).";
        }
        Verdict.Entry refused = verdict.bindingEntry();
        if (refused != null && refused.key != null && refused.refusal != CostReader.NONE) {
            return costDetail(name, refused);
        }
        if (binding >= 0 && !verdict.retryable(binding)) {
            return "The request costs more than policy '" + name + "' ever allows.";
        }
        return "Rate limit exceeded for policy '" + name + "'; retry after "
                + seconds(verdict.retryAfterSeconds()) + ".";
    }

    /** The detail of a request refused for its cost before the store was asked (see {@code CostReader}). */
    private static String costDetail(String name, Verdict.Entry e) {
        long limit = e.how.maxCost;
        if (e.refusal == CostReader.BAD_COST) {
            return "The request's cost for policy '" + name + "' (" + e.how.requestCost
                    + ") is missing or not a whole number from 1 to " + limit + ".";
        }
        if (e.refusal == CostReader.NO_LENGTH_GIVEN) {
            return "Policy '" + name + "' charges by the declared body size, and the request declares"
                    + " none (Content-Length).";
        }
        return "The request costs " + (e.cost >= 1_000_000_000_000_000_000L
                ? "at least 1000000000000000000" : Long.toString(e.cost)) + " permits, more than the " + limit
                + " policy '" + name + "' ever allows: it can never succeed, and retrying will not help.";
    }

    private static String seconds(long n) {
        return n == 1 ? "1 second" : n + " seconds";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProblemBody p && Objects.equals(p.type, type);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(type);
    }

    @Override
    public String toString() {
        return "ProblemBody{type=" + (type == null ? "standard" : type) + '}';
    }
}
