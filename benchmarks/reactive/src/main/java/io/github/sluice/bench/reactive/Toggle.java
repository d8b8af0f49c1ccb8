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

    private final Function<Function<E, Mono<Void>>, C> chainOf;
    private final Probe.Stage<E, C> pass = (exchange, next) -> next.apply(exchange);
    private volatile Probe.Stage<E, C> current = pass;

    Toggle(Function<Function<E, Mono<Void>>, C> chainOf) {
        this.chainOf = chainOf;
    }

    /** Goes straight on from now. */
    void off() {
        current = pass;
    }

    /** Runs {@code filter} from now: Sluice's, or a part of its work. */
    void on(BiFunction<E, C, Mono<Void>> filter) {
        current = (exchange, next) -> filter.apply(exchange, chainOf.apply(next));
    }

    @Override
    public Mono<Void> filter(E exchange, Function<E, Mono<Void>> next) {
        return current.filter(exchange, next);
    }
}
