package io.github.sluice.request;

/**
 * Receives the response header fields Sluice wants written: the adapter forwards each call to its
 * container ({@code HttpServletResponse.setHeader}, {@code MultivaluedMap.putSingle}). Names and values
 * are final: already formatted, never {@code null}, never containing CR or LF.
 *
 * <p>The same name is never passed twice for one response by one enforcer. Another layer of Sluice
 * may have written the same fields on the response before (a servlet filter in front of a JAX-RS
 * runtime or a Spring MVC handler, a web filter in front of a handler filter): a sink that can see
 * them returns them from {@link #existing}; the value passed to {@link #header} is then the two
 * layers merged, and replaces them, so that the client gets one field line of each name
 * (docs/configuration.md, "Two layers on one request").
 */
@FunctionalInterface
public interface HeaderSink {

    /**
     * Writes one header field, replacing any line of that name on the response (another layer's,
     * which Sluice has merged into {@code value} if {@link #existing} returned it).
     *
     * @param name the field name, e.g. {@code RateLimit}
     * @param value the field value, e.g. {@code "per-ip";r=42;t=17}
     */
    void header(String name, String value);

    /**
     * Returns the value of a field another layer already wrote on this response, so that Sluice
     * merges its own into it instead of sending a second line. Asked only for the fields Sluice
     * writes, and for {@code RateLimit} only when another layer wrote {@code RateLimit-Policy}.
     * The default, for a sink whose response holds no other layer's fields, returns {@code null}.
     *
     * @param name the field name
     * @return the field's lines on the response joined by {@code ", "}, or {@code null} if absent
     */
    default String existing(String name) {
        return null;
    }
}
