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

        /**
         * An async dispatch that throws after committing: Tomcat reports it to the listener's
         * {@code onError}, which settles with the committed status. (Jetty 12 did not end such a
         * request within 10 s, concurrency permits included: not covered there.)
         */
        @org.junit.jupiter.api.Test
        void asyncDispatchThrowingAfterTheCommit_countsTheCommittedStatus() throws Exception {
            deploy("count=401");
            send("/api/async-throw?code=401");
            org.junit.jupiter.api.Assertions.assertEquals(1, charged());
            send("/api/async-throw?code=200");
            org.junit.jupiter.api.Assertions.assertEquals(1, charged());
        }
    }

    @Nested
    class BruteForceLoginRecipe extends BruteForceLoginRecipeContract {
        BruteForceLoginRecipe() {
            super(Container.TOMCAT);
        }
    }
}
