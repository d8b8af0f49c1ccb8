package io.github.sluice.policy;

import io.github.sluice.internal.Suggest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Which requests a policy applies to: a list of rules, each a path pattern with an optional set
 * of methods; a request matches if any rule does.
 *
 * <h2>Text form</h2>
 * The {@code match=} option of the configuration language: rules separated by commas, each
 * {@code [METHOD[|METHOD...]:]pattern}, e.g. {@code POST:/login}, {@code GET|PUT:/api/*,/admin/*}.
 * A rule that starts with {@code /} has no method part, so a pattern may itself contain
 * {@code :} ({@code /v1/items:batchGet}). The word {@code none} is {@link #NONE}: a policy that is
 * never applied by path, only when selected by name (a JAX-RS {@code @RateLimited} resource).
 *
 * <h2>Patterns</h2>
 * A pattern is a glob over the decoded path inside the application, and nothing else:
 * <ul>
 *   <li>{@code *} matches any run of characters, {@code /} included ({@code **} is the same);
 *       a pattern ending in {@code /*} also matches the path without it ({@code /api/*} matches
 *       {@code /api});
 *   <li>every other character matches itself, case-sensitively, as the containers and JAX-RS
 *       route;
 *   <li>trailing slashes are insignificant: {@code /login} and {@code /login/} match each other,
 *       because the runtimes route them to the same place (Jersey sends {@code /login/} to
 *       {@code @Path("login")}, a servlet mapped to {@code /login/*} receives {@code /login});
 *   <li>a path that is not canonical (an empty segment {@code //}, a {@code .} or {@code ..}
 *       segment) matches if either the path as given or its canonical form does (empty and
 *       {@code .} segments removed, {@code ..} resolved): containers differ in which of the two
 *       they route with, and a policy must hold under both.
 * </ul>
 * Rejected when parsed, with a message naming the rule: path templates ({@code {id}},
 * {@code <id>}: write {@code *}), regular-expression syntax ({@code \ [ ] ^ |} and {@code ?}),
 * percent-encoding ({@code %}: paths are compared decoded), matrix parameters ({@code ;}: removed
 * before matching), a fragment ({@code #}), characters containers refuse in a path
 * ({@code "} and a backtick), and {@code //}, {@code .} or {@code ..} segments (never present in
 * the compared path).
 *
 * <h2>Methods</h2>
 * Methods are names from the IANA HTTP Method Registry ({@link #METHODS}), written in any case and
 * compared case-insensitively, so that {@code post} cannot slip past a {@code POST} rule. Other
 * names are rejected, so that a typo ({@code POTS}) fails at startup instead of silently never
 * matching; to limit an unregistered extension method, omit the method part (the rule then applies
 * to every method, that one included). A rule naming {@code GET} also matches {@code HEAD}, because
 * a servlet's {@code doHead} and a JAX-RS {@code @GET} method both serve {@code HEAD}, unless some
 * rule of the same match names {@code HEAD} itself: then {@code HEAD} is matched exactly as
 * written.
 *
 * <p>Immutable and thread-safe. {@link #matches} allocates nothing for a canonical path; for a path
 * with {@code //}, {@code .} or {@code ..} segments it builds the canonical form once per rule tried.
 */
public final class Match {

    /**
     * The method names a rule may use: the IANA HTTP Method Registry (RFC 9110, PATCH, the WebDAV
     * family), plus {@code QUERY} (draft-ietf-httpbis-safe-method-w-body). {@code PRI} (the HTTP/2
     * connection preface) and {@code *} are registered but never a request's method.
     */
    public static final Set<String> METHODS = Set.of(
            "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY",
            "ACL", "BASELINE-CONTROL", "BIND", "CHECKIN", "CHECKOUT", "COPY", "LABEL", "LINK", "LOCK", "MERGE",
            "MKACTIVITY", "MKCALENDAR", "MKCOL", "MKREDIRECTREF", "MKWORKSPACE", "MOVE", "ORDERPATCH", "PROPFIND",
            "PROPPATCH", "REBIND", "REPORT", "SEARCH", "UNBIND", "UNCHECKOUT", "UNLINK", "UNLOCK", "UPDATE",
            "UPDATEREDIRECTREF", "VERSION-CONTROL");

    /** The methods a near miss is compared with: a slip is far likelier here than in WebDAV's. */
    private static final List<String> COMMON_METHODS = List.of(
            "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "QUERY");

    /** Matches every request ({@code /*}). */
    public static final Match ALL = new Match(List.of(new Rule(List.of(), "/*")));

    /**
     * Matches no request ({@code none}): the policy applies only where it is selected by name
     * ({@link io.github.sluice.http.Enforcer#select}), e.g. by a JAX-RS {@code @RateLimited} annotation, and never by path.
     */
    public static final Match NONE = new Match(List.of());

    private final List<Rule> rules;
    private final Rule[] ruleArray;
    /** No rule names HEAD, so rules naming GET answer for HEAD too. */
    private final boolean headFollowsGet;
    /**
     * A rule for every method has a pattern of a slash and stars only ({@code /*}, {@code /**}) or
     * of stars only: every path that starts with {@code /} matches it, whatever its method.
     */
    private final boolean everyRootedPath;

    private Match(List<Rule> rules) {
        this.rules = List.copyOf(rules);
        this.ruleArray = this.rules.toArray(new Rule[0]);
        boolean head = false;
        boolean rooted = false;
        for (Rule r : ruleArray) {
            head |= r.methods().contains("HEAD");
            rooted |= r.methods().isEmpty() && r.pattern().matches("/?\\*+");
        }
        this.headFollowsGet = !head;
        this.everyRootedPath = rooted;
    }

    /**
     * Parses the text form.
     *
     * @param text e.g. {@code POST:/login,GET|PUT:/api/*}, or {@code none} for {@link #NONE}
     * @return the match
     * @throws NullPointerException if {@code text} is null
     * @throws IllegalArgumentException if a rule is empty, a method is not a registered HTTP method,
     *     or a pattern is not a valid glob (see the class description); the message names the
     *     offending part and the whole text
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
            int colon = methodColon(r);
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
     * @throws IllegalArgumentException if a pattern is invalid (see the class description)
     */
    public static Match paths(String... patterns) {
        return of(List.of(), patterns);
    }

    /**
     * Creates a match of path patterns for the given methods.
     *
     * @param methods the methods (any if empty), registered HTTP method names in any case
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

    /**
     * The colon that ends a rule's method part, or -1: a rule has one only if it does not start
     * with a pattern and its first {@code :} comes before its first {@code /}.
     */
    private static int methodColon(String rule) {
        if (rule.charAt(0) == '/') {
            return -1;
        }
        int colon = rule.indexOf(':');
        int slash = rule.indexOf('/');
        return colon >= 0 && (slash < 0 || colon < slash) ? colon : -1;
    }

    private static List<String> methods(String text, String whole) {
        List<String> out = new ArrayList<>();
        for (String m : text.split("\\|", -1)) {
            String t = m.strip().toUpperCase(Locale.ROOT);
            if (t.isEmpty() || !t.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || c == '-' || c == '_')) {
                throw new IllegalArgumentException("match method must be an HTTP method name but was '"
                        + m.strip() + "' in '" + whole + "'");
            }
            if (!METHODS.contains(t)) {
                String near = Suggest.nearest(t, COMMON_METHODS);
                throw new IllegalArgumentException("match method must be a registered HTTP method (GET, HEAD, POST,"
                        + " PUT, DELETE, PATCH, OPTIONS, TRACE, CONNECT, QUERY or a WebDAV method such as PROPFIND)"
                        + " but was '" + m.strip() + "' in '" + whole + "'"
                        + (near == null ? "" : " (did you mean '" + near + "'?)")
                        + "; to limit every method, the unregistered ones included, omit the method part");
            }
            if (!out.contains(t)) {
                out.add(t);
            }
        }
        return List.copyOf(out);
    }

    private static String pattern(String p, String whole) {
        // Characters first: "^/api/.*$" is better told it is a regex than that it starts wrongly.
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c <= ' ' || c == ',' || c == 0x7f) {
                throw new IllegalArgumentException("match pattern must not contain whitespace, ',' or control"
                        + " characters but was '" + p + "' in '" + whole + "'");
            }
            String why = forbidden(c);
            if (why != null) {
                throw new IllegalArgumentException("match pattern must not contain '" + c + "' (" + why + ") but was '"
                        + p + "' in '" + whole + "'");
            }
        }
        if (p.isEmpty() || (p.charAt(0) != '/' && p.charAt(0) != '*')) {
            throw new IllegalArgumentException(
                    "match pattern must start with '/' or '*' but was '" + p + "' in '" + whole + "'");
        }
        if (!canonical(p)) {
            throw new IllegalArgumentException("match pattern must not contain '//', '.' or '..' segments (the"
                    + " compared path never has them: write the path they lead to) but was '" + p + "' in '"
                    + whole + "'");
        }
        return p;
    }

    /** @return why {@code c} cannot be in a pattern, or {@code null} if it can */
    private static String forbidden(char c) {
        return switch (c) {
            case '{', '}', '<', '>' ->
                "path templates such as {id} or <id> are not supported: write '*', e.g. /users/*/orders";
            case '%' -> "paths are compared decoded: write the character itself";
            case ';' -> "matrix parameters are removed from the path before it is compared";
            case '?' -> "the query string is not part of the path, and '*' is the only wildcard";
            case '#' -> "a fragment is never sent to the server";
            case '\\', '[', ']', '^', '|' -> "patterns are globs whose only wildcard is '*', not regular expressions";
            case '"', '`' -> "containers refuse it in a request path";
            default -> null;
        };
    }

    /**
     * Tells whether a request matches: some rule matches its method (a rule naming {@code GET}
     * matches {@code HEAD} too, unless a rule of this match names {@code HEAD}) and its path.
     *
     * @param method the request method, compared case-insensitively
     * @param path the request path (see {@link io.github.sluice.request.RequestView#path()}); {@code null} matches nothing
     * @return {@code true} if any rule matches
     */
    public boolean matches(String method, String path) {
        if (path == null) {
            return false;
        }
        if (everyRootedPath && !path.isEmpty() && path.charAt(0) == '/') {
            return true; // e.g. ALL, the default: whatever the method, and without a walk over the path
        }
        return matchesByRules(method, path);
    }

    /** {@link #matches} without the shortcut of {@link #everyRootedPath}; for the tests that compare the two. */
    boolean matchesByRules(String method, String path) {
        if (path == null) {
            return false;
        }
        // The canonical form is looked for once per request, not once per rule, and built only
        // for the rare path that needs it.
        return matchesForm(method, path) || (!canonical(path) && matchesForm(method, canonicalize(path)));
    }

    private boolean matchesForm(String method, String path) {
        boolean head = false;
        for (Rule r : ruleArray) {
            if (r.methodMatches(method)) {
                if (r.matchesForm(path)) {
                    return true;
                }
            } else if (headFollowsGet && r.methods().contains("GET")) {
                head |= "HEAD".equalsIgnoreCase(method) && r.matchesForm(path);
            }
        }
        return head;
    }

    /**
     * Tells whether a rule of this match names the method explicitly (a rule without methods
     * names none): how an enforcer decides that a policy still applies to a method it exempts,
     * such as {@code OPTIONS}.
     *
     * @param method a request method, compared case-insensitively
     * @return {@code true} if some rule lists it
     */
    public boolean names(String method) {
        for (Rule r : ruleArray) {
            for (String m : r.methods()) {
                if (m.equalsIgnoreCase(method)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return the rules, in the order given */
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

    /** @return the text form, which {@link #parse} reads back to an equal match */
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

    /** @return {@code true} if {@code s} has no empty ({@code //}), {@code .} or {@code ..} segment */
    static boolean canonical(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) != '/') {
                continue;
            }
            int j = i + 1;
            if (j < n && s.charAt(j) == '/') {
                return false;
            }
            if (j < n && s.charAt(j) == '.') {
                int k = j + 1;
                if (k == n || s.charAt(k) == '/' || (s.charAt(k) == '.' && (k + 1 == n || s.charAt(k + 1) == '/'))) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The canonical form of a path: empty and {@code .} segments removed, {@code ..} segments
     * resolved (never above the root), as RFC 3986's remove_dot_segments plus merged slashes.
     */
    static String canonicalize(String s) {
        StringBuilder b = new StringBuilder(s.length());
        int n = s.length();
        int i = 0;
        while (i <= n) {
            int end = s.indexOf('/', i);
            if (end < 0) {
                end = n;
            }
            int len = end - i;
            if (len == 2 && s.charAt(i) == '.' && s.charAt(i + 1) == '.') {
                int cut = b.lastIndexOf("/");
                b.setLength(Math.max(cut, 0));
            } else if (len > 0 && !(len == 1 && s.charAt(i) == '.')) {
                b.append('/').append(s, i, end);
            }
            i = end + 1;
        }
        return b.length() == 0 ? "/" : b.toString();
    }

    /** @return the length of {@code s} without its trailing slashes, but at least 1 */
    private static int withoutTrailingSlashes(String s) {
        int end = s.length();
        while (end > 1 && s.charAt(end - 1) == '/') {
            end--;
        }
        return end;
    }

    /**
     * One rule: methods (empty = any) and a path pattern.
     *
     * @param methods upper-case registered method names, empty for any
     * @param pattern the path pattern, a glob over the decoded path (see {@link Match})
     */
    public record Rule(List<String> methods, String pattern) {

        /**
         * Creates a rule; see {@link Match} for the forms.
         *
         * @param methods registered method names in any case (stored in upper case), empty for any
         * @param pattern the path pattern
         * @throws NullPointerException if an argument is null
         * @throws IllegalArgumentException if a method or the pattern is invalid
         */
        public Rule {
            Objects.requireNonNull(methods, "methods");
            Objects.requireNonNull(pattern, "pattern");
            // Qualified: the record's accessors of the same names hide Match's parsers here.
            methods = methods.isEmpty() ? List.of() : Match.methods(String.join("|", methods), methods.toString());
            Match.pattern(pattern, pattern);
        }

        /**
         * Tells whether this rule alone matches a request: its methods as written (the
         * {@code GET}-covers-{@code HEAD} rule belongs to {@link Match#matches}) and its pattern.
         *
         * @param method the request method, compared case-insensitively
         * @param path the request path; {@code null} matches nothing
         * @return {@code true} if both match
         */
        public boolean matches(String method, String path) {
            return methodMatches(method) && matchesPath(path);
        }

        /** @return {@code true} if the rule names no method or names this one, in any case */
        boolean methodMatches(String method) {
            for (int i = 0; i < methods.size(); i++) {
                if (methods.get(i).equalsIgnoreCase(method)) {
                    return true;
                }
            }
            return methods.isEmpty();
        }

        /**
         * Tells whether the pattern matches a path, ignoring trailing slashes on either side, and
         * trying the canonical form of a path that has {@code //}, {@code .} or {@code ..} segments.
         *
         * @param path the request path; {@code null} matches nothing
         * @return {@code true} if the path matches
         */
        public boolean matchesPath(String path) {
            if (path == null) {
                return false;
            }
            return matchesForm(path) || (!canonical(path) && matchesForm(canonicalize(path)));
        }

        /** The pattern against one form of the path, trailing slashes ignored on either side. */
        boolean matchesForm(String s) {
            int sn = s.length();
            int pn = pattern.length();
            if (glob(pn, s, sn)) {
                return true;
            }
            int se = withoutTrailingSlashes(s);
            int pe = withoutTrailingSlashes(pattern);
            return (se != sn && glob(pn, s, se)) || (pe != pn && (glob(pe, s, sn) || glob(pe, s, se)));
        }

        /** The pattern's first {@code pEnd} characters against the path's first {@code sEnd}. */
        private boolean glob(int pEnd, String s, int sEnd) {
            if (glob(pattern, pEnd, s, sEnd)) {
                return true;
            }
            // "/api/*" also covers "/api".
            return pEnd >= 2 && pattern.charAt(pEnd - 1) == '*' && pattern.charAt(pEnd - 2) == '/'
                    && sEnd == pEnd - 2 && pattern.regionMatches(0, s, 0, pEnd - 2);
        }

        /** Iterative glob with single-star backtracking: linear in practice, never recursive. */
        private static boolean glob(String p, int pEnd, String s, int sEnd) {
            int pi = 0;
            int si = 0;
            int star = -1;
            int mark = 0;
            while (si < sEnd) {
                if (pi < pEnd && p.charAt(pi) == '*') {
                    star = pi++;
                    mark = si;
                } else if (pi < pEnd && p.charAt(pi) == s.charAt(si)) {
                    pi++;
                    si++;
                } else if (star >= 0) {
                    pi = star + 1;
                    si = ++mark;
                } else {
                    return false;
                }
            }
            while (pi < pEnd && p.charAt(pi) == '*') {
                pi++;
            }
            return pi == pEnd;
        }

        @Override
        public String toString() {
            return methods.isEmpty() ? pattern : String.join("|", methods) + ':' + pattern;
        }
    }
}
