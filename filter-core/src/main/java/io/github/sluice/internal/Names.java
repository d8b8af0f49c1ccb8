package io.github.sluice.internal;

import java.util.Objects;

/** Checks of names used in the configuration language. Stateless and thread-safe. */
public final class Names {

    private Names() {
    }

    /**
     * Checks an HTTP field name: an RFC 9110 token.
     *
     * @param what what the name is, for messages (e.g. {@code degraded-header})
     * @param name the name
     * @return {@code name}
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is empty or not a token
     */
    public static String token(String what, String name) {
        Objects.requireNonNull(name, what);
        if (name.isEmpty()) {
            throw new IllegalArgumentException(what + " name must not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                throw new IllegalArgumentException(what + " name must be an HTTP token but was '" + name + "'");
            }
        }
        return name;
    }

    /**
     * Checks a non-blank word without whitespace, '|' or control characters.
     *
     * @param what what the word is, for messages
     * @param value the word
     * @return {@code value}
     * @throws NullPointerException if {@code value} is null
     * @throws IllegalArgumentException if {@code value} is empty or holds a character it must not
     */
    public static String word(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= ' ' || c == '|' || c == 0x7f) {
                throw new IllegalArgumentException(
                        what + " must not contain whitespace, '|' or control characters but was '" + value + "'");
            }
        }
        return value;
    }
}
