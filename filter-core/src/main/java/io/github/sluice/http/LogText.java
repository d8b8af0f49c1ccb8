package io.github.sluice.http;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Makes text a client wrote (a key, a path, a method, a header value) safe to put in a log line:
 * the one escaping every Sluice log call uses for such text, from the denial log of
 * {@link LoggingListener} to the adapters' warnings.
 *
 * <p>Escaped as {@code \\uXXXX} (lower-case hex): C0 and C1 control characters (CR, LF, NUL, ESC,
 * NEL...) and DEL, which could end a line and forge the next one or drive a terminal; Unicode
 * line and paragraph separators (U+2028, U+2029), which some viewers and JSON log shippers break
 * lines at; format characters (bidirectional overrides such as U+202E, zero-width characters),
 * which could disguise what a line says (those beyond the BMP, such as the tag characters, as
 * both halves of their pair); and unpaired surrogates, which a log encoder would write
 * as {@code ?}, making distinct keys look alike; and the backslash itself ({@code \\u005c}), so that
 * every {@code \\u} in a line is one of these escapes and a client cannot write one that passes for
 * it. Everything else, non-ASCII letters included, is
 * kept, so an ordinary key reads as itself. Text that needs no escape is returned as it is,
 * without allocating.
 *
 * <p>Stateless and thread-safe.
 */
public final class LogText {

    /** Paths longer than this are cut in log lines, so a hostile request cannot flood the log. */
    public static final int MAX_PATH = 256;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private LogText() {
    }

    /**
     * Escapes client-written text for a log line.
     *
     * @param text the text, or {@code null}
     * @return the text with unsafe characters as {@code \\uXXXX}; {@code "null"} for {@code null}
     */
    public static String escape(String text) {
        if (text == null) {
            return "null";
        }
        for (int i = 0; i < text.length(); i++) {
            if (unsafe(text, i)) {
                return escapeFrom(text, i);
            }
        }
        return text;
    }

    /**
     * Escapes a request path for a log line, cut after {@value #MAX_PATH} characters (then ending
     * in {@code ...}).
     *
     * @param path the path, or {@code null}
     * @return the bounded, escaped path; {@code "null"} for {@code null}
     */
    public static String path(String path) {
        if (path != null && path.length() > MAX_PATH) {
            // Never cut a surrogate pair in two: the half left would be escaped as if unpaired.
            int end = Character.isHighSurrogate(path.charAt(MAX_PATH - 1)) ? MAX_PATH - 1 : MAX_PATH;
            path = path.substring(0, end) + "...";
        }
        return escape(path);
    }

    /**
     * Makes a throwable safe to pass to a logger when its message may hold client-written text (an
     * application's {@code IllegalArgumentException("no item " + id)}, say): the throwable itself
     * if no message in its chain (causes and suppressed ones included) needs an escape, else a
     * stand-in that prints as the original does, class names and stack traces included, with each
     * message {@linkplain #escape escaped}. The stand-in's own class is this one's nested
     * {@code Escaped}: a log backend that prints {@code toString()} (java.util.logging, Log4j,
     * Logback's default) shows the original class name.
     *
     * @param thrown the throwable, or {@code null}
     * @return {@code thrown}, or its escaped stand-in; {@code null} for {@code null}
     */
    public static Throwable escape(Throwable thrown) {
        if (thrown == null || safe(thrown, Collections.newSetFromMap(new IdentityHashMap<>()))) {
            return thrown;
        }
        return copy(thrown, new IdentityHashMap<>());
    }

    private static boolean safe(Throwable t, Set<Throwable> seen) {
        if (!seen.add(t)) {
            return true;
        }
        String text = t.toString();
        if (escape(text) != text) {
            return false;
        }
        for (Throwable s : t.getSuppressed()) {
            if (!safe(s, seen)) {
                return false;
            }
        }
        return t.getCause() == null || safe(t.getCause(), seen);
    }

    private static Throwable copy(Throwable t, Map<Throwable, Throwable> copies) {
        Throwable done = copies.get(t);
        if (done != null) {
            return done;
        }
        Escaped e = new Escaped(t);
        copies.put(t, e);
        if (t.getCause() != null) {
            e.initCause(copy(t.getCause(), copies));
        }
        for (Throwable s : t.getSuppressed()) {
            e.addSuppressed(copy(s, copies));
        }
        return e;
    }

    /** A throwable's stand-in: its text escaped, its stack trace as it was. */
    private static final class Escaped extends Throwable {
        private static final long serialVersionUID = 1L;

        private final String text;

        Escaped(Throwable original) {
            super(original.getMessage() == null ? null : escape(original.getMessage())); // cause left unset
            this.text = escape(original.toString());
            setStackTrace(original.getStackTrace());
        }

        @Override
        public String toString() {
            return text;
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // replaced by the original's
        }
    }

    private static String escapeFrom(String text, int first) {
        StringBuilder b = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (unsafe(text, i)) {
                b.append("\\u").append(HEX[c >>> 12]).append(HEX[(c >>> 8) & 0xF])
                        .append(HEX[(c >>> 4) & 0xF]).append(HEX[c & 0xF]);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static boolean unsafe(String text, int i) {
        char c = text.charAt(i);
        if (c < 0x80) {
            // The backslash too, so that a client cannot write text that passes for one of our escapes.
            return c < 0x20 || c == 0x7f || c == '\\';
        }
        if (Character.isISOControl(c)) {
            return true;
        }
        int type;
        if (Character.isHighSurrogate(c)) {
            if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                return true;
            }
            type = Character.getType(Character.toCodePoint(c, text.charAt(i + 1)));
        } else if (Character.isLowSurrogate(c)) {
            if (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1))) {
                return true;
            }
            type = Character.getType(Character.toCodePoint(text.charAt(i - 1), c));
        } else {
            type = Character.getType(c);
        }
        return type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.FORMAT;
    }
}
