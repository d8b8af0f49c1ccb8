package io.github.sluice.jaxrs;

import io.github.sluice.request.HeaderSink;
import jakarta.ws.rs.core.MultivaluedMap;
import java.util.List;

/**
 * The sink of a stage's rate-limit fields: a JAX-RS response's headers. A field another layer
 * wrote first is merged, not repeated ({@link HeaderSink#existing}): the other stage's, in the
 * same headers, or else a Sluice servlet filter's in front, on the servlet response, which the
 * runtime replaces by the JAX-RS field of the same name when it writes the response.
 */
final class JaxRsFields implements HeaderSink {

    private final MultivaluedMap<String, Object> headers;
    private final ServletPeer servlet;

    /**
     * @param headers the response's headers (a response context's, or a denial's being built)
     * @param servlet the servlet request and response, or {@code null} without the servlet API
     */
    JaxRsFields(MultivaluedMap<String, Object> headers, ServletPeer servlet) {
        this.headers = headers;
        this.servlet = servlet;
    }

    @Override
    public void header(String name, String value) {
        headers.putSingle(name, value);
    }

    @Override
    public String existing(String name) {
        List<Object> own = headers.get(name);
        if (own != null && !own.isEmpty()) {
            if (own.size() == 1) {
                return String.valueOf(own.get(0));
            }
            StringBuilder b = new StringBuilder();
            for (Object o : own) {
                b.append(b.length() == 0 ? "" : ", ").append(o);
            }
            return b.toString();
        }
        return servlet == null ? null : servlet.field(name);
    }
}
