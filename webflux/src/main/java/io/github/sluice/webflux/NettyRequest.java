package io.github.sluice.webflux;

import io.netty.channel.Channel;
import io.netty.channel.ServerChannel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import org.springframework.http.server.reactive.AbstractServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequest;
import reactor.netty.Connection;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Two readings of a Reactor Netty request that Spring's view makes dear, taken where they are
 * cheap, each exactly what the portable reading gives, and {@code null} (read it the portable
 * way) whenever that cannot be told:
 * <ul>
 *   <li>the path: Spring parses {@code getPath()} into segments on first use. Spring's own request
 *       on Reactor Netty has a context path only from a forwarded prefix; without one, the path
 *       within the application is the URI's raw path itself, which, with nothing to decode or
 *       strip (no {@code %}, no {@code ;}), is the policies' path. The handler still parses it
 *       when it needs it, once, as without Sluice.
 *   <li>the peer's address: the same {@code InetSocketAddress} for every request of a connection
 *       (unless Reactor Netty's forwarded handling makes one per request), so its text is formatted
 *       once per connection and kept on the channel, instead of once per request (HTTP/1.1; an
 *       HTTP/2 stream is a channel of its own per request, and formats it as before).
 * </ul>
 * Loaded only when Reactor Netty is on the class path, as {@link NettyFields}. Stateless; the
 * channel's attribute is the channel's.
 */
final class NettyRequest {

    /** Spring's request on Reactor Netty (package-private in Spring 6 and 7), or {@code null}. */
    private static final Class<?> REACTOR_REQUEST =
            load("org.springframework.http.server.reactive.ReactorServerHttpRequest");

    private static final AttributeKey<Peer> PEER = AttributeKey.valueOf(NettyRequest.class, "peer");

    private NettyRequest() {
    }

    /** A connection's peer and its text. */
    private record Peer(InetSocketAddress address, String text) {
    }

    /**
     * @return the path within the application, as {@link ExchangePath} gives it, when it is the
     *     URI's raw path with nothing to decode; else {@code null}
     */
    static String path(ServerHttpRequest request) {
        if (request.getClass() != REACTOR_REQUEST) {
            return null; // a mutated request: it may carry a context path
        }
        HttpServerRequest netty = ((AbstractServerHttpRequest) request).getNativeRequest();
        if (netty.forwardedPrefix() != null) {
            return null; // a context path, which Spring's parsing strips
        }
        URI uri = request.getURI();
        String raw = uri.getRawPath();
        if (raw == null || raw.isEmpty() || raw.charAt(0) != '/' || raw.indexOf('%') >= 0 || raw.indexOf(';') >= 0) {
            return null;
        }
        return raw;
    }

    /**
     * @return the peer's address as {@link ExchangeRequestView#peerAddress()} formats it, kept per
     *     connection; {@code null} to read it the portable way
     */
    static String peer(ServerHttpRequest request, InetSocketAddress address) {
        if (request.getClass() != REACTOR_REQUEST
                || !(((AbstractServerHttpRequest) request).getNativeRequest() instanceof Connection connection)) {
            return null;
        }
        Channel channel = connection.channel();
        if (!(channel.parent() instanceof ServerChannel)) {
            return null; // an HTTP/2 stream: a channel per request, nothing to keep
        }
        Attribute<Peer> kept = channel.attr(PEER);
        Peer peer = kept.get();
        if (peer != null && peer.address == address) {
            return peer.text;
        }
        InetAddress ip = address.getAddress();
        String text = ip != null ? ip.getHostAddress() : address.getHostString();
        if (peer == null) {
            kept.set(new Peer(address, text)); // once per connection; another address per request is not kept
        }
        return text;
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, NettyRequest.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            return null;
        }
    }
}
