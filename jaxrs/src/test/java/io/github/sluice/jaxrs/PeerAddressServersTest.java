package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import com.sun.net.httpserver.HttpHandler;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * The {@code peerAddress} recipes of docs/jaxrs.md ("The client's address") for Jersey on Grizzly
 * and on the JDK's HTTP server, each on its real server: the policy keys clients by the TCP peer's
 * address, not by the shared key {@code unknown} (neither has a servlet request to read it from).
 */
class PeerAddressServersTest {

    private static final String POLICY = "per-ip = fixed-window 3/1m key=ip match=/hello";

    @Path("/hello")
    public static class Hello {
        @GET
        public String get() {
            return "hello";
        }
    }

    /** docs/jaxrs.md: Jersey on Grizzly. Copies Grizzly's peer address into the request property. */
    @PreMatching
    @Priority(Priorities.AUTHENTICATION)
    public static class GrizzlyPeerAddress implements ContainerRequestFilter {
        @Inject
        private Provider<Request> grizzlyRequest;

        @Override
        public void filter(ContainerRequestContext request) {
            request.setProperty(SluiceFeature.PEER_ADDRESS, grizzlyRequest.get().getRemoteAddr());
        }
    }

    @Test
    void grizzly_peerAddressFromGrizzlysRequest_keysClientsByTheirAddress() throws Exception {
        Enforcer enforcer = Enforcer.builder().policies(POLICY).listener(EnforcementListener.NONE)
                .store(ShardedRegistry.builder().clock(new FakeClock()).build()).build();
        ResourceConfig config = new ResourceConfig(Hello.class)
                .register(GrizzlyPeerAddress.class)
                .register(SluiceFeature.builder()
                        .enforcer(enforcer)
                        .peerAddress(request -> (String) request.getProperty(SluiceFeature.PEER_ADDRESS))
                        .build());
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), config);
        try {
            int port = server.getListener("grizzly").getPort();
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> first = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertEquals(200, first.statusCode(), first.body());
            assertTrue(first.headers().firstValue("RateLimit").orElse("").contains("r=2"), first.headers().toString());
            assertEquals(2, enforcer.inspect("127.0.0.1", "per-ip").remaining(), "keyed by the peer's address");
            assertEquals(3, enforcer.inspect("unknown", "per-ip").remaining(), "not by the shared key 'unknown'");
        } finally {
            server.shutdownNow();
            enforcer.close();
        }
    }

    /**
     * docs/jaxrs.md: Jersey on the JDK's HTTP server. Jersey's handler gives the filters no access
     * to the {@code HttpExchange}, and decides a request on the thread that handles the exchange,
     * so a wrapping handler hands the address over in a thread-local.
     */
    static final class JdkPeerAddress {
        static final ThreadLocal<String> ADDRESS = new ThreadLocal<>();

        static HttpHandler around(HttpHandler jersey) {
            return exchange -> {
                ADDRESS.set(exchange.getRemoteAddress().getAddress().getHostAddress());
                try {
                    jersey.handle(exchange);
                } finally {
                    ADDRESS.remove();
                }
            };
        }
    }

    @Test
    void jdkHttpServer_peerAddressFromTheExchange_keysClientsByTheirAddress() throws Exception {
        Enforcer enforcer = Enforcer.builder().policies(POLICY).listener(EnforcementListener.NONE)
                .store(ShardedRegistry.builder().clock(new FakeClock()).build()).build();
        ResourceConfig config = new ResourceConfig(Hello.class)
                .register(SluiceFeature.builder()
                        .enforcer(enforcer)
                        .peerAddress(request -> JdkPeerAddress.ADDRESS.get())
                        .build());
        com.sun.net.httpserver.HttpServer server =
                com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", JdkPeerAddress.around(ContainerFactory.createContainer(HttpHandler.class, config)));
        server.start();
        try {
            int port = server.getAddress().getPort();
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> first = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertEquals(200, first.statusCode(), first.body());
            assertTrue(first.headers().firstValue("RateLimit").orElse("").contains("r=2"), first.headers().toString());
            assertEquals(2, enforcer.inspect("127.0.0.1", "per-ip").remaining(), "keyed by the peer's address");
            assertEquals(3, enforcer.inspect("unknown", "per-ip").remaining(), "not by the shared key 'unknown'");
        } finally {
            server.stop(0);
            enforcer.close();
        }
    }
}
