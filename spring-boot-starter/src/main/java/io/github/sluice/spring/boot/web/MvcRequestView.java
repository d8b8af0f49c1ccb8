package io.github.sluice.spring.boot.web;

import io.github.sluice.request.HeaderSink;
import io.github.sluice.request.RequestView;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Iterator;

/**
 * A Spring MVC request as the policies see it, and the sink of its rate-limit headers: one small
 * object per annotated request. Not thread-safe; used on the dispatching thread.
 */
final class MvcRequestView implements RequestView, HeaderSink {

    private final HttpServletRequest request;
    private final HttpServletResponse response;

    MvcRequestView(HttpServletRequest request, HttpServletResponse response) {
        this.request = request;
        this.response = response;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /** The path within the application, as the container decoded and normalised it. */
    @Override
    public String path() {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return path.isEmpty() ? "/" : path;
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
