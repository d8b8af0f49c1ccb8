package io.github.sluice.jaxrs;

import io.github.sluice.request.RequestView;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.PathSegment;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The {@link RequestView} of a JAX-RS request: one small object per decided request, read only on
 * the filter's thread. Never throws on request content.
 */
final class JaxRsRequest implements RequestView {

    private final ContainerRequestContext request;
    private final PeerAddress peer;

    JaxRsRequest(ContainerRequestContext request, PeerAddress peer) {
        this.request = request;
        this.peer = peer;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /**
     * The decoded path inside the application, as the runtime matches resources against it: with
     * a leading {@code /} and without matrix parameters, which the runtime ignores when it routes
     * (so that {@code /admin;x=1} cannot slip past a pattern for {@code /admin}). Dot segments
     * and {@code //} stay: Jersey routes {@code /items/..} to the item {@code ..}, and
     * {@link io.github.sluice.policy.Match} tries a path and its canonical form.
     */
    @Override
    public String path() {
        String path = request.getUriInfo().getPath();
        if (path.indexOf(';') >= 0) {
            return withoutMatrixParameters(request.getUriInfo().getPathSegments());
        }
        return path.startsWith("/") ? path : "/" + path;
    }

    private static String withoutMatrixParameters(List<PathSegment> segments) {
        StringBuilder b = new StringBuilder();
        for (PathSegment s : segments) {
            b.append('/').append(s.getPath());
        }
        return b.length() == 0 ? "/" : b.toString();
    }

    @Override
    public Iterator<String> headers(String name) {
        List<String> lines = request.getHeaders().get(name);
        return lines == null ? Collections.emptyIterator() : lines.iterator();
    }

    @Override
    public String header(String name) {
        return request.getHeaders().getFirst(name);
    }

    @Override
    public String peerAddress() {
        return peer.of(request);
    }

    @Override
    public String principal() {
        SecurityContext security = request.getSecurityContext();
        Principal p = security == null ? null : security.getUserPrincipal();
        return p == null ? null : p.getName();
    }

    @Override
    public Object attribute(String name) {
        return request.getProperty(name);
    }
}
