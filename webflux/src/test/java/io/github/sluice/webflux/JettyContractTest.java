package io.github.sluice.webflux;

/** The WebFlux contract on Jetty 12, running WebFlux through Spring's reactive servlet bridge. */
class JettyContractTest extends WebFluxContract {

    JettyContractTest() {
        super(ReactiveServer.Kind.JETTY);
    }
}
