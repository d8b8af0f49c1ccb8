package io.github.sluice.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Renders the body of a denial response. The default is {@link ProblemBody}: an RFC 9457
 * {@code application/problem+json} document with a {@code violated-policies} member. Replace it
 * with {@link #of(String, String)} for a fixed body, or implement this interface for a body
 * computed from the {@link Verdict}.
 *
 * <p>Implementations must be thread-safe and must not throw.
 */
public interface DenialBody {

    /**
     * Returns the body's content type.
     *
     * @param verdict the denied verdict
     * @return the value of {@code Content-Type}, e.g. {@code application/problem+json}
     */
    String contentType(Verdict verdict);

    /**
     * Renders the body.
     *
     * @param verdict the denied verdict
     * @return the bytes; a fresh array, owned by the caller
     */
    byte[] body(Verdict verdict);

    /**
     * A fixed body, the same for every denial.
     *
     * @param contentType e.g. {@code text/plain; charset=utf-8}
     * @param body the text, encoded as UTF-8
     * @return the renderer
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code contentType} holds CR or LF
     */
    static DenialBody of(String contentType, String body) {
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
        if (contentType.indexOf('\r') >= 0 || contentType.indexOf('\n') >= 0 || contentType.isBlank()) {
            throw new IllegalArgumentException("denial-content-type must be a single-line media type but was '"
                    + contentType + "'");
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return new DenialBody() {
            @Override
            public String contentType(Verdict verdict) {
                return contentType;
            }

            @Override
            public byte[] body(Verdict verdict) {
                return bytes.clone();
            }

            @Override
            public String toString() {
                return "DenialBody{" + contentType + ", " + bytes.length + " bytes}";
            }
        };
    }
}
