package io.github.sluice.webflux;

import io.github.sluice.http.Verdict;
import java.io.IOException;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;

/** The denial response: status, fields and body, written without blocking. Stateless. */
final class Denial {

    private Denial() {
    }

    /**
     * @return completes when the body is written; a response something upstream committed already
     *     keeps what it has (the request is refused either way)
     */
    static Mono<Void> write(Verdict verdict, ExchangeRequestView view, ServerHttpResponse response) {
        if (response.isCommitted()) {
            return Mono.empty();
        }
        response.setStatusCode(HttpStatusCode.valueOf(verdict.status()));
        byte[][] body = new byte[1][];
        try {
            verdict.writeDenial(view, bytes -> body[0] = bytes);
        } catch (IOException cannot) {
            throw new IllegalStateException(cannot); // the sink above does no I/O
        }
        response.getHeaders().setContentLength(body[0].length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body[0])));
    }
}
