package io.github.sluice.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.SpringVersion;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

/**
 * {@link ExchangeRequestView} as the sink of the response's fields, on the Spring Framework
 * generation this module runs on: 6.2 here, 7.0 in webflux/boot4-tests (the same source, the same
 * jar). Reading another layer's field once called {@code HttpHeaders.get(Object)}, which Spring 7
 * no longer has: every two-layer response there failed with {@code NoSuchMethodError}.
 */
class ExchangeRequestViewTest {

    private final HttpHeaders response = new HttpHeaders();
    private final ExchangeRequestView view = new ExchangeRequestView(exchange(response));

    @Test
    void existing_fieldNotOnTheResponse_null() {
        response.set("RateLimit", "\"per-ip\";r=4;t=10");

        assertNull(view.existing("RateLimit-Policy"), "Spring " + SpringVersion.getVersion());
    }

    @Test
    void existing_oneLine_thatLine_whateverTheCase() {
        String line = "\"outer\";q=100;qu=\"concurrent-requests\"";
        response.set("RateLimit-Policy", line);

        assertSame(line, view.existing("ratelimit-policy"), "one line: returned as it is, nothing joined");
    }

    @Test
    void existing_severalLines_joinedInOrder() {
        response.add("Access-Control-Expose-Headers", "X-Trace");
        response.add("access-control-expose-headers", "RateLimit, RateLimit-Policy");

        assertEquals("X-Trace, RateLimit, RateLimit-Policy", view.existing("Access-Control-Expose-Headers"),
                "Spring " + SpringVersion.getVersion());
    }

    @Test
    void header_fieldOnSeveralLines_replacedByOneLine() {
        response.add("RateLimit", "\"outer\";r=99");
        response.add("RateLimit", "\"other\";r=1");

        view.header("RateLimit", "\"outer\";r=98, \"per-key\";r=1;t=60");

        assertEquals(List.of("\"outer\";r=98, \"per-key\";r=1;t=60"), HeaderLines.of(response, "RateLimit"));
        assertEquals("\"outer\";r=98, \"per-key\";r=1;t=60", view.existing("RateLimit"));
    }

    /**
     * An exchange whose response has {@code headers}: only what the sink and the view's
     * constructor call. Also used by {@link WithoutNettyTest}, in its own class loader.
     */
    static ServerWebExchange exchange(HttpHeaders headers) {
        ClassLoader loader = ExchangeRequestViewTest.class.getClassLoader();
        ServerHttpResponse response = (ServerHttpResponse) Proxy.newProxyInstance(loader,
                new Class<?>[] {ServerHttpResponse.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getHeaders")) {
                        return headers;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        ServerHttpRequest request = (ServerHttpRequest) Proxy.newProxyInstance(loader,
                new Class<?>[] {ServerHttpRequest.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        return (ServerWebExchange) Proxy.newProxyInstance(loader, new Class<?>[] {ServerWebExchange.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getResponse" -> response;
                    case "getRequest" -> request;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
