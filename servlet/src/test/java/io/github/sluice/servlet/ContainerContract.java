package io.github.sluice.servlet;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * The base of every contract that runs against both containers: it starts servers on random
 * ports and stops them after each test. Subclasses are declared {@code @Nested} in
 * {@link JettyTest} and {@link TomcatTest}.
 */
abstract class ContainerContract {

    /** Frozen unless a test advances it: rate limits then decide the same way on a loaded machine. */
    final FakeClock clock = new FakeClock();
    final ScenarioServlet app = new ScenarioServlet();
    private final Container container;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    ContainerContract(Container container) {
        this.container = container;
    }

    Container container() {
        return container;
    }

    RunningServer start(Deployment deployment) throws Exception {
        RunningServer server = container.start(deployment);
        closeables.add(server);
        return server;
    }

    RunningServer startWebapp(java.nio.file.Path webapp) throws Exception {
        RunningServer server = container.startWebapp(webapp);
        closeables.add(server);
        return server;
    }

    /** An enforcer of the given policy lines on an in-memory store driven by {@link #clock}. */
    Enforcer enforcer(Enforcer.Builder config) {
        Enforcer enforcer = config.clock(clock).listener(EnforcementListener.NONE).build();
        closeables.add(enforcer);
        return enforcer;
    }

    Enforcer enforcer(String policies) {
        return enforcer(Enforcer.builder().policies(policies));
    }

    @AfterEach
    void stopServers() throws Exception {
        app.gate.countDown(); // never leave a container thread parked in the application
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }
}
