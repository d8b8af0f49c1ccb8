package io.github.sluice.webflux;

import io.github.sluice.request.HeaderSink;
import io.github.sluice.request.RequestView;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

/**
 * One exchange seen by the policies, and the sink of the response's rate-limit headers: a single
 * small object per request. The principal's name is resolved (from the reactive security context)
 * before the decision and set here, since the view itself must not block. Not thread-safe: used by
 * one decision at a time, which may continue on another thread than it started on.
 */
final class ExchangeRequestView implements RequestView, HeaderSink {

    private final ServerWebExchange exchange;
    private final ServerHttpRequest request;
    /** The authenticated principal's name, or {@code null}: set once before the decision. */
    String principal;

    ExchangeRequestView(ServerWebExchange exchange) {
        this.exchange = exchange;
        this.request = exchange.getRequest();
    }

    @Override
    public String method() {
        return request.getMethod().name();
    }

    @Override
    public String path() {
        return ExchangePath.of(request.getPath().pathWithinApplication());
    }

    @Override
    public Iterator<String> headers(String name) {
        List<String> lines = HeaderLines.of(request.getHeaders(), name);
        return lines == null ? Collections.emptyIterator() : lines.iterator();
    }

    @Override
    public String header(String name) {
        return request.getHeaders().getFirst(name);
    }

    /**
     * The TCP peer's address as the server reports it. Behind a proxy that is the proxy: Sluice's
     * trusted proxies ({@code trusted-proxies}, {@code forwarded-header}) find the client, from
     * the forwarding headers this method leaves alone. (Spring's {@code ForwardedHeaderTransformer}
     * or Reactor Netty's forwarded handling, if the application turns them on, rewrite this address
     * from headers any client can send: leave them off, see docs/webflux.md.)
     */
    @Override
    public String peerAddress() {
        InetSocketAddress peer = request.getRemoteAddress();
        if (peer == null) {
            return null;
        }
        InetAddress address = peer.getAddress();
        return address != null ? address.getHostAddress() : peer.getHostString();
    }

    @Override
    public String principal() {
        return principal;
    }

    @Override
    public Object attribute(String name) {
        return exchange.getAttribute(name);
    }

    /**
     * Sets a response header: when another layer (a Sluice web filter in front of a handler filter
     * or {@code @RateLimited}) wrote the field, {@code value} is the merge of both, read through
     * {@link #existing}.
     */
    @Override
    public void header(String name, String value) {
        exchange.getResponse().getHeaders().set(name, value);
    }

    /** @return the field's lines already on the response, joined; {@code null} if none (no allocation then) */
    @Override
    public String existing(String name) {
        // getFirst exists with one signature on Spring 6 and 7, and answers the common case (no
        // other layer) with one lookup; the lines are read only when there is one (HeaderLines).
        HttpHeaders headers = exchange.getResponse().getHeaders();
        if (headers.getFirst(name) == null) {
            return null;
        }
        List<String> lines = HeaderLines.of(headers, name);
        if (lines == null || lines.isEmpty()) {
            return null;
        }
        return lines.size() == 1 ? lines.get(0) : String.join(", ", lines);
    }
}
