package io.github.sluice.bench.reactive;

import io.github.sluice.http.Enforcer;
import io.github.sluice.request.RequestView;
import java.util.Collections;
import java.util.Iterator;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

/**
 * The decision alone, in the filter's place: a minimal request view over the exchange and
 * {@link Enforcer#enforce}, no field, no operator. With the filter on an enforcer that writes no
 * field beside it, the difference is the WebFlux adapter's own plumbing.
 */
final class DecisionAlone implements RequestView {

    private final ServerHttpRequest request;

    private DecisionAlone(ServerHttpRequest request) {
        this.request = request;
    }

    static void decide(Enforcer enforcer, ServerWebExchange exchange) {
        enforcer.enforce(new DecisionAlone(exchange.getRequest())).release(200);
    }

    @Override
    public String method() {
        return request.getMethod().name();
    }

    @Override
    public String path() {
        return request.getPath().pathWithinApplication().value();
    }

    @Override
    public Iterator<String> headers(String name) {
        return Collections.emptyIterator();
    }

    @Override
    public String peerAddress() {
        return request.getRemoteAddress().getAddress().getHostAddress();
    }

    @Override
    public String principal() {
        return null;
    }

    @Override
    public Object attribute(String name) {
        return null;
    }
}
