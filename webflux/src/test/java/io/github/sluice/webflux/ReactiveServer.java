package io.github.sluice.webflux;

import io.github.sluice.http.Enforcer;
import java.net.URI;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** {@link TestApp} with a given enforcer, on a real server on a free port of 127.0.0.1. */
final class ReactiveServer implements AutoCloseable {

    /** The servers the contract runs on. */
    enum Kind { NETTY, JETTY }

    private final AnnotationConfigApplicationContext context;
    private final AutoCloseable server;
    private final URI base;

    private ReactiveServer(AnnotationConfigApplicationContext context, AutoCloseable server, int port) {
        this.context = context;
        this.server = server;
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    static ReactiveServer start(Kind kind, Enforcer enforcer) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(Enforcer.class, () -> enforcer);
        context.register(TestApp.class);
        context.refresh();
        context.getBean(RateLimitedWebFilter.class).resolveAll();
        HttpHandler handler = WebHttpHandlerBuilder.applicationContext(context).build();
        try {
            if (kind == Kind.JETTY) {
                JettyReactive jetty = JettyReactive.start(handler);
                return new ReactiveServer(context, jetty, jetty.port());
            }
            DisposableServer netty = HttpServer.create().host("127.0.0.1").port(0)
                    .handle(new ReactorHttpHandlerAdapter(handler)).bindNow();
            return new ReactiveServer(context, netty::disposeNow, netty.port());
        } catch (Exception e) {
            context.close();
            throw new IllegalStateException(e);
        }
    }

    URI base() {
        return base;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            context.close();
        }
    }
}
