package io.github.sluice.servlet;

import org.junit.jupiter.api.Nested;

/** Every container contract, on embedded Tomcat 10.1. */
class TomcatTest {

    @Nested
    class Responses extends ResponseContract {
        Responses() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class ClientAddresses extends ClientAddressContract {
        ClientAddresses() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class WebXml extends WebXmlContract {
        WebXml() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class Shaped extends ShapingContract {
        Shaped() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class PermitRelease extends PermitReleaseContract {
        PermitRelease() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class Paths extends PathContract {
        Paths() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class AsyncFront extends AsyncFrontContract {
        AsyncFront() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class Operations extends OperationsContract {
        Operations() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class ConfigWatch extends ConfigWatchContract {
        ConfigWatch() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class AdaptiveDrops extends AdaptiveDropContract {
        AdaptiveDrops() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class OutcomeCounting extends OutcomeCountingContract {
        OutcomeCounting() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class BruteForceLoginRecipe extends BruteForceLoginRecipeContract {
        BruteForceLoginRecipe() {
            super(Container.TOMCAT);
        }
    }

    @Nested
    class TwoLayers extends TwoLayersContract {
        TwoLayers() {
            super(Container.TOMCAT);
        }
    }
}
