package io.github.sluice.servlet;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The path inside the application, recovered from the raw request URI for the requests whose
 * decoded path the container will not give: Jetty 12, when configured to route URIs it calls
 * ambiguous ({@code //}, {@code %2e%2e}, {@code %2F} under {@code UriCompliance.LEGACY}), serves
 * them but throws from {@code getServletPath()}. The recovery does what the containers do:
 * removes path parameters ({@code ;jsessionid=...}), then percent-decodes as UTF-8 (a malformed
 * escape stays as written, a malformed sequence becomes U+FFFD), then removes the context path.
 * Empty and dot segments are left for {@link io.github.sluice.policy.Match}, which tries a path and
 * its canonical form. Allocates; used only on that rare path. Stateless.
 */
final class RawPath {

    private RawPath() {
    }

    /**
     * @param requestUri the raw request URI, as {@code getRequestURI()} returns it
     * @param contextPath the context path, as {@code getContextPath()} returns it ({@code ""} for the root)
     * @return the decoded path inside the application, starting with {@code /}
     */
    static String of(String requestUri, String contextPath) {
        String path = decode(withoutParameters(requestUri == null ? "/" : requestUri));
        String context = contextPath == null ? "" : decode(withoutParameters(contextPath));
        String inside = inside(path, context);
        if (inside == null) {
            // The client spelled the context path differently (/./app, //app): compare canonical forms.
            inside = inside(canonical(path), canonical(context));
        }
        if (inside == null) {
            inside = path;
        }
        return inside.startsWith("/") ? inside : "/" + inside;
    }

    /** @return the part of {@code path} after the context path, or {@code null} if it does not start with it */
    private static String inside(String path, String context) {
        if (context.isEmpty() || context.equals("/")) {
            return path;
        }
        if (path.startsWith(context) && (path.length() == context.length() || path.charAt(context.length()) == '/')) {
            return path.substring(context.length());
        }
        return null;
    }

    /** Removes every {@code ;parameter} up to the next {@code /}, as containers do before routing. */
    static String withoutParameters(String raw) {
        int semi = raw.indexOf(';');
        if (semi < 0) {
            return raw;
        }
        StringBuilder b = new StringBuilder(raw.length());
        int i = 0;
        while (semi >= 0) {
            b.append(raw, i, semi);
            int slash = raw.indexOf('/', semi);
            if (slash < 0) {
                return b.toString();
            }
            i = slash;
            semi = raw.indexOf(';', i);
        }
        return b.append(raw, i, raw.length()).toString();
    }

    /** Percent-decodes as UTF-8; a {@code %} not followed by two hex digits stays as written. */
    static String decode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        StringBuilder out = new StringBuilder(raw.length());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int n = raw.length();
        for (int i = 0; i < n; i++) {
            char c = raw.charAt(i);
            int hi = c == '%' && i + 2 < n ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
            if (lo >= 0) {
                bytes.write(hi << 4 | lo);
                i += 2;
            } else {
                flush(bytes, out);
                out.append(c);
            }
        }
        flush(bytes, out);
        return out.toString();
    }

    private static void flush(ByteArrayOutputStream bytes, StringBuilder out) {
        if (bytes.size() > 0) {
            out.append(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
            bytes.reset();
        }
    }

    /** Empty and {@code .} segments removed, {@code ..} resolved, never above the root. */
    static String canonical(String path) {
        StringBuilder b = new StringBuilder(path.length());
        for (String segment : path.split("/", -1)) {
            if (segment.equals("..")) {
                b.setLength(Math.max(b.lastIndexOf("/"), 0));
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                b.append('/').append(segment);
            }
        }
        return b.length() == 0 ? "/" : b.toString();
    }
}
