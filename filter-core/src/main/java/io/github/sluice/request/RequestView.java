package io.github.sluice.request;

import java.util.Iterator;

/**
 * A framework-neutral, read-only view of one HTTP request: all that Sluice reads from it.
 *
 * <p>Adapters implement it over their container's request object (a thin wrapper, ideally one
 * small object per request that also serves as the {@link HeaderSink}). Every method is called
 * on the thread that calls {@link io.github.sluice.http.Enforcer#enforce}, at most a few times per request, and must
 * not throw: return {@code null} (or an empty iterator) for anything the container does not
 * know.
 *
 * <p>Implementations need not be thread-safe.
 */
public interface RequestView {

    /**
     * Returns the request method.
     *
     * @return the method in upper case as sent, e.g. {@code GET}; never {@code null}
     */
    String method();

    /**
     * Returns the path the policies' {@code match} patterns are compared with: the path the
     * runtime routes the request with, inside the application, decoded, without the context path,
     * the query and path parameters ({@code ;jsessionid=...}), e.g. {@code /api/orders/7}. For a
     * Servlet that is {@code servletPath + pathInfo}, which the container has normalised; for
     * JAX-RS, the runtime's path with a leading {@code /}, dot segments kept (Jersey routes them
     * as they are). Never the raw request line, so that {@code %69} or {@code ;x=1} cannot slip
     * past a pattern; {@link io.github.sluice.policy.Match} itself ignores trailing slashes and also tries the canonical
     * form of a path with {@code //}, {@code .} or {@code ..} segments.
     *
     * @return the path, starting with {@code /}; never {@code null}
     */
    String path();

    /**
     * Returns every field line of the header {@code name}, in the order received, each line as
     * sent (a line may itself hold a comma-separated list). Header names are case-insensitive.
     *
     * @param name the header name, e.g. {@code X-Forwarded-For}
     * @return the lines, possibly empty; never {@code null}
     */
    Iterator<String> headers(String name);

    /**
     * Returns the first field line of the header {@code name}.
     *
     * @param name the header name
     * @return the first line, or {@code null} if the header is absent
     */
    default String header(String name) {
        Iterator<String> it = headers(name);
        return it.hasNext() ? it.next() : null;
    }

    /**
     * Returns the address of the TCP peer, as the container reports it: an IPv4 literal such as
     * {@code 203.0.113.7} or an IPv6 literal such as {@code 2001:db8::1} (brackets, a zone or a
     * port are tolerated). It is the proxy's address when the application runs behind one; see
     * {@link io.github.sluice.key.ClientAddress}.
     *
     * @return the peer's address, or {@code null} if unknown
     */
    String peerAddress();

    /**
     * Returns the name of the authenticated user.
     *
     * @return the principal's name, or {@code null} if the request is not authenticated
     */
    String principal();

    /**
     * Returns a request attribute (a Servlet request attribute, a JAX-RS container request
     * property), typically set by an authentication filter that runs earlier.
     *
     * @param name the attribute's name
     * @return the value, or {@code null} if absent
     */
    Object attribute(String name);
}
