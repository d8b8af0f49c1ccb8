package io.github.sluice.testing;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser of RFC 9651 Structured Field Values, written from the RFC's parsing algorithms
 * (section 4.2), for checking what Sluice serialises. It parses Lists and Items with every bare
 * item type but Display Strings, and throws {@link IllegalArgumentException} on anything the RFC
 * says must fail parsing.
 */
public final class StructuredFields {

    /** An sf-token (kept apart from strings). */
    public record Token(String value) {
    }

    /** An sf-date: seconds since the epoch. */
    public record Date(long seconds) {
    }

    /** An Item: a bare item and its parameters (in order). */
    public record Item(Object value, Map<String, Object> params) {
        /** @return the parameter, or null */
        public Object param(String key) {
            return params.get(key);
        }
    }

    /** An Inner List and its parameters. */
    public record InnerList(List<Item> items, Map<String, Object> params) {
    }

    private final String s;
    private int i;

    private StructuredFields(String s) {
        this.s = s;
    }

    /** Parses a List field (RFC 9651 4.2.1). */
    public static List<Object> parseList(String field) {
        StructuredFields p = new StructuredFields(field);
        p.skipSp();
        List<Object> members = new ArrayList<>();
        while (!p.end()) {
            members.add(p.peek() == '(' ? p.innerList() : p.item());
            p.skipOws();
            if (p.end()) {
                return members;
            }
            p.expect(',');
            p.skipOws();
            if (p.end()) {
                throw p.fail("trailing comma in list");
            }
        }
        return members;
    }

    /** Parses an Item field (RFC 9651 4.2.3). */
    public static Item parseItem(String field) {
        StructuredFields p = new StructuredFields(field);
        p.skipSp();
        Item item = p.item();
        p.skipSp();
        if (!p.end()) {
            throw p.fail("trailing characters after item");
        }
        return item;
    }

    private Item item() {
        Object bare = bareItem();
        return new Item(bare, parameters());
    }

    private InnerList innerList() {
        expect('(');
        List<Item> items = new ArrayList<>();
        while (!end()) {
            skipSp();
            if (peek() == ')') {
                i++;
                return new InnerList(items, parameters());
            }
            items.add(item());
            if (end() || (peek() != ' ' && peek() != ')')) {
                throw fail("inner list members must be separated by spaces");
            }
        }
        throw fail("unterminated inner list");
    }

    private Map<String, Object> parameters() {
        Map<String, Object> params = new LinkedHashMap<>();
        while (!end() && peek() == ';') {
            i++;
            skipSp();
            String key = key();
            Object value = Boolean.TRUE;
            if (!end() && peek() == '=') {
                i++;
                value = bareItem();
            }
            params.put(key, value);
        }
        return Collections.unmodifiableMap(params);
    }

    private String key() {
        if (end() || !(isLcAlpha(peek()) || peek() == '*')) {
            throw fail("a key must start with a lower-case letter or '*'");
        }
        int start = i;
        while (!end() && (isLcAlpha(peek()) || isDigit(peek()) || "_-.*".indexOf(peek()) >= 0)) {
            i++;
        }
        return s.substring(start, i);
    }

    private Object bareItem() {
        if (end()) {
            throw fail("missing bare item");
        }
        char c = peek();
        if (c == '-' || isDigit(c)) {
            return number();
        }
        if (c == '"') {
            return string();
        }
        if (c == '*' || isAlpha(c)) {
            return token();
        }
        if (c == ':') {
            return binary();
        }
        if (c == '?') {
            return bool();
        }
        if (c == '@') {
            i++;
            Object n = number();
            if (!(n instanceof Long l)) {
                throw fail("a date must be an integer");
            }
            return new Date(l);
        }
        throw fail("unknown bare item starting with '" + c + "'");
    }

    private Object number() {
        int sign = 1;
        if (peek() == '-') {
            sign = -1;
            i++;
        }
        if (end() || !isDigit(peek())) {
            throw fail("a number must have a digit");
        }
        int start = i;
        boolean decimal = false;
        while (!end()) {
            char c = peek();
            if (isDigit(c)) {
                i++;
            } else if (c == '.' && !decimal) {
                if (i - start > 12) {
                    throw fail("a decimal has at most 12 integer digits");
                }
                decimal = true;
                i++;
            } else {
                break;
            }
            if (!decimal && i - start > 15) {
                throw fail("an integer has at most 15 digits");
            }
            if (decimal && i - start > 16) {
                throw fail("a decimal has at most 16 characters");
            }
        }
        String num = s.substring(start, i);
        if (!decimal) {
            return sign * Long.parseLong(num);
        }
        if (num.endsWith(".")) {
            throw fail("a decimal must not end with '.'");
        }
        if (num.length() - num.indexOf('.') - 1 > 3) {
            throw fail("a decimal has at most 3 fractional digits");
        }
        BigDecimal d = new BigDecimal(num);
        return sign < 0 ? d.negate() : d;
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (!end()) {
            char c = s.charAt(i++);
            if (c == '\\') {
                if (end()) {
                    throw fail("a string must not end with a backslash");
                }
                char e = s.charAt(i++);
                if (e != '"' && e != '\\') {
                    throw fail("only \\\" and \\\\ are escapes in a string");
                }
                b.append(e);
            } else if (c == '"') {
                return b.toString();
            } else if (c < 0x20 || c > 0x7e) {
                throw fail("a string holds printable ASCII only");
            } else {
                b.append(c);
            }
        }
        throw fail("unterminated string");
    }

    private Token token() {
        int start = i;
        i++;
        while (!end() && (isTchar(peek()) || peek() == ':' || peek() == '/')) {
            i++;
        }
        return new Token(s.substring(start, i));
    }

    private byte[] binary() {
        expect(':');
        int start = i;
        while (!end() && peek() != ':') {
            char c = peek();
            if (!(isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=')) {
                throw fail("invalid base64 character");
            }
            i++;
        }
        if (end()) {
            throw fail("unterminated byte sequence");
        }
        String b64 = s.substring(start, i);
        i++;
        return Base64.getDecoder().decode(b64);
    }

    private Boolean bool() {
        expect('?');
        if (end()) {
            throw fail("a boolean needs 0 or 1");
        }
        char c = s.charAt(i++);
        if (c == '1') {
            return Boolean.TRUE;
        }
        if (c == '0') {
            return Boolean.FALSE;
        }
        throw fail("a boolean must be ?0 or ?1");
    }

    private static boolean isTchar(char c) {
        return isAlpha(c) || isDigit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    private static boolean isAlpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isLcAlpha(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private boolean end() {
        return i >= s.length();
    }

    private char peek() {
        return s.charAt(i);
    }

    private void expect(char c) {
        if (end() || s.charAt(i) != c) {
            throw fail("expected '" + c + "'");
        }
        i++;
    }

    private void skipSp() {
        while (!end() && peek() == ' ') {
            i++;
        }
    }

    private void skipOws() {
        while (!end() && (peek() == ' ' || peek() == '\t')) {
            i++;
        }
    }

    private IllegalArgumentException fail(String why) {
        return new IllegalArgumentException(why + " at index " + i + " of [" + s + "]");
    }
}
