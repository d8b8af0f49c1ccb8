package io.github.sluice.jaxrs;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;

/**
 * The client's address in a servlet container: the TCP peer's address of the servlet request the
 * JAX-RS runtime injects ({@code @Context HttpServletRequest}, which JAX-RS guarantees in a
 * servlet container), so that {@code key=ip} needs no configuration there. And the rate-limit
 * fields a Sluice servlet filter in front wrote on the servlet response ({@code @Context
 * HttpServletResponse}), which the stages merge theirs into ({@link JaxRsFields}): the runtime
 * replaces a servlet response's field by the JAX-RS response's field of the same name.
 *
 * <p>The feature registers it (an instance, so the runtime injects the field, a proxy of the
 * current request) only when the servlet API is on the class path ({@link AddressSource}): this
 * class is the only one that names a servlet type, so without the API nothing loads it. It is a
 * request filter only to be a provider the runtime injects; the filter does nothing, and the
 * stages ask {@link #address()} on the request's thread. Outside a servlet container (the API
 * present, the request not a servlet request) the field stays {@code null}, and the address is
 * unknown. Thread-safe: the injected proxy resolves the current request.
 */
@PreMatching
final class ServletPeer implements ContainerRequestFilter {

    @Context
    private HttpServletRequest servletRequest;

    @Context
    private HttpServletResponse servletResponse;

    /** @return the servlet request's remote address, or {@code null} if there is no servlet request */
    String address() {
        HttpServletRequest r = servletRequest;
        if (r == null) {
            return null;
        }
        try {
            return r.getRemoteAddr();
        } catch (IllegalStateException e) {
            return null; // a proxy outside a request scope (not a servlet request)
        }
    }

    /**
     * @return the field's lines on the servlet response, joined by {@code ", "}; {@code null} if
     *     absent or there is no servlet response
     */
    String field(String name) {
        HttpServletResponse r = servletResponse;
        if (r == null) {
            return null;
        }
        try {
            String first = r.getHeader(name);
            if (first == null) {
                return null;
            }
            java.util.Collection<String> lines = r.getHeaders(name);
            return lines.size() <= 1 ? first : String.join(", ", lines);
        } catch (IllegalStateException e) {
            return null; // a proxy outside a request scope (not a servlet request)
        }
    }

    @Override
    public void filter(ContainerRequestContext request) {
        // Nothing to do: registered so that the runtime injects the servlet request.
    }
}
