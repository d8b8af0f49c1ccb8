package io.github.sluice.demo;

import io.github.sluice.jaxrs.SluiceFeature;
import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;

/**
 * Tells Sluice the TCP peer's address, which JAX-RS itself does not expose: in a servlet
 * container it is the servlet request's remote address. The {@code ip} key (and the
 * {@code X-Api-Key}-else-address fallback of {@code per-key}) starts from it, then honours
 * {@code X-Forwarded-For} only when this peer is a trusted proxy.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public class ClientAddressFilter implements ContainerRequestFilter {

    @Context
    private HttpServletRequest servletRequest;

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(SluiceFeature.PEER_ADDRESS, servletRequest.getRemoteAddr());
    }
}
