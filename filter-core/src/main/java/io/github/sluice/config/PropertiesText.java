package io.github.sluice.config;

import io.github.sluice.policy.ConfigException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the {@code .properties} format while remembering the line each entry starts on, which
 * {@link java.util.Properties} forgets: comments ({@code #}, {@code !}), separators {@code =},
 * {@code :} or whitespace, a trailing backslash continuing a line, and the escapes
 * backslash-t, -n, -r, -f, a doubled backslash, and backslash-u followed by four hex digits.
 */
final class PropertiesText {

    /** One entry. */
    record Entry(String key, String value, int line) {
    }

    private PropertiesText() {
    }

    static List<Entry> parse(String text, String source) {
        List<Entry> out = new ArrayList<>();
        String[] lines = text.split("\r\n|\r|\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int start = i;
            String line = stripLeading(lines[i]);
            if (line.isEmpty() || line.charAt(0) == '#' || line.charAt(0) == '!') {
                continue;
            }
            StringBuilder logical = new StringBuilder(line);
            while (endsWithOddBackslashes(logical) && i + 1 < lines.length) {
                logical.setLength(logical.length() - 1);
                logical.append(stripLeading(lines[++i]));
            }
            if (endsWithOddBackslashes(logical)) {
                logical.setLength(logical.length() - 1);
            }
            out.add(entry(logical.toString(), source, start + 1));
        }
        return out;
    }

    private static Entry entry(String logical, String source, int line) {
        int i = 0;
        int n = logical.length();
        StringBuilder key = new StringBuilder();
        while (i < n) {
            char c = logical.charAt(i);
            if (c == '\\' && i + 1 < n) {
                i = unescape(logical, i, key, source, line);
                continue;
            }
            if (c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f') {
                break;
            }
            key.append(c);
            i++;
        }
        while (i < n && (logical.charAt(i) == ' ' || logical.charAt(i) == '\t' || logical.charAt(i) == '\f')) {
            i++;
        }
        if (i < n && (logical.charAt(i) == '=' || logical.charAt(i) == ':')) {
            i++;
        }
        while (i < n && (logical.charAt(i) == ' ' || logical.charAt(i) == '\t' || logical.charAt(i) == '\f')) {
            i++;
        }
        StringBuilder value = new StringBuilder();
        while (i < n) {
            char c = logical.charAt(i);
            if (c == '\\' && i + 1 < n) {
                i = unescape(logical, i, value, source, line);
                continue;
            }
            value.append(c);
            i++;
        }
        return new Entry(key.toString(), value.toString(), line);
    }

    private static int unescape(String s, int i, StringBuilder out, String source, int line) {
        char e = s.charAt(i + 1);
        switch (e) {
            case 't' -> out.append('\t');
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 'f' -> out.append('\f');
            case 'u' -> {
                if (i + 6 > s.length() || !s.substring(i + 2, i + 6).matches("[0-9a-fA-F]{4}")) {
                    throw new ConfigException(source, line, null, "escape",
                            s.substring(i, Math.min(s.length(), i + 6)), "a unicode escape must be followed by 4 hex digits", null);
                }
                out.append((char) Integer.parseInt(s.substring(i + 2, i + 6), 16));
                return i + 6;
            }
            default -> out.append(e);
        }
        return i + 2;
    }

    private static boolean endsWithOddBackslashes(CharSequence s) {
        int count = 0;
        for (int i = s.length() - 1; i >= 0 && s.charAt(i) == '\\'; i--) {
            count++;
        }
        return count % 2 == 1;
    }

    private static String stripLeading(String s) {
        int i = 0;
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\f')) {
            i++;
        }
        return s.substring(i);
    }
}
