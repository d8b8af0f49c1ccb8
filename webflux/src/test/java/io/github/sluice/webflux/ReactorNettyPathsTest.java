package io.github.sluice.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.testing.RawHttp;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The Reactor Netty shortcuts ({@link NettyFields}, {@link NettyRequest}) give what the portable
 * path gives: the fields written into Netty's headers are the ones Spring's header view holds; a
 * decorator that keeps headers of its own gets them; a context path from a forwarded prefix is
 * still stripped; a peer address kept per connection never stands for another address on the same
 * connection. Real requests to a real Reactor Netty server.
 */
class ReactorNettyPathsTest {

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** A Reactor Netty server: {@code before} (if any), then Sluice, then a route that reports what Spring sees. */
    private URI start(String policies, WebFilter before, boolean forwarded) {
        Enforcer enforcer = Enforcer.builder().policies(policies).build();
        open.add(enforcer);
        var routes = RouterFunctions.route(RequestPredicates.GET("/seen"), r -> {
            // Spring's view of the response the handler writes to, after Sluice wrote its fields
            HttpHeaders seen = r.exchange().getResponse().getHeaders();
            return ServerResponse.ok().bodyValue(seen.getFirst("RateLimit-Policy") + "|" + seen.getFirst("RateLimit")
                    + "|" + HeaderLines.of(seen, "RateLimit").size());
        }).and(RouterFunctions.route(RequestPredicates.GET("/hello"), r -> ServerResponse.ok().bodyValue("hello")));
        WebHttpHandlerBuilder builder = WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes));
        if (before != null) {
            builder.filter(before);
        }
        builder.filter(new SluiceWebFilter(enforcer));
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).forwarded(forwarded)
                .handle(new ReactorHttpHandlerAdapter(builder.build())).bindNow();
        open.add(0, server::disposeNow);
        return URI.create("http://127.0.0.1:" + server.port());
    }

    @Test
    void fields_writtenIntoNettysHeaders_areWhatSpringsHeaderViewHolds_oneLineEach() {
        URI base = start("per-ip = fixed-window 3/1m align=first-request key=ip match=GET:/seen", null, false);

        RawHttp.Response r = RawHttp.send(base, "GET", "/seen");

        assertEquals(200, r.status(), r.head());
        assertEquals("\"per-ip\";q=3;w=60", r.header("RateLimit-Policy"), r.head());
        assertEquals(r.header("RateLimit-Policy") + "|" + r.header("RateLimit") + "|1", r.body(),
                "Spring's view of the response holds exactly what the client got");
        assertEquals(1, r.headers("RateLimit").size(), r.head());
        assertEquals(1, r.headers("RateLimit-Policy").size(), r.head());
    }

    @Test
    void policyFields_ofTwoSetsOfPolicies_alternating_eachResponseCarriesItsOwn() {
        Enforcer other = Enforcer.builder().policies("per-client = token-bucket 50/1s key=ip match=GET:/hello").build();
        open.add(other);
        URI base = start("per-ip = fixed-window 30/1m align=first-request key=ip match=GET:/seen",
                new SluiceWebFilter(other, SluiceWebFilter.DEFAULT_ORDER - 1), false);

        for (int i = 0; i < 5; i++) {
            assertEquals("\"per-ip\";q=30;w=60", RawHttp.send(base, "GET", "/seen").header("RateLimit-Policy"));
            assertEquals("\"per-client\";q=50;w=1", RawHttp.send(base, "GET", "/hello").header("RateLimit-Policy"));
        }
    }

    @Test
    void decoratorHandingOnTheSameHeaders_theFieldsReachTheClient() {
        WebFilter plain = (exchange, chain) -> chain.filter(exchange.mutate()
                .response(new ServerHttpResponseDecorator(exchange.getResponse())).build());
        URI base = start("per-ip = fixed-window 3/1m align=first-request key=ip match=GET:/seen", plain, false);

        RawHttp.Response r = RawHttp.send(base, "GET", "/seen");

        assertEquals("\"per-ip\";q=3;w=60", r.header("RateLimit-Policy"), r.head());
        assertTrue(r.header("RateLimit").startsWith("\"per-ip\";r=2"), r.head());
    }

    @Test
    void decoratorWithHeadersOfItsOwn_getsTheFields_notTheServerUnderIt() throws InterruptedException {
        String[] underneath = new String[2];
        CountDownLatch done = new CountDownLatch(1);
        WebFilter own = (exchange, chain) -> {
            ServerHttpResponse server = exchange.getResponse();
            HttpHeaders kept = new HttpHeaders();
            ServerHttpResponse decorated = new ServerHttpResponseDecorator(server) {
                @Override
                public HttpHeaders getHeaders() {
                    return kept;
                }
            };
            return chain.filter(exchange.mutate().response(decorated).build()).doOnSuccess(v -> {
                underneath[0] = kept.getFirst("RateLimit");
                underneath[1] = server.getHeaders().getFirst("RateLimit");
                done.countDown();
            });
        };
        URI base = start("per-ip = fixed-window 3/1m align=first-request key=ip match=GET:/hello", own, false);

        RawHttp.Response r = RawHttp.send(base, "GET", "/hello");

        assertEquals(200, r.status(), r.head());
        assertTrue(done.await(10, TimeUnit.SECONDS), "the chain completed"); // it may after the client has all
        assertTrue(underneath[0] != null && underneath[0].startsWith("\"per-ip\";r=2"),
                "the decorator's own headers got the field: " + underneath[0]);
        assertNull(underneath[1], "nothing written around the decorator, into the server's headers");
        assertNull(r.header("RateLimit"), "this decorator never copies its headers on: " + r.head());
    }

    @Test
    void contextPathFromAForwardedPrefix_isStripped_beforeThePoliciesMatch() {
        // A proxy that strips /app forwards /hello with its prefix; Reactor Netty puts it back in the
        // request's URI (/app/hello), and Spring makes it the context path: the policies see /hello.
        URI base = start("per-path = fixed-window 1/1m align=first-request key=ip match=GET:/hello", null, true);

        RawHttp.Response firstResponse = RawHttp.send(base, "GET", "/hello", "X-Forwarded-Prefix", "/app");
        int first = firstResponse.status();
        int second = RawHttp.get(base, "/hello", "X-Forwarded-Prefix", "/app");

        assertEquals(200, first, firstResponse.head() + "\n" + firstResponse.body());
        assertEquals(429, second, "/app/hello under the context path /app is /hello to the policies");
    }

    @Test
    void peerKeptForTheConnection_neverStandsForAnotherAddressOnIt() throws IOException {
        // Reactor Netty's forwarded handling gives each request the address its X-Forwarded-For names:
        // the connection's kept address must not answer for them (docs/webflux.md advises against
        // turning it on; this is only about never mixing addresses up).
        URI base = start("per-ip = fixed-window 1/1m align=first-request key=ip match=GET:/hello", null, true);

        List<Integer> statuses = pipelined(base, "/hello",
                null, "10.0.0.1", "10.0.0.2", null, "10.0.0.1");

        assertEquals(List.of(200, 200, 200, 429, 429), statuses,
                "each address its own quota, on one keep-alive connection");
    }

    @Test
    void peerKeptForTheConnection_isThatConnectionsOnly() throws IOException {
        URI base = start("per-ip = fixed-window 3/1m align=first-request key=ip match=GET:/hello", null, false);

        List<Integer> one = pipelined(base, "/hello", null, null);
        List<Integer> other = pipelined(base, "/hello", null, null);

        assertEquals(List.of(200, 200), one);
        assertEquals(List.of(200, 429), other, "both connections come from 127.0.0.1: one quota of 3");
    }

    /**
     * Sends GETs of {@code target} on one connection, pipelined, each with the given
     * {@code X-Forwarded-For} ({@code null}: none), the last closing it.
     *
     * @return the statuses in order
     */
    private static List<Integer> pipelined(URI base, String target, String... forwardedFor) throws IOException {
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < forwardedFor.length; i++) {
            requests.append("GET ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            if (forwardedFor[i] != null) {
                requests.append("X-Forwarded-For: ").append(forwardedFor[i]).append("\r\n");
            }
            requests.append(i == forwardedFor.length - 1 ? "Connection: close\r\n" : "").append("\r\n");
        }
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(requests.toString().getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            List<Integer> statuses = new ArrayList<>();
            Matcher m = Pattern.compile("HTTP/1\\.1 (\\d{3}) ").matcher(all);
            while (m.find()) {
                statuses.add(Integer.parseInt(m.group(1)));
            }
            return statuses;
        }
    }
}
