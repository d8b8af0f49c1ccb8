package io.github.sluice.http;

import java.util.Objects;

/**
 * How rate-limit information is written to responses.
 *
 * <p>Immutable and thread-safe.
 *
 * @param style the header fields used
 * @param onlyOnDenial {@code true} to write rate-limit fields on denials only
 * @param exposeHeaders {@code true} to add {@code Access-Control-Expose-Headers} naming the
 *     fields written, so that browser scripts on other origins can read them
 * @param degradedHeader the name of a field added when a decision was taken without the
 *     authoritative store (its value lists the degraded policies), or {@code null} for none
 */
public record HeaderOptions(HeaderStyle style, boolean onlyOnDenial, boolean exposeHeaders,
        String degradedHeader) {

    /** Draft syntax, always, no CORS exposure, no degraded field. */
    public static final HeaderOptions DEFAULT = new HeaderOptions(HeaderStyle.DRAFT, false, false, null);

    /**
     * Validates the options.
     *
     * @param style the header fields used
     * @param onlyOnDenial rate-limit fields on denials only
     * @param exposeHeaders add {@code Access-Control-Expose-Headers}
     * @param degradedHeader a field name (an HTTP token) or {@code null}
     * @throws NullPointerException if {@code style} is null
     * @throws IllegalArgumentException if {@code degradedHeader} is not an HTTP token
     */
    public HeaderOptions {
        Objects.requireNonNull(style, "style");
        if (degradedHeader != null && !degradedHeader.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
            throw new IllegalArgumentException(
                    "degraded-header must be an HTTP field name but was '" + degradedHeader + "'");
        }
    }

    /**
     * @param style the new style
     * @return a copy with another style
     */
    public HeaderOptions withStyle(HeaderStyle style) {
        return new HeaderOptions(style, onlyOnDenial, exposeHeaders, degradedHeader);
    }
}
