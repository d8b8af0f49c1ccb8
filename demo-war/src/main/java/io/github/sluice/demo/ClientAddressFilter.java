package io.github.sluice.demo;

import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;

/**
 * Finds the TCP peer's address, which JAX-RS itself does not expose: in a servlet container it is
 * the servlet request's remote address. This filter runs first and keeps it in a request
 * property; {@link #peer} hands it to the Sluice feature. The {@code ip} key (and the
 * {@code X-Api-Key}-else-address fallback of {@code per-key}) starts from it, then honours
 * {@code X-Forwarded-For} only when this peer is a trusted proxy.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public class ClientAddressFilter implements ContainerRequestFilter {

    /** The request property holding the peer's address. */
    static final String PROPERTY = "io.github.sluice.demo.peer-address";

    @Context
    private HttpServletRequest servletRequest;

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(PROPERTY, servletRequest.getRemoteAddr());
    }

    /**
     * @param request a request this filter has seen
     * @return the TCP peer's address, or {@code null} if unknown
     */
    static String peer(ContainerRequestContext request) {
        Object address = request.getProperty(PROPERTY);
        return address == null ? null : address.toString();
    }
}
