package io.github.sluice.servlet;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many requests of mixed kinds (see {@link ScenarioServlet}) from 24 clients at once, some of
 * them aborted by the client. Kinds are last path segments; {@code abort} and {@code abort-async}
 * reset the connection once the request reached the application (or was answered), and a kind
 * with a {@code /} is sent as a path under {@code /api/}.
 */
final class MixedLoad {

    private MixedLoad() {
    }

    /**
     * Sends {@code count} requests, kinds drawn at random (seeded) from {@code kinds}.
     *
     * @return how many requests of each kind ended how: {@code "<kind> <status>"} or
     *     {@code "<kind> aborted"}; an exception is counted under its text
     */
    static Map<String, AtomicInteger> send(RunningServer server, ScenarioServlet app, int count, String... kinds)
            throws Exception {
        Random random = new Random(5);
        List<String> plan = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            plan.add(kinds[random.nextInt(kinds.length)]);
        }
        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        ExecutorService clients = Executors.newFixedThreadPool(24);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (String kind : plan) {
                done.add(clients.submit(() -> {
                    String outcome;
                    try {
                        outcome = run(server, app, kind);
                    } catch (IOException | RuntimeException e) {
                        outcome = e.toString(); // reported with the request's kind
                    }
                    outcomes.computeIfAbsent(kind + " " + outcome, k -> new AtomicInteger()).incrementAndGet();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        return outcomes;
    }

    /** Runs one request of the given kind; returns its status, or "aborted". */
    private static String run(RunningServer server, ScenarioServlet app, String kind)
            throws IOException, InterruptedException {
        if (kind.startsWith("abort")) {
            URI uri = server.uri(kind.equals("abort") ? "/api/block" : "/api/async-block");
            try (Socket socket = Http.send(uri)) {
                awaitEnteredOrAnswered(app, socket.getInputStream());
            }
            return "aborted";
        }
        return Integer.toString(Http.get(server.uri("/api/" + kind)).statusCode());
    }

    /** Waits until some request reached the application, or the server answered (a denial). */
    private static void awaitEnteredOrAnswered(ScenarioServlet app, InputStream in)
            throws IOException, InterruptedException {
        for (int i = 0; i < 500; i++) {
            if (app.entered.tryAcquire(10, TimeUnit.MILLISECONDS) || in.available() > 0) {
                return;
            }
        }
    }
}
