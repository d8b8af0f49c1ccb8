package io.github.sluice.jaxrs;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/**
 * A stand-in for an application's authentication filter: the user named by {@code X-User}
 * becomes the request's principal. It runs at {@link Priorities#AUTHENTICATION}, before Sluice.
 */
@Priority(Priorities.AUTHENTICATION)
public final class TestUsers implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        String user = request.getHeaderString("X-User");
        if (user == null) {
            return;
        }
        Principal principal = () -> user;
        request.setSecurityContext(new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false;
            }

            @Override
            public boolean isSecure() {
                return false;
            }

            @Override
            public String getAuthenticationScheme() {
                return "test";
            }
        });
    }
}
