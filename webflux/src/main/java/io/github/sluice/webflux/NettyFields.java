package io.github.sluice.webflux;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.http.server.reactive.AbstractServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The rate-limit fields written straight into Reactor Netty's response headers, the very headers
 * Spring's {@code ServerHttpResponse.getHeaders()} adapts there (Spring's
 * {@code ReactorServerHttpResponse}, 6 and 7, wraps {@link HttpServerResponse#responseHeaders()}),
 * so that Spring's view of the response sees exactly the same lines. What it saves: Spring's
 * adapter calls in between, and the names' cost in Netty: {@code RateLimit-Policy} and
 * {@code RateLimit} go in as {@link AsciiString} constants, whose case-insensitive hash is
 * computed once and which Netty's encoder copies as bytes, where a {@code String} name is hashed
 * on every store and look-up and encoded character by character.
 *
 * <p>Loaded only when Reactor Netty is on the class path ({@code ExchangeRequestView.NETTY}, which
 * names this class in no signature, so that loading the view never loads Netty): on Jetty, Tomcat
 * or Undertow, and without Netty at all, the fields go through Spring's headers as before.
 * Stateless but for the pre-encoded {@code RateLimit-Policy} values, which any thread may read and
 * replace.
 */
final class NettyFields {

    private static final AsciiString RATE_LIMIT_POLICY = AsciiString.cached("RateLimit-Policy");
    private static final AsciiString RATE_LIMIT = AsciiString.cached("RateLimit");

    /** Slots of {@link #POLICY_VALUES}, a power of two. */
    private static final int SLOTS = 16;
    /**
     * {@code RateLimit-Policy} values, pre-encoded: the core formats that value once per set of
     * policies and passes the same {@code String} on every response, so it is found here by
     * identity, in the slot its identity hash picks. A slot is filled once and never taken over:
     * two sets of policies whose values share a slot must not re-encode each other's on every
     * request, so the second is written as its {@code String}, as is every value once the slots
     * are full (after many reconfigurations, say). At most {@link #SLOTS} encodings in all.
     * Racy by design: each entry is immutable, and a lost fill only costs another encoding.
     */
    private static final Encoded[] POLICY_VALUES = new Encoded[SLOTS];

    /** A value and its bytes. */
    private record Encoded(String text, AsciiString ascii) {
    }

    private NettyFields() {
    }

    /**
     * Netty's headers behind {@code response}, when writing into them is exactly writing through
     * {@code response.getHeaders()}: a Reactor Netty response, not committed (Spring's view of a
     * committed one is read-only, and stays the way to fail), reached through decorators only if
     * each hands on the same {@code HttpHeaders} (a decorator that keeps headers of its own keeps
     * them: the portable path).
     *
     * @return Netty's response headers, typed {@code Object} so that the caller's class never
     *     names Netty; {@code null} to write through Spring's headers
     */
    static Object headersOf(ServerHttpResponse response) {
        ServerHttpResponse inner = response;
        while (inner instanceof ServerHttpResponseDecorator decorator) {
            inner = decorator.getDelegate();
        }
        if (inner instanceof AbstractServerHttpResponse server && !server.isCommitted()
                && server.getNativeResponse() instanceof HttpServerResponse netty
                && (inner == response || response.getHeaders() == server.getHeaders())) {
            return netty.responseHeaders();
        }
        return null;
    }

    /**
     * Sets a field, replacing every line of that name, as {@code HttpHeaders.set(String, String)}
     * does through Spring's adapter.
     *
     * @param headers from {@link #headersOf}
     * @param merged whether {@code value} merges another layer's field: made for this response
     *     only, so it is not kept pre-encoded
     */
    static void set(Object headers, String name, String value, boolean merged) {
        HttpHeaders netty = (HttpHeaders) headers;
        if (name.equals("RateLimit")) {
            netty.set(RATE_LIMIT, value);
        } else if (name.equals("RateLimit-Policy")) {
            netty.set(RATE_LIMIT_POLICY, merged ? value : policyValue(value));
        } else {
            netty.set(name, value);
        }
    }

    /** @return a set of policies' {@code RateLimit-Policy} value as bytes encoded once, or as it is */
    private static CharSequence policyValue(String value) {
        int slot = System.identityHashCode(value) & (SLOTS - 1);
        Encoded kept = POLICY_VALUES[slot];
        if (kept != null) {
            return kept.text == value ? kept.ascii : value;
        }
        // Sluice's fields are ASCII (RFC 9651 sf-strings and integers): one byte per character.
        kept = new Encoded(value, new AsciiString(value.getBytes(StandardCharsets.ISO_8859_1), false));
        POLICY_VALUES[slot] = kept;
        return kept.ascii;
    }

    /**
     * @param headers from {@link #headersOf}
     * @return the field's lines joined by {@code ", "}, the one line itself when there is one, or
     *     {@code null}: as Spring's {@code getFirst} and every line, read through its adapter
     */
    static String existing(Object headers, String name) {
        HttpHeaders netty = (HttpHeaders) headers;
        CharSequence key = ascii(name);
        String first = netty.get(key);
        if (first == null) {
            return null;
        }
        List<String> lines = netty.getAll(key);
        return lines.size() <= 1 ? first : String.join(", ", lines);
    }

    /** @return the pre-encoded name of a field Sluice writes on every response, else {@code name} itself */
    private static CharSequence ascii(String name) {
        if (name.equals("RateLimit")) {
            return RATE_LIMIT;
        }
        return name.equals("RateLimit-Policy") ? RATE_LIMIT_POLICY : name;
    }
}
