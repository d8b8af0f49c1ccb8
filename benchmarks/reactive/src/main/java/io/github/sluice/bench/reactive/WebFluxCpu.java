package io.github.sluice.bench.reactive;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderOptions;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.webflux.SluiceWebFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import java.util.function.BiFunction;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The WebFlux filter's own CPU per request on a real Reactor Netty server: one server, one
 * functional route ({@code GET /hello}, a 5-byte body), one web filter step that runs
 * {@link SluiceWebFilter} (one per-IP token bucket that never refuses, its two rate-limit fields on
 * every response) or goes straight on, switched between batches. The server side's CPU per request
 * ({@link ServerCpu}: every server thread, Netty's encoding of the two fields included) with the
 * filter minus without it, in interleaved rounds, over the same without it.
 *
 * <p>Usage: {@code WebFluxCpu [rounds 30] [requests per batch 5000] [connections 4] [warm-up 40000] [parts]};
 * {@code parts} adds the filter on an enforcer that writes no field, a stage that only adds two
 * fields like Sluice's, the decision alone ({@link DecisionAlone}), and a stage that only parses the
 * request's path (which the router would parse anyway): where the filter's cost goes. Every response
 * head's encoding is timed at the HTTP codec ({@link EncodeProbe}).
 */
public final class WebFluxCpu {

    static final String POLICY = "per-ip = token-bucket 1000000000/1s burst=1000000000 key=ip";

    private WebFluxCpu() {
    }

    /**
     * @param args rounds, requests per batch, connections, warm-up requests
     * @throws Exception if the server or the load fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int requests = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        int connections = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        int warmUp = args.length > 3 ? Integer.parseInt(args[3]) : 40000;
        boolean parts = args.length > 4 && args[4].equals("parts");
        try (Enforcer enforcer = Enforcer.builder().policies(POLICY).build();
                Enforcer bare = Enforcer.builder().policies(POLICY)
                        .headers(HeaderOptions.DEFAULT.withStyle(HeaderStyle.NONE)).build()) {
            SluiceWebFilter sluice = new SluiceWebFilter(enforcer);
            SluiceWebFilter noFields = new SluiceWebFilter(bare);
            Toggle<ServerWebExchange, WebFilterChain> toggle = new Toggle<>(next -> next::apply);
            BiFunction<ServerWebExchange, WebFilterChain, Mono<Void>> timed = Probe.around(toggle, (e, c) -> c.filter(e));
            WebFilter step = timed::apply;
            var handler = RouterFunctions.toWebHandler(RouterFunctions.route(RequestPredicates.GET("/hello"),
                    r -> ServerResponse.ok().bodyValue("hello")));
            DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
                    .doOnChannelInit((observer, channel, remote) -> EncodeProbe.install(channel.pipeline()))
                    .handle(new ReactorHttpHandlerAdapter(WebHttpHandlerBuilder.webHandler(handler).filter(step).build()))
                    .bindNow();
            try (Load load = new Load(server.port(), connections)) {
                List<Rounds.Candidate> candidates = new ArrayList<>(List.of(
                        new Rounds.Candidate("none", "/hello", toggle::off),
                        new Rounds.Candidate("sluice", "/hello", () -> toggle.on(sluice::filter))));
                if (parts) {
                    candidates.add(new Rounds.Candidate("sluice, no fields", "/hello", () -> toggle.on(noFields::filter)));
                    candidates.add(new Rounds.Candidate("two fields alone", "/hello", () -> toggle.on(WebFluxCpu::fields)));
                    candidates.add(new Rounds.Candidate("decision alone, no field", "/hello", () -> toggle.on((e, c) -> {
                        DecisionAlone.decide(bare, e);
                        return c.filter(e);
                    })));
                    // What the stage pays that the handler would pay without it: the request's path, parsed
                    // once and kept (the router reads it too), so the stage's gain is the handler's loss.
                    candidates.add(new Rounds.Candidate("path parsed in the stage", "/hello", () -> toggle.on((e, c) -> {
                        e.getRequest().getPath();
                        return c.filter(e);
                    })));
                }
                Map<String, Rounds.Measured> m = Rounds.run(load, candidates, warmUp, requests, rounds, null);
                report("WebFlux on Reactor Netty", "the SluiceWebFilter", m, rounds, requests, connections);
            } finally {
                server.disposeNow();
            }
        }
    }

    /** Sets two fields of the length of Sluice's, as the filter does, and goes on. */
    private static Mono<Void> fields(ServerWebExchange exchange, WebFilterChain chain) {
        HttpHeaders h = exchange.getResponse().getHeaders();
        h.add("RateLimit-Policy", "\"per-ip\";q=1000000000;w=1");
        h.add("RateLimit", "\"per-ip\";r=999999999;t=0");
        return chain.filter(exchange);
    }

    static void report(String server, String filter, Map<String, Rounds.Measured> m, int rounds, int requests,
            int connections) {
        Rounds.Measured none = m.get("none");
        Rounds.Measured on = m.get("sluice");
        System.out.printf(Locale.ROOT, "%n#### %s: %s's own CPU per request (%d rounds of %d requests each, "
                + "%d connections)%n%n", server, filter, rounds, requests, connections);
        System.out.println("| candidate | stage, ns (t1 - t0 + t3 - t2), and over none | behind the stage, us (t2 - t1) | "
                + "response head encoded at the codec, ns, and over none | server CPU per request end to end, us "
                + "| requests/s | exchanges with a thread hop |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (var e : m.entrySet()) {
            Rounds.Measured v = e.getValue();
            System.out.printf(Locale.ROOT, "| %s | %s (%s over none) | %s | %s (%s over none) | %s | %.0f | %d |%n",
                    e.getKey(), Rounds.spread(v.stageNs, "%.0f"),
                    Rounds.spread(Rounds.minus(v.stageNs, none.stageNs), "%+.0f"),
                    Rounds.spread(scale(v.innerNs, 1e-3), "%.2f"), Rounds.spread(v.encodeNs, "%.0f"),
                    Rounds.spread(Rounds.minus(v.encodeNs, none.encodeNs), "%+.0f"), Rounds.spread(v.cpuUs, "%.2f"),
                    Rounds.median(v.perSecond), v.hops);
        }
        double[] own = Rounds.minus(on.stageNs, none.stageNs);
        double[] behind = Rounds.minus(scale(on.innerNs, 1e-3), scale(none.innerNs, 1e-3));
        double[] both = Rounds.plus(scale(own, 1e-3), behind);
        double[] encoded = Rounds.plus(scale(own, 1e-3), scale(Rounds.minus(on.encodeNs, none.encodeNs), 1e-3));
        System.out.println();
        System.out.println("| target | measured | verdict |");
        System.out.println("|---|---|---|");
        String base = server + ": " + filter + " adds <= 3 % of an unprotected request's CPU (the whole request's server "
                + "CPU without the filter, in-process); ";
        List<String> rows = List.of(
                "| " + base + "the filter stage itself, timed in its thread's CPU (decision, fields, operators, release), "
                + "minus an empty stage, paired rounds | " + Rounds.overhead(plusOf(scale(own, 1e-3), none.cpuUs),
                        none.cpuUs, 0.03) + " |",
                "| " + base + "the stage + the server encoding the fields it added, timed at the HTTP codec, paired "
                + "rounds | " + Rounds.overhead(plusOf(encoded, none.cpuUs), none.cpuUs, 0.03) + " |",
                "| " + base + "the stage + what changed behind it (the encoding, and the handler's and the socket's "
                + "noise) | "
                + Rounds.overhead(plusOf(both, none.cpuUs), none.cpuUs, 0.03) + " |",
                "| " + base + "whole server CPU with minus without the filter, paired rounds (noisiest) | "
                + Rounds.overhead(on.cpuUs, none.cpuUs, 0.03) + " |");
        rows.forEach(System.out::println);
        rows.forEach(r -> System.out.println("http-target " + r));
    }

    private static double[] scale(double[] v, double by) {
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i] * by;
        }
        return out;
    }

    private static double[] plusOf(double[] added, double[] base) {
        return Rounds.plus(base, added);
    }
}
