package io.github.sluice.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Which requests a policy applies to: a list of rules, each a path pattern with an optional set
 * of methods; a request matches if any rule does.
 *
 * <p>Text form (the {@code match=} option of the configuration language): rules separated by
 * commas, each {@code [METHOD[|METHOD...]:]pattern}, e.g. {@code POST:/login},
 * {@code GET|HEAD:/api/*,/admin/*}. The word {@code none} is {@link #NONE}: a policy that is never
 * applied by path, only when selected by name (a JAX-RS {@code @RateLimited} resource).
 *
 * <p>Patterns: {@code *} matches any run of characters, including {@code /}; a pattern ending
 * in {@code /*} also matches the path without it ({@code /api/*} matches {@code /api}); anything
 * else matches literally and case-sensitively. Methods match case-insensitively, so that
 * {@code post} cannot slip past a {@code POST} rule.
 *
 * <p>Immutable and thread-safe; {@link #matches} allocates nothing.
 */
public final class Match {

    /** Matches every request ({@code /*}). */
    public static final Match ALL = new Match(List.of(new Rule(List.of(), "/*")));

    /**
     * Matches no request ({@code none}): the policy applies only where it is selected by name
     * ({@link Enforcer#select}), e.g. by a JAX-RS {@code @RateLimited} annotation, and never by path.
     */
    public static final Match NONE = new Match(List.of());

    private final List<Rule> rules;
    private final Rule[] ruleArray;

    private Match(List<Rule> rules) {
        this.rules = List.copyOf(rules);
        this.ruleArray = this.rules.toArray(new Rule[0]);
    }

    /**
     * Parses the text form.
     *
     * @param text e.g. {@code POST:/login,GET|HEAD:/api/*}, or {@code none} for {@link #NONE}
     * @return the match
     * @throws NullPointerException if {@code text} is null
     * @throws IllegalArgumentException if a rule is empty, a pattern does not start with
     *     {@code /} or {@code *}, or a method is not an HTTP token
     */
    public static Match parse(String text) {
        Objects.requireNonNull(text, "match");
        if (text.strip().equals("none")) {
            return NONE;
        }
        List<Rule> rules = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String r = part.strip();
            if (r.isEmpty()) {
                throw new IllegalArgumentException("match rule must not be empty in '" + text + "'");
            }
            int colon = r.indexOf(':');
            List<String> methods = List.of();
            String pattern = r;
            if (colon >= 0) {
                methods = methods(r.substring(0, colon), text);
                pattern = r.substring(colon + 1).strip();
            }
            rules.add(new Rule(methods, pattern(pattern, text)));
        }
        return new Match(rules);
    }

    /**
     * Creates a match of path patterns for any method.
     *
     * @param patterns e.g. {@code /api/*}
     * @return the match
     * @throws IllegalArgumentException if a pattern does not start with {@code /} or {@code *}
     */
    public static Match paths(String... patterns) {
        return of(List.of(), patterns);
    }

    /**
     * Creates a match of path patterns for the given methods.
     *
     * @param methods the methods (any if empty)
     * @param patterns the patterns, at least one
     * @return the match
     * @throws IllegalArgumentException if a pattern or a method is invalid, or no pattern is given
     */
    public static Match of(List<String> methods, String... patterns) {
        if (patterns.length == 0) {
            throw new IllegalArgumentException("match needs at least one path pattern");
        }
        List<String> ms = methods.isEmpty() ? List.of() : methods(String.join("|", methods), methods.toString());
        List<Rule> rules = new ArrayList<>();
        for (String p : patterns) {
            rules.add(new Rule(ms, pattern(p, p)));
        }
        return new Match(rules);
    }

    private static List<String> methods(String text, String whole) {
        List<String> out = new ArrayList<>();
        for (String m : text.split("\\|", -1)) {
            String t = m.strip().toUpperCase(Locale.ROOT);
            if (t.isEmpty() || !t.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || c == '-' || c == '_')) {
                throw new IllegalArgumentException("match method must be an HTTP method name but was '"
                        + m.strip() + "' in '" + whole + "'");
            }
            if (!out.contains(t)) {
                out.add(t);
            }
        }
        return List.copyOf(out);
    }

    private static String pattern(String p, String whole) {
        if (p.isEmpty() || (p.charAt(0) != '/' && p.charAt(0) != '*')) {
            throw new IllegalArgumentException(
                    "match pattern must start with '/' or '*' but was '" + p + "' in '" + whole + "'");
        }
        for (int i = 0; i < p.length(); i++) {
            if (p.charAt(i) <= ' ' || p.charAt(i) == ',' || p.charAt(i) == 0x7f) {
                throw new IllegalArgumentException("match pattern must not contain whitespace, ',' or control"
                        + " characters but was '" + p + "' in '" + whole + "'");
            }
        }
        return p;
    }

    /**
     * Tells whether a request matches.
     *
     * @param method the request method
     * @param path the request path (see {@link RequestView#path()})
     * @return {@code true} if any rule matches
     */
    public boolean matches(String method, String path) {
        for (Rule r : ruleArray) {
            if (r.matches(method, path)) {
                return true;
            }
        }
        return false;
    }

    /** @return the rules */
    public List<Rule> rules() {
        return rules;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Match m && m.rules.equals(rules);
    }

    @Override
    public int hashCode() {
        return rules.hashCode();
    }

    /** @return the text form */
    @Override
    public String toString() {
        if (rules.isEmpty()) {
            return "none";
        }
        StringBuilder b = new StringBuilder();
        for (Rule r : rules) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(r);
        }
        return b.toString();
    }

    /**
     * One rule: methods (empty = any) and a path pattern.
     *
     * @param methods upper-case method names, empty for any
     * @param pattern the path pattern
     */
    public record Rule(List<String> methods, String pattern) {

        /**
         * Creates a rule; see {@link Match} for the forms.
         *
         * @param methods upper-case method names, empty for any
         * @param pattern the path pattern
         */
        public Rule {
            methods = List.copyOf(methods);
            Objects.requireNonNull(pattern, "pattern");
        }

        /**
         * @param method the request method
         * @param path the request path
         * @return {@code true} if both match
         */
        public boolean matches(String method, String path) {
            if (!methods.isEmpty()) {
                boolean any = false;
                for (int i = 0; i < methods.size() && !any; i++) {
                    any = methods.get(i).equalsIgnoreCase(method);
                }
                if (!any) {
                    return false;
                }
            }
            if (path == null) {
                return false;
            }
            if (glob(pattern, 0, path, 0)) {
                return true;
            }
            // "/api/*" also covers "/api".
            int n = pattern.length();
            return n >= 2 && pattern.charAt(n - 1) == '*' && pattern.charAt(n - 2) == '/'
                    && path.length() == n - 2 && pattern.regionMatches(0, path, 0, n - 2);
        }

        /** Iterative glob with single-star backtracking: linear in practice, never recursive. */
        private static boolean glob(String p, int pi, String s, int si) {
            int star = -1;
            int mark = 0;
            while (si < s.length()) {
                if (pi < p.length() && p.charAt(pi) == '*') {
                    star = pi++;
                    mark = si;
                } else if (pi < p.length() && p.charAt(pi) == s.charAt(si)) {
                    pi++;
                    si++;
                } else if (star >= 0) {
                    pi = star + 1;
                    si = ++mark;
                } else {
                    return false;
                }
            }
            while (pi < p.length() && p.charAt(pi) == '*') {
                pi++;
            }
            return pi == p.length();
        }

        @Override
        public String toString() {
            return methods.isEmpty() ? pattern : String.join("|", methods) + ':' + pattern;
        }
    }
}
