package io.github.sluice.bench.reactive;

import io.github.sluice.gateway.SluiceGatewayFilterFactory;
import io.github.sluice.gateway.SluiceRateLimiter;
import io.github.sluice.http.Enforcer;
import io.github.sluice.redis.RedisStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.boot.web.embedded.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Spring Cloud Gateway 4.3 (Boot 3.5, Reactor Netty) in front of a loopback {@link Backend}, with
 * the load in the same JVM on threads of its own:
 * <ul>
 *   <li>{@code filter}: the Sluice gateway filter's own CPU per request, as {@link WebFluxCpu}
 *       measures the web filter's: route {@code /g/**} with one filter step that runs the
 *       {@code Sluice} filter (in-memory, one per-IP token bucket that never refuses, its two fields
 *       on every proxied response) or goes straight on, switched between batches;
 *   <li>{@code redis}: on a Redis-backed token bucket (a million a second, burst a million, a key
 *       per connection: nothing is refused), on one {@code redis-server}, side by side in one run:
 *       route {@code /none/**} without a limiter, {@code /rs/**} with the {@code Sluice} filter on
 *       the {@link RedisStore}, {@code /rl/**} with the gateway's {@code RequestRateLimiter} and
 *       {@link SluiceRateLimiter} on it, {@code /scg/**} with {@code RequestRateLimiter} and the
 *       gateway's own {@code RedisRateLimiter}; CPU per request of the gateway's server side
 *       ({@link ServerCpu}) and of redis-server ({@code INFO cpu}), and throughput, at each number
 *       of concurrent clients given.
 * </ul>
 *
 * <p>Usage: {@code GatewayCpu filter [rounds 30] [requests 4000] [connections 4]} or
 * {@code GatewayCpu redis [rounds 15] [requests 2000] [clients "1,16"]}; {@code -Dbench.threads=true}
 * adds each route's CPU per request by thread group.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = "io.github.sluice.gateway.SluiceGatewayAutoConfiguration")
public class GatewayCpu {

    private static Enforcer memory;
    private static Enforcer redis;
    private static Toggle<ServerWebExchange, GatewayFilterChain> toggle;
    private static GatewayFilter sluiceFilter;

    /** Boot creates the configuration. */
    public GatewayCpu() {
    }

    /** @return the gateway's key: the {@code X-Client} header */
    @Bean
    KeyResolver clientKey() {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"));
    }

    /** @return the gateway's own limiter: a token bucket of a million a second, burst a million, a token a request */
    @Bean
    RedisRateLimiter redisRateLimiter() {
        return new RedisRateLimiter(1_000_000, 1_000_000, 1);
    }

    /** @return the gateway server's response heads timed at its HTTP codec ({@link EncodeProbe}) */
    @Bean
    NettyServerCustomizer encodeProbe() {
        return server -> server.doOnChannelInit((observer, channel, remote) -> EncodeProbe.install(channel.pipeline()));
    }

    /** @return the routes */
    @Bean
    RouteLocator routes(RouteLocatorBuilder routes, RedisRateLimiter scg, KeyResolver key,
            ConfigurationService configuration, @Value("${backend}") String backend) {
        GatewayFilter sluice = new SluiceGatewayFilterFactory(memory).policies("per-ip");
        toggle = new Toggle<>(next -> next::apply);
        sluiceFilter = sluice;
        BiFunction<ServerWebExchange, GatewayFilterChain, Mono<Void>> timed = Probe.around(toggle, (e, c) -> c.filter(e));
        GatewayFilter step = timed::apply;
        GatewayFilter sluiceRedis = new SluiceGatewayFilterFactory(redis).policies("bucket");
        SluiceRateLimiter limiter = new SluiceRateLimiter(redis, configuration);
        limiter.getConfig().put("rl", new SluiceRateLimiter.Config().setPolicy("limiter"));
        return routes.routes()
                .route("none", r -> r.path("/none/**").uri(backend))
                .route("g", r -> r.path("/g/**").filters(f -> f.filter(step)).uri(backend))
                .route("rs", r -> r.path("/rs/**").filters(f -> f.filter(sluiceRedis)).uri(backend))
                .route("rl", r -> r.path("/rl/**").filters(f -> f.requestRateLimiter(c -> c.setRateLimiter(limiter)
                        .setKeyResolver(key))).uri(backend))
                .route("scg", r -> r.path("/scg/**").filters(f -> f.requestRateLimiter(c -> c.setRateLimiter(scg)
                        .setKeyResolver(key))).uri(backend))
                .build();
    }

    /**
     * @param args {@code filter} or {@code redis}, then that phase's numbers
     * @throws Exception if a server or the load fails
     */
    public static void main(String[] args) throws Exception {
        String phase = args.length > 0 ? args[0] : "filter";
        boolean filter = phase.equals("filter");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : filter ? 30 : 15;
        int requests = args.length > 2 ? Integer.parseInt(args[2]) : filter ? 4000 : 2000;
        String clients = args.length > 3 ? args[3] : filter ? "4" : "1,16";
        try (RedisProcess redisServer = RedisProcess.start(); Backend backend = new Backend();
                RedisStore store = RedisStore.builder().uri("redis://127.0.0.1:" + redisServer.port())
                        .commandTimeout(Duration.ofSeconds(2)).build()) {
            memory = Enforcer.builder().policies(WebFluxCpu.POLICY).build();
            redis = Enforcer.builder().store(store).policies(
                    "bucket = token-bucket 1000000/1s burst=1000000 key=header:X-Client match=none\n"
                    + "limiter = token-bucket 1000000/1s burst=1000000 key=attribute:gateway-key match=none").build();
            ConfigurableApplicationContext context = new SpringApplicationBuilder(GatewayCpu.class).properties(
                    "server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
                    "logging.level.root=WARN", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redisServer.port(), "backend=http://127.0.0.1:" + backend.port())
                    .run();
            try {
                int port = ((WebServerApplicationContext) context).getWebServer().getPort();
                if (filter) {
                    int connections = Integer.parseInt(clients);
                    try (Load load = new Load(port, connections)) {
                        Map<String, Rounds.Measured> m = Rounds.run(load, List.of(
                                new Rounds.Candidate("none", "/g/x", toggle::off),
                                new Rounds.Candidate("sluice", "/g/x", () -> toggle.on(sluiceFilter::filter))),
                                10 * requests, requests, rounds, null);
                        WebFluxCpu.report("Spring Cloud Gateway on Reactor Netty", "the Sluice gateway filter", m,
                                rounds, requests, connections);
                    }
                } else {
                    for (String c : clients.split(",")) {
                        int n = Integer.parseInt(c.trim());
                        try (Load load = new Load(port, n)) {
                            long timer0 = ServerCpu.timerNanos();
                            Map<String, Rounds.Measured> m = Rounds.run(load, List.of(
                                    new Rounds.Candidate("no limiter", "/none/x", () -> { }),
                                    new Rounds.Candidate("Sluice filter", "/rs/x", () -> { }),
                                    new Rounds.Candidate("SluiceRateLimiter", "/rl/x", () -> { }),
                                    new Rounds.Candidate("RedisRateLimiter", "/scg/x", () -> { })),
                                    5 * requests, requests, rounds, redisServer::cpuNanosUnchecked);
                            // Sluice's timer, over the whole run, per Sluice request (two routes: the
                            // warm-up, each round's settling batch and its measured batch)
                            long sluiceRequests = 2L * (5L * requests + (long) rounds * (requests + requests / 10));
                            double timerUs = (ServerCpu.timerNanos() - timer0) / 1000.0 / sluiceRequests;
                            for (String ours : List.of("Sluice filter", "SluiceRateLimiter")) {
                                double[] cpu = m.get(ours).cpuUs;
                                for (int i = 0; i < cpu.length; i++) {
                                    cpu[i] += timerUs;
                                }
                            }
                            System.out.printf(Locale.ROOT, "%nSluice's Redis timer thread (cancelled command timeouts "
                                    + "firing at their deadline), charged to each Sluice request: %.1f us%n", timerUs);
                            reportRedis(m, n, rounds, requests);
                            Rounds.printGroups(m, requests);
                        }
                    }
                }
            } finally {
                context.close();
                memory.close();
                redis.close();
            }
        }
    }

    private static void reportRedis(Map<String, Rounds.Measured> m, int clients, int rounds, int requests) {
        System.out.printf(Locale.ROOT, "%n#### Gateway, Redis token bucket, %d concurrent client%s (%d rounds of %d "
                + "requests per route)%n%n", clients, clients == 1 ? "" : "s", rounds, requests);
        System.out.println("| route | gateway JVM CPU per request, us | redis-server CPU per request, us | both, us "
                + "| added over no limiter, us (both) | requests/s |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        double[] base = Rounds.plus(m.get("no limiter").cpuUs, m.get("no limiter").otherUs);
        for (var e : m.entrySet()) {
            Rounds.Measured v = e.getValue();
            double[] both = Rounds.plus(v.cpuUs, v.otherUs);
            System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %.0f |%n", e.getKey(), Rounds.spread(v.cpuUs, "%.1f"),
                    Rounds.spread(v.otherUs, "%.1f"), Rounds.spread(both, "%.1f"),
                    Rounds.spread(Rounds.minus(both, base), "%.1f"), Rounds.median(v.perSecond));
        }
        Rounds.Measured scg = m.get("RedisRateLimiter");
        List<String> rows = new ArrayList<>();
        for (String ours : List.of("Sluice filter", "SluiceRateLimiter")) {
            Rounds.Measured s = m.get(ours);
            for (boolean withRedis : new boolean[] {true, false}) {
                double[] a = withRedis ? Rounds.plus(s.cpuUs, s.otherUs) : s.cpuUs;
                double[] b = withRedis ? Rounds.plus(scg.cpuUs, scg.otherUs) : scg.cpuUs;
                double[] d = Rounds.minus(a, b);
                rows.add(String.format(Locale.ROOT, "| Gateway, Redis token bucket, %d client%s: %s uses less CPU per "
                        + "request than RedisRateLimiter (%s) | %.1f us against %.1f us, difference per round %s us, "
                        + "Sluice cheaper in %d of %d rounds; %.0f against %.0f requests/s | %s |", clients,
                        clients == 1 ? "" : "s", ours, withRedis ? "gateway JVM + redis-server" : "gateway JVM alone",
                        Rounds.median(a), Rounds.median(b), Rounds.spread(d, "%+.1f"), Rounds.below(d), d.length,
                        Rounds.median(s.perSecond), Rounds.median(scg.perSecond), Rounds.signTest(d)));
            }
        }
        System.out.println();
        System.out.println("| target | measured | verdict |");
        System.out.println("|---|---|---|");
        rows.forEach(System.out::println);
        rows.forEach(r -> System.out.println("http-target " + r));
    }
}
