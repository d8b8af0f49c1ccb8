package io.github.sluice.request;

/**
 * Receives the response header fields Sluice wants written: the adapter forwards each call to its
 * container ({@code HttpServletResponse.addHeader}, {@code MultivaluedMap.add}). Names and values
 * are final: already formatted, never {@code null}, never containing CR or LF.
 *
 * <p>The same name is never passed twice for one response, so adding and setting are equivalent.
 */
@FunctionalInterface
public interface HeaderSink {

    /**
     * Writes one header field.
     *
     * @param name the field name, e.g. {@code RateLimit}
     * @param value the field value, e.g. {@code "per-ip";r=42;t=17}
     */
    void header(String name, String value);
}
