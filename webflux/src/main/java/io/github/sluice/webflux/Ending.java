package io.github.sluice.webflux;

import io.github.sluice.http.Verdict;
import org.reactivestreams.Subscription;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoOperator;
import reactor.util.context.Context;

/**
 * The rest of an exchange's chain, ending its verdict exactly once on the chain's signal, before
 * the signal goes on: complete: {@link Verdict#release(int)} with the response's status; error:
 * {@link Verdict#releaseFailed()}; cancel (the client went away): {@link Verdict#releaseAborted()}.
 *
 * <p>Before, not after ({@code doFinally} runs after): downstream of the chain the server
 * finishes the response, and a servlet container running WebFlux recycles it then (Jetty 12's
 * {@code getStatus()} throws "Response does not exist"), so the status must be read first. And a
 * permit is back before the client has its whole response. Ending never throws.
 */
final class Ending extends MonoOperator<Void, Void> {

    private final Verdict verdict;
    private final ServerHttpResponse response;

    Ending(Mono<Void> chain, Verdict verdict, ServerHttpResponse response) {
        super(chain);
        this.verdict = verdict;
        this.response = response;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        source.subscribe(new Subscriber(actual, verdict, response));
    }

    /** @return the response's status, 200 if none was set (the server's default), 0 if it cannot be read */
    static int status(ServerHttpResponse response) {
        try {
            HttpStatusCode status = response.getStatusCode();
            return status == null ? 200 : status.value();
        } catch (RuntimeException recycled) {
            return 0; // unknown: learned as a success, but the permits come back all the same
        }
    }

    private static final class Subscriber implements CoreSubscriber<Void>, Subscription {
        private final CoreSubscriber<? super Void> actual;
        private final Verdict verdict;
        private final ServerHttpResponse response;
        private Subscription upstream;

        Subscriber(CoreSubscriber<? super Void> actual, Verdict verdict, ServerHttpResponse response) {
            this.actual = actual;
            this.verdict = verdict;
            this.response = response;
        }

        @Override
        public Context currentContext() {
            return actual.currentContext();
        }

        @Override
        public void onSubscribe(Subscription s) {
            upstream = s;
            actual.onSubscribe(this);
        }

        @Override
        public void onNext(Void unused) {
            // a Mono<Void> emits no value
        }

        @Override
        public void onError(Throwable t) {
            verdict.releaseFailed();
            actual.onError(t);
        }

        @Override
        public void onComplete() {
            verdict.release(status(response));
            actual.onComplete();
        }

        @Override
        public void request(long n) {
            upstream.request(n);
        }

        @Override
        public void cancel() {
            verdict.releaseAborted();
            upstream.cancel();
        }
    }
}
