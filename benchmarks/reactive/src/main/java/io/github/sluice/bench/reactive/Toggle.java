package io.github.sluice.bench.reactive;

import java.util.function.BiFunction;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * A filter stage that runs Sluice's filter when on, and goes straight on when off: the same server,
 * chain and {@link Probe} in both states, so that the difference between them is Sluice's own cost
 * (the flag's read is in both).
 *
 * @param <E> the exchange
 * @param <C> the chain type Sluice's filter takes
 */
final class Toggle<E, C> implements Probe.Stage<E, C> {

    private final BiFunction<E, C, Mono<Void>> sluice;
    private final Function<Function<E, Mono<Void>>, C> chainOf;
    private volatile boolean on;

    Toggle(BiFunction<E, C, Mono<Void>> sluice, Function<Function<E, Mono<Void>>, C> chainOf) {
        this.sluice = sluice;
        this.chainOf = chainOf;
    }

    void on(boolean value) {
        on = value;
    }

    @Override
    public Mono<Void> filter(E exchange, Function<E, Mono<Void>> next) {
        return on ? sluice.apply(exchange, chainOf.apply(next)) : next.apply(exchange);
    }
}
