package io.github.sluice.servlet;

import io.github.sluice.core.Clock;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * The application behind the filter in every container test; what it does depends on the last
 * path segment. Mapped to {@code /api/*} (and {@code /file/*} in the test webapp).
 *
 * <ul>
 *   <li>{@code ok}: 200 {@code ok};
 *   <li>{@code throw}: throws from the chain;
 *   <li>{@code async}: goes async and completes from another thread;
 *   <li>{@code async-inline}: goes async and completes before the dispatch returns;
 *   <li>{@code async-timeout}: goes async with a 250 ms timeout and never completes (Jetty 12.1.12 was
 *       seen to lose about 1 in 500 async timeouts of 50 ms under load, with or without Sluice);
 *   <li>{@code restart}: goes async, dispatches, goes async again and parks the second context
 *       in {@link #parked} until the test completes it;
 *   <li>{@code block}: signals {@link #entered}, waits for {@link #gate}, then writes 1 MiB (to a
 *       client that may be gone);
 *   <li>{@code async-block}: goes async with a 200 ms timeout, signals {@link #entered}, never completes;
 *   <li>{@code flush}: writes 64 KiB and flushes (commits) before returning;
 *   <li>{@code empty}: 204, no body;
 *   <li>{@code dispatch-type}: records when it ran in {@link #entries} and answers the dispatcher
 *       type it runs in ({@code REQUEST}, {@code ASYNC});
 *   <li>{@code redispatch}: goes async and dispatches before the dispatch returns; the {@code ASYNC}
 *       dispatch answers {@code ASYNC};
 *   <li>{@code redispatch-later}: goes async and dispatches from another thread at once (racing the
 *       return of the first dispatch); the {@code ASYNC} dispatch answers {@code ASYNC};
 *   <li>{@code attributes}: answers the names of the request attributes that start with
 *       {@code io.github.sluice.}, one per line.
 * </ul>
 */
public class ScenarioServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** Released once per request that reached {@code block} or {@code async-block}. */
    public final transient Semaphore entered = new Semaphore(0);
    /** Opens every {@code block} request. */
    public final transient CountDownLatch gate = new CountDownLatch(1);
    /** The context parked by {@code restart} in its second async cycle. */
    public final transient AtomicReference<AsyncContext> parked = new AtomicReference<>();
    /** When {@code dispatch-type} requests reached the application, {@link Clock#system()} nanos. */
    public final transient Queue<Long> entries = new ConcurrentLinkedQueue<>();
    /** Opens when {@link #parked} is set. */
    public final transient CountDownLatch parkedReady = new CountDownLatch(1);

    /** Creates the servlet (the test webapp's container does, too). */
    public ScenarioServlet() {
    }

    /**
     * The response header naming the path the application routes by (servlet path + path info,
     * percent-encoded as UTF-8): what the application takes the request to be for. Absent when
     * the container will not tell (Jetty 12 throws for the URIs it calls ambiguous).
     */
    public static final String SEEN_PATH = "X-Seen-Path";

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
        try {
            String info = req.getPathInfo();
            res.setHeader(SEEN_PATH, URLEncoder.encode(req.getServletPath() + (info == null ? "" : info),
                    StandardCharsets.UTF_8));
        } catch (RuntimeException ambiguous) {
            // the application cannot know the path either: it answers anyway, from the request URI
        }
        String uri = req.getRequestURI();
        String scenario = uri.substring(uri.lastIndexOf('/') + 1);
        switch (scenario) {
            case "throw" -> throw new IllegalStateException("thrown by the application on purpose");
            case "async" -> {
                AsyncContext ctx = req.startAsync();
                CompletableFuture.runAsync(() -> {
                    write(ctx.getResponse(), "async");
                    ctx.complete();
                });
            }
            case "async-inline" -> {
                AsyncContext ctx = req.startAsync();
                write(res, "inline");
                ctx.complete();
            }
            case "async-timeout" -> req.startAsync().setTimeout(250);
            case "restart" -> restart(req);
            case "block" -> block(res);
            case "async-block" -> {
                req.startAsync().setTimeout(200);
                entered.release();
            }
            case "empty" -> res.setStatus(HttpServletResponse.SC_NO_CONTENT);
            case "dispatch-type" -> {
                entries.add(Clock.system().nanos());
                write(res, req.getDispatcherType().name());
            }
            case "redispatch" -> {
                if (req.getDispatcherType() == DispatcherType.ASYNC) {
                    write(res, "ASYNC");
                } else {
                    req.startAsync().dispatch();
                }
            }
            case "redispatch-later" -> {
                if (req.getDispatcherType() == DispatcherType.ASYNC) {
                    write(res, "ASYNC");
                } else {
                    AsyncContext ctx = req.startAsync();
                    CompletableFuture.runAsync(ctx::dispatch);
                }
            }
            case "attributes" -> write(res, Collections.list(req.getAttributeNames()).stream()
                    .filter(n -> n.startsWith("io.github.sluice.")).sorted().collect(Collectors.joining("\n")));
            case "flush" -> {
                res.setContentType("text/plain");
                res.getOutputStream().write(new byte[64 * 1024]);
                res.flushBuffer();
            }
            default -> write(res, "ok");
        }
    }

    private void restart(HttpServletRequest req) {
        if (req.getDispatcherType() == DispatcherType.ASYNC) {
            parked.set(req.startAsync()); // a second cycle: the filter's listener must follow it here
            parkedReady.countDown();
        } else {
            req.startAsync().dispatch();
        }
    }

    private void block(HttpServletResponse res) throws IOException {
        entered.release();
        try {
            if (!gate.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never opened the gate");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        ServletOutputStream out = res.getOutputStream();
        byte[] chunk = new byte[16 * 1024];
        for (int i = 0; i < 64; i++) {
            out.write(chunk); // fails once the container sees that the client has gone
        }
    }

    private static void write(jakarta.servlet.ServletResponse res, String text) {
        try {
            res.setContentType("text/plain");
            res.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
