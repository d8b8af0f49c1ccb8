package io.github.sluice.servlet;

import io.github.sluice.request.HeaderSink;
import io.github.sluice.request.RequestView;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Iterator;

/**
 * One request seen by the policies, and the sink of the response's rate-limit headers: a single
 * small object per request. Not thread-safe; used on the thread that runs the filter.
 */
final class ServletRequestView implements RequestView, HeaderSink {

    private final HttpServletRequest request;
    private final HttpServletResponse response;

    ServletRequestView(HttpServletRequest request, HttpServletResponse response) {
        this.request = request;
        this.response = response;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /**
     * The path the container routed with: servlet path + path info, which the container has
     * decoded, stripped of path parameters and normalised. For a URI the container routes but
     * will not decode here (Jetty's ambiguous URIs under a lenient compliance), the path recovered
     * from the raw URI, so that such a request is limited like its plain spelling instead of failing.
     */
    @Override
    public String path() {
        String servletPath;
        String pathInfo;
        try {
            servletPath = request.getServletPath();
            pathInfo = request.getPathInfo();
        } catch (RuntimeException ambiguous) {
            return RawPath.of(request.getRequestURI(), request.getContextPath());
        }
        if (pathInfo == null) {
            return servletPath == null || servletPath.isEmpty() ? "/" : servletPath;
        }
        return servletPath == null || servletPath.isEmpty() ? pathInfo : servletPath + pathInfo;
    }

    @Override
    public Iterator<String> headers(String name) {
        Enumeration<String> lines = request.getHeaders(name);
        return lines == null ? Collections.emptyIterator() : lines.asIterator();
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public String peerAddress() {
        return request.getRemoteAddr();
    }

    @Override
    public String principal() {
        Principal p = request.getUserPrincipal();
        return p == null ? null : p.getName();
    }

    @Override
    public Object attribute(String name) {
        return request.getAttribute(name);
    }

    /**
     * Sets a response header: when another layer (a Sluice filter in front) wrote the field,
     * {@code value} is the merge of both, read through {@link #existing}.
     */
    @Override
    public void header(String name, String value) {
        response.setHeader(name, value);
    }

    /** @return the field's lines already on the response, joined; {@code null} if none (no allocation then) */
    @Override
    public String existing(String name) {
        String first = response.getHeader(name);
        if (first == null) {
            return null;
        }
        java.util.Collection<String> lines = response.getHeaders(name);
        return lines.size() <= 1 ? first : String.join(", ", lines);
    }
}
