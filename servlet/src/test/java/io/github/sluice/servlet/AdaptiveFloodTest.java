package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The real test of adaptive concurrency: embedded Jetty, a servlet whose work runs on a fixed pool
 * of {@value #WORKERS} workers ({@value #WORK_MS} ms each, queued beyond that, as a servlet
 * container's thread pool queues), flooded on loopback by {@value #CLIENTS} clients at once. The
 * same flood runs against the server unprotected and behind a global gradient policy, in the same
 * run, so that a loaded machine slows both alike. Unprotected, every request waits behind the
 * queue ({@value #CLIENTS} / {@value #WORKERS} x {@value #WORK_MS} ms, about 10x the unloaded
 * latency); protected, the policy refuses the excess (503) and the admitted requests keep a
 * latency near the unloaded one.
 *
 * <p>The assertions compare, with wide margins, latencies measured in the same run: the protected
 * p99 is under half the unprotected p99, and under {@value #BOUND}x the unloaded p99 measured
 * just before, behind the policy (which learns the unloaded latency from those requests, as a
 * server's policy does before a flood). The first second of each flood is left out (the limit starts at {@code initial}
 * and must learn first).
 */
class AdaptiveFloodTest {

    static final int WORKERS = 4;
    static final int WORK_MS = 50;
    static final int CLIENTS = 64;
    static final int BOUND = 8;
    private static final Duration WARM_UP = Duration.ofSeconds(1);
    private static final Duration MEASURED = Duration.ofSeconds(2);

    /** Hands each request to the worker pool and answers when its work is done. */
    static final class Pooled extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient ExecutorService workers = Executors.newFixedThreadPool(WORKERS);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse res) {
            AsyncContext async = req.startAsync();
            async.setTimeout(0);
            workers.execute(() -> {
                try {
                    Thread.sleep(WORK_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                async.complete();
            });
        }

        void stop() {
            workers.shutdownNow();
        }
    }

    /** The latencies, in nanoseconds, of the requests answered 200 in the measured part. */
    private static List<Long> flood(URI uri) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            Thread t = new Thread(() -> {
                HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build();
                try {
                    go.await();
                    while (System.nanoTime() - window[1] < 0) {
                        long start = System.nanoTime();
                        HttpResponse<Void> r = client.send(request, HttpResponse.BodyHandlers.discarding());
                        long end = System.nanoTime();
                        if (r.statusCode() == 200) {
                            if (start - window[0] >= 0) {
                                latencies.add(end - start);
                            }
                        } else {
                            refused.incrementAndGet();
                            Thread.sleep(2 * WORK_MS); // a refused client backs off a little, as real ones do
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            t.start();
            threads.add(t);
        }
        window[0] = System.nanoTime() + WARM_UP.toNanos();
        window[1] = window[0] + MEASURED.toNanos();
        go.countDown(); // the latch publishes the window to every client
        for (Thread t : threads) {
            t.join(60_000);
        }
        return latencies;
    }

    private static List<Long> sequential(URI uri, int n) throws Exception {
        List<Long> latencies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            Http.get(uri);
            latencies.add(System.nanoTime() - start);
        }
        return latencies;
    }

    private static long p(List<Long> values, double q) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
    }

    private static String ms(long nanos) {
        return String.format("%.1f ms", nanos / 1e6);
    }

    /**
     * Warms the server, measures its unloaded p99 into {@code unloaded[0]} (and, behind the policy,
     * lets the policy see the unloaded latency, as a server sees it before a flood), then floods it.
     */
    private static List<Long> run(Filter filter, long[] unloaded) throws Exception {
        Pooled servlet = new Pooled();
        try (RunningServer server = Container.JETTY.start(Deployment.of(filter, servlet))) {
            URI uri = server.uri("/api/work");
            sequential(uri, 20); // warm: class loading, connections
            unloaded[0] = p(sequential(uri, 50), 0.99);
            return flood(uri);
        } finally {
            servlet.stop();
        }
    }

    @Test
    void flood_adaptivePolicyKeepsLatencyBounded_whileTheUnprotectedServersGrows() throws Exception {
        long[] unloaded = new long[1];
        List<Long> bare = run((req, res, chain) -> chain.doFilter(req, res), new long[1]);
        List<Long> guarded;
        try (Enforcer enforcer = Enforcer.builder()
                .policies("api = adaptive gradient min=2 max=200 initial=8 samples=8 window=100ms key=global status=503")
                .listener(EnforcementListener.NONE).build()) {
            guarded = run(new SluiceFilter(enforcer), unloaded);
        }
        long bareP99 = p(bare, 0.99);
        long guardedP99 = p(guarded, 0.99);
        String numbers = "unloaded p99 " + ms(unloaded[0]) + "; unprotected p50 " + ms(p(bare, 0.5)) + " p99 "
                + ms(bareP99) + " (" + bare.size() + " answered); protected p50 " + ms(p(guarded, 0.5)) + " p99 "
                + ms(guardedP99) + " (" + guarded.size() + " answered)";
        System.out.println("AdaptiveFloodTest: " + numbers);
        assertTrue(guarded.size() > 0 && bare.size() > 0, numbers);
        assertTrue(guardedP99 * 2 < bareP99, "protected p99 under half the unprotected p99: " + numbers);
        assertTrue(guardedP99 <= BOUND * unloaded[0], "protected p99 within " + BOUND + "x the unloaded p99: " + numbers);
    }
}
