package io.github.sluice.webflux;

import org.springframework.http.server.PathContainer;

/**
 * The path of an exchange as the policies see it: the path inside the application (without the
 * context path), decoded and without path parameters ({@code ;jsessionid=...}), segment by segment
 * as Spring's {@code PathPattern} matches it ({@link PathContainer.PathSegment#valueToMatch()}),
 * so that {@code /%61pi} or {@code /api;x=1} is limited like {@code /api}. Empty and dot segments
 * are kept: {@link io.github.sluice.policy.Match} also tries the canonical form. Stateless.
 */
final class ExchangePath {

    private ExchangePath() {
    }

    /**
     * @param inside the path within the application, as {@code pathWithinApplication()} gives it
     * @return the decoded path, starting with {@code /}
     */
    static String of(PathContainer inside) {
        String raw = inside.value();
        if (raw.isEmpty()) {
            return "/";
        }
        // Nearly every request: nothing to decode or strip, the raw value is the path (no allocation).
        if (raw.indexOf('%') < 0 && raw.indexOf(';') < 0) {
            return raw.charAt(0) == '/' ? raw : "/" + raw;
        }
        StringBuilder b = new StringBuilder(raw.length());
        for (PathContainer.Element e : inside.elements()) {
            b.append(e instanceof PathContainer.PathSegment s ? s.valueToMatch() : e.value());
        }
        if (b.length() == 0 || b.charAt(0) != '/') {
            b.insert(0, '/');
        }
        return b.toString();
    }
}
