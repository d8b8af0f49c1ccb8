package io.github.sluice.servlet;

import org.junit.jupiter.api.Nested;

/** Every container contract, on embedded Jetty 12 (ee10). */
class JettyTest {

    @Nested
    class Responses extends ResponseContract {
        Responses() {
            super(Container.JETTY);
        }
    }

    @Nested
    class ClientAddresses extends ClientAddressContract {
        ClientAddresses() {
            super(Container.JETTY);
        }
    }

    @Nested
    class WebXml extends WebXmlContract {
        WebXml() {
            super(Container.JETTY);
        }
    }

    @Nested
    class Shaped extends ShapingContract {
        Shaped() {
            super(Container.JETTY);
        }
    }

    @Nested
    class PermitRelease extends PermitReleaseContract {
        PermitRelease() {
            super(Container.JETTY);
        }
    }

    @Nested
    class Paths extends PathContract {
        Paths() {
            super(Container.JETTY);
        }
    }

    @Nested
    class AsyncFront extends AsyncFrontContract {
        AsyncFront() {
            super(Container.JETTY);
        }
    }

    @Nested
    class Operations extends OperationsContract {
        Operations() {
            super(Container.JETTY);
        }
    }

    @Nested
    class ConfigWatch extends ConfigWatchContract {
        ConfigWatch() {
            super(Container.JETTY);
        }
    }

    @Nested
    class AdaptiveDrops extends AdaptiveDropContract {
        AdaptiveDrops() {
            super(Container.JETTY);
        }
    }

    @Nested
    class OutcomeCounting extends OutcomeCountingContract {
        OutcomeCounting() {
            super(Container.JETTY);
        }
    }

    @Nested
    class BruteForceLoginRecipe extends BruteForceLoginRecipeContract {
        BruteForceLoginRecipe() {
            super(Container.JETTY);
        }
    }

    @Nested
    class TwoLayers extends TwoLayersContract {
        TwoLayers() {
            super(Container.JETTY);
        }
    }
}
