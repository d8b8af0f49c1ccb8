package io.github.sluice.webflux;

/** The WebFlux contract on Reactor Netty. */
class NettyContractTest extends WebFluxContract {

    NettyContractTest() {
        super(ReactiveServer.Kind.NETTY);
    }
}
