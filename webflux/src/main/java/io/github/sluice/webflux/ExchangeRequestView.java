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

    /**
     * Whether Reactor Netty's server is on the class path: only then are {@link NettyFields} and
     * {@link NettyRequest} loaded, the classes that name Netty's types.
     */
    static final boolean NETTY = present("reactor.netty.http.server.HttpServerResponse")
            && present("io.netty.util.AsciiString");

    /** Not yet looked for: the response's fields are written through Spring's headers until then. */
    private static final Object UNRESOLVED = new Object();

    private final ServerWebExchange exchange;
    private final ServerHttpRequest request;
    /** The authenticated principal's name, or {@code null}: set once before the decision. */
    String principal;
    /**
     * Reactor Netty's response headers ({@link NettyFields#headersOf}), looked for at the first
     * field; {@code null} for Spring's portable headers (another server, a decorator that keeps
     * headers of its own, a committed response).
     */
    private Object netty = UNRESOLVED;
    /** Whether another layer's {@code RateLimit-Policy} was found: the value written next merges it. */
    private boolean merging;

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
        String path = NETTY ? NettyRequest.path(request) : null;
        return path != null ? path : ExchangePath.of(request.getPath().pathWithinApplication());
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
        String kept = NETTY ? NettyRequest.peer(request, peer) : null;
        if (kept != null) {
            return kept;
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
     * {@link #existing}. On Reactor Netty straight into Netty's headers ({@link NettyFields}), which
     * are the ones Spring's {@code getHeaders()} adapts; elsewhere {@code HttpHeaders.set(String,
     * String)}: the one write both Spring generations declare, a single call into the server's own
     * headers (Jetty's, Tomcat's).
     */
    @Override
    public void header(String name, String value) {
        Object headers = nettyHeaders();
        if (headers != null) {
            NettyFields.set(headers, name, value, merging);
        } else {
            exchange.getResponse().getHeaders().set(name, value);
        }
    }

    /**
     * The field's lines on the response, joined. A response without the field (every request with
     * one Sluice layer) costs one look-up of the name in the server's headers and allocates
     * nothing: on Reactor Netty in Netty's headers, elsewhere {@code getFirst(String)}, which both
     * Spring generations declare (Spring 7 has no {@code get(Object)}, see {@link HeaderLines}).
     * Only when it is there are its lines read.
     *
     * @return the field's lines already on the response, joined; {@code null} if none
     */
    @Override
    public String existing(String name) {
        Object netty = nettyHeaders();
        if (netty != null) {
            String lines = NettyFields.existing(netty, name);
            merging |= lines != null;
            return lines;
        }
        HttpHeaders headers = exchange.getResponse().getHeaders();
        String first = headers.getFirst(name);
        if (first == null) {
            return null;
        }
        List<String> lines = HeaderLines.of(headers, name);
        return lines == null || lines.size() <= 1 ? first : String.join(", ", lines);
    }

    /** @return Reactor Netty's response headers, looked for once per exchange; {@code null} for Spring's */
    private Object nettyHeaders() {
        Object headers = netty;
        if (headers == UNRESOLVED) {
            headers = NETTY ? NettyFields.headersOf(exchange.getResponse()) : null;
            netty = headers;
        }
        return headers;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, ExchangeRequestView.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
